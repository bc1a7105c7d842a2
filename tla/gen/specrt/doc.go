// Package specrt is the run-time support of the Go packages that gen
// compiles from TLA+ specifications, as protoimpl is for protoc-gen-go's
// output: what every compiled spec needs and nothing specific to one.
//
//   - Type: the shape of each value type of a spec, which the compiled
//     spec declares as data (Bool, Int, Strings, Elem, Set, Func, Seq,
//     Record); from it specrt hashes and compares values (Type.Hash,
//     Type.Equal) and, bound to a configuration's domains (Codec), prints
//     them as TLA+ and as ITF (Apalache's Informal Trace Format), converts
//     them to the interpreter's values and reads them back from ITF and
//     from plain JSON;
//   - Domain: a finite constant set whose elements are numbered in the
//     interpreter's canonical order, so that a function over it is a Go
//     slice and a set of its elements a 64-bit bitset;
//   - checked arithmetic with TLA+'s semantics (AddInt, FloorDiv, ...) and
//     the sequence operators (Append, Concat);
//   - the static descriptions of a spec's actions and their annotations
//     (ActionInfo, Wire) and of its properties (PropertyInfo).
//
// A compiled spec (spec/model for Room.tla) re-exports nothing from here
// but uses these types in its API: a Config's constant sets are *Domain,
// its actions are described by ActionInfo.
//
// specrt imports nothing of the TLA+ front end (the parser, tla/cfg): a
// compiled spec runs without it. Its constants are a typed struct; the
// loader that fills one from a .cfg file lives with the product.
package specrt
