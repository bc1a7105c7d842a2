// Package eval evaluates TLA+ with TLC's semantics: expressions, initial
// predicates and actions (enumerated into states, TLC style: the first
// x' = e of a conjunction assigns x'), ENABLED, and the decomposition of
// temporal formulas for the model checker.
//
// A Spec is made once from the resolver's table (tla.Resolve) and the
// model's bindings: every definition is compiled, once per instantiation
// of its module, into nodes that know what each name means (a slot of
// the bindings in scope, a state variable, a definition and the context
// it is evaluated in, a built-in operator), what can be computed once
// (literals, constant expressions, quantifier domains) and where. No name
// is looked up while evaluating, nothing is written to the syntax tree,
// and what is computed once is kept in the context it belongs to, not in
// process-wide maps: workers evaluate a Spec concurrently without locks.
package eval
