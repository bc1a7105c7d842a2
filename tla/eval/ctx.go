package eval

import (
	"fmt"
	"runtime"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// env is the chain of binding groups in scope at a point of evaluation,
// innermost first: one group per binder the resolver saw (an operator's
// parameters, the names of a quantifier, the definitions of a LET, @), its
// names in the resolver's slots. A name is found by counting groups out
// and indexing, never by name.
type env struct {
	slots []binding
	next  *env
}

// binding is what a slot holds: a value, an operator argument to evaluate
// where it is used (th), or an operator (op).
type binding struct {
	val value.Value
	th  *thunk
	op  *closure
}

// at returns the binding in slot slot of the group up groups out.
func (e *env) at(up, slot int) *binding {
	for ; up > 0; up-- {
		e = e.next
	}
	return &e.slots[slot]
}

// lookup is at for a chain that may be too short (nil then).
func (e *env) lookup(up, slot int) *binding {
	for ; up > 0 && e != nil; up-- {
		e = e.next
	}
	if e == nil || slot >= len(e.slots) {
		return nil
	}
	return &e.slots[slot]
}

// push returns a group of n slots over e.
func (e *env) push(n int) *env {
	switch n {
	case 1:
		// One allocation for the group and its slot, the usual case.
		g := &struct {
			env
			s [1]binding
		}{}
		g.env.slots, g.env.next = g.s[:], e
		return &g.env
	case 2:
		g := &struct {
			env
			s [2]binding
		}{}
		g.env.slots, g.env.next = g.s[:], e
		return &g.env
	case 3:
		g := &struct {
			env
			s [3]binding
		}{}
		g.env.slots, g.env.next = g.s[:], e
		return &g.env
	case 4:
		g := &struct {
			env
			s [4]binding
		}{}
		g.env.slots, g.env.next = g.s[:], e
		return &g.env
	}
	return &env{slots: make([]binding, n), next: e}
}

// newEnv returns a group holding vals.
func newEnv(vals []value.Value) *env {
	e := (*env)(nil).push(len(vals))
	for i, v := range vals {
		e.slots[i].val = v
	}
	return e
}

// thunk is an argument of an operator call, bound to the parameter by name
// as TLA+'s substitution semantics requires: Op(x) with Op(q) == q' = 1
// means x' = 1, so the argument is evaluated where the parameter is used,
// in the state (current or next) of that use, with the caller's names.
type thunk struct {
	e   expr
	sc  *scope
	env *env
	// memo is the argument's value in the current state, kept once it has
	// been computed without reading the next state (in state memoS).
	memo  value.Value
	memoS []value.Value
	// shared marks an argument bound in a formula that goroutines
	// evaluate concurrently (an atom of a temporal property): it is never
	// memoized, so that its fields are only read.
	shared bool
}

// closure is an operator as a value: a LET definition, a LAMBDA, an
// operator passed as an argument (a definition or a built-in operator).
type closure struct {
	name    string
	nparams int
	params  []*tla.Param // the parameters' arities, when some are operators
	body    expr
	fn      *funcDef // LET f[x \in S] == e
	sc      *scope
	env     *env
	op      tla.Op // a built-in operator such as + passed as an argument
	d       *defn  // a definition passed as an argument
	at      tla.Pos
}

// ctx is where an expression is evaluated: its scope and bindings, and the
// current and next states. In a constant context both states are nil.
// While successors are enumerated, next is the partial next state: nil
// entries are variables not yet assigned.
type ctx struct {
	sc  *scope
	env *env
	// The states are in a struct of their own, shared by every context
	// that sees them: contexts are made at every operator call and every
	// quantifier, and a small one is allocated and collected faster.
	*states
	depth int // nested operator and function calls
}

// states is what a context knows of the states. It is never changed once
// a context holds it: a context that sees other states gets new ones.
type states struct {
	s, t   []value.Value
	primed bool // s is the next state (we are under a prime)
	// partial is set while initial states are enumerated: s is then the
	// state being built, whose unassigned variables change as it goes.
	partial bool
	// shared is set while a temporal formula is decomposed: what it binds
	// is evaluated later by several goroutines at once.
	shared bool
	// whole is set where the next state is a whole one (a step judged by
	// HoldsStep), not one being built by an action: under a prime, s is
	// then that whole state.
	whole bool
	// nextReads counts the reads of the next state by the evaluation the
	// states belong to (every copy made from the first shares it, nil
	// where there is no next state): a parameter's value is kept only when
	// its evaluation did not read the next state, which a count tells
	// without states of their own for each argument.
	nextReads *int
}

// noStates are those of a constant context; sharedNoStates those of a
// temporal formula being decomposed.
var (
	noStates       = &states{}
	sharedNoStates = &states{shared: true}
)

// maxDepth bounds nested operator and function calls: a recursion without
// end must be an error of the spec, not a fatal overflow of the Go stack.
const maxDepth = 10000

// call returns the context in which a body of scope sc with bindings env
// is evaluated when called from c (at the call site at).
func (c *ctx) call(sc *scope, env *env, at tla.Pos) *ctx {
	if c.depth >= maxDepth {
		c.fail(at, "more than %d nested operator or function calls: a recursion without end?", maxDepth)
	}
	c.poll()
	return &ctx{sc: sc, env: env, states: c.states, depth: c.depth + 1}
}

// value returns the value of a binding; a parameter's argument is
// evaluated in c's states.
func (c *ctx) value(b *binding, at tla.Pos) value.Value {
	th := b.th
	if th == nil {
		return b.val
	}
	memoable := !c.primed && !c.partial && !th.shared
	if memoable && th.memo != nil && sameState(th.memoS, c.s) {
		return th.memo
	}
	reads := c.readsOfNext()
	v := c.call(th.sc, th.env, at).eval(th.e)
	if memoable && c.readsOfNext() == reads {
		th.memo, th.memoS = v, c.s
	}
	return v
}

// readsOfNext returns how many times the evaluation has read the next
// state so far.
func (c *ctx) readsOfNext() int {
	if c.nextReads == nil {
		return 0
	}
	return *c.nextReads
}

// sameState reports whether a and b are the same state (the same array, or
// both no state).
func sameState(a, b []value.Value) bool {
	if len(a) == 0 || len(b) == 0 {
		return a == nil && b == nil
	}
	return len(a) == len(b) && &a[0] == &b[0]
}

// argCtx returns the context in which the argument bound to b is
// evaluated (or enumerated) from a use in c.
func (c *ctx) argCtx(b *binding, at tla.Pos) *ctx {
	return c.call(b.th.sc, b.th.env, at)
}

// bindArg returns the binding of an argument expression written in c: a
// literal, or a name bound to a value, is that value; anything else is
// evaluated where the parameter is used.
func (c *ctx) bindArg(arg expr) binding {
	if v := c.argValue(arg); v != nil {
		return binding{val: v}
	}
	return binding{th: &thunk{e: arg, sc: c.sc, env: c.env, shared: c.shared}}
}

// Error is an evaluation error at a position in a source file.
type Error = tla.Error

type evalPanic struct{ err error }

func (c *ctx) fail(at tla.Pos, format string, args ...any) {
	file := ""
	if c != nil && c.sc != nil {
		file = c.sc.file
	}
	panic(evalPanic{&tla.Error{File: file, Pos: at, Msg: fmt.Sprintf(format, args...)}})
}

// recoverError turns an evaluation panic into an error. Runtime errors
// (bugs) are reported as errors too, so bad input never crashes a run.
func recoverError(err *error) {
	r := recover()
	if r == nil {
		return
	}
	switch x := r.(type) {
	case evalPanic:
		*err = x.err
	case *tla.Error:
		*err = x
	case error:
		if _, ok := x.(runtime.Error); ok {
			buf := make([]byte, 4096)
			buf = buf[:runtime.Stack(buf, false)]
			*err = fmt.Errorf("internal error in evaluator: %v\n%s", x, buf)
			return
		}
		*err = x
	default:
		panic(r)
	}
}
