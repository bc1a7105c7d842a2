// Package specrt is the run-time support of the Go packages that gen
// compiles from TLA+ specifications, as protoimpl is for protoc-gen-go's
// output: what every compiled spec needs and nothing specific to one.
//
//   - Domain: a finite constant set whose elements are numbered in the
//     interpreter's canonical order, so that a function over it is a Go
//     slice and a set of its elements a 64-bit bitset;
//   - checked arithmetic with TLA+'s semantics (AddInt, FloorDiv, ...) and
//     the sequence operators (Append, Concat);
//   - printing values as TLA+ and as ITF (Apalache's Informal Trace
//     Format), and reading them back from ITF and from plain JSON;
//   - reading constants from a parsed .cfg (Constants);
//   - the static descriptions of a spec's actions and their annotations
//     (ActionInfo, Wire) and of its properties (PropertyInfo).
//
// A compiled spec (spec/model for Room.tla) re-exports nothing from here
// but uses these types in its API: a Config's constant sets are *Domain,
// its actions are described by ActionInfo.
package specrt
