package eval

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// env is the chain of bound names in scope at a point of evaluation:
// quantified variables, operator parameters, LET definitions and @.
type env struct {
	name string
	val  value.Value
	op   *closure // set when the name stands for an operator
	th   *thunk   // set for an operator parameter: the argument, by name
	next *env
}

// thunk is an argument of an operator call, bound to the parameter by name
// as TLA+'s substitution semantics requires: Op(x) with Op(q) == q' = 1
// means x' = 1, so the argument is evaluated where the parameter is used,
// in the state (current or next) of that use, with the caller's names.
type thunk struct {
	expr tla.Expr
	sc   *scope
	env  *env
	// memo is the argument's value in the current state, kept once it has
	// been computed without reading the next state (in state memoS).
	memo  value.Value
	memoS []value.Value
	// shared marks an argument bound in a formula that goroutines
	// evaluate concurrently (an atom of a temporal property): it is never
	// memoized, so that its fields are only read.
	shared bool
}

func (e *env) bind(name string, v value.Value) *env {
	return &env{name: name, val: v, next: e}
}

func (e *env) bindOp(name string, op *closure) *env {
	return &env{name: name, op: op, next: e}
}

// bindArg binds name to the argument expression arg, written in the
// context c.
func (e *env) bindArg(name string, arg tla.Expr, c *ctx) *env {
	// An argument that is a name bound to a value (a quantified variable,
	// an already evaluated parameter) is that value, primed or not: bind it
	// as such.
	switch x := arg.(type) {
	case *tla.Ident:
		if b := c.env.find(x.Name); b != nil && b.op == nil && b.th == nil {
			return e.bind(name, b.val)
		}
	case *tla.Str, *tla.Bool:
		// A literal is its value (Decided(rm, "prepared")): a thunk
		// would be larger and no lazier.
		return e.bind(name, c.eval(x))
	case *tla.Num:
		// A number once converted (one too large for an integer fails
		// where it is used, if it is).
		if v, ok := x.Val.Load().(value.Value); ok {
			return e.bind(name, v)
		}
	}
	// One allocation for the binding and its thunk.
	b := &struct {
		env
		thunk
	}{env{name: name, next: e}, thunk{expr: arg, sc: c.sc, env: c.env, shared: c.shared}}
	b.env.th = &b.thunk
	return &b.env
}

func (e *env) find(name string) *env {
	for ; e != nil; e = e.next {
		if e.name == name {
			return e
		}
	}
	return nil
}

// closure is an operator as a value: a LET definition, a LAMBDA, an
// operator passed as an argument, or a definition of a scope.
type closure struct {
	name    string
	params  []*tla.Param
	body    tla.Expr
	fn      *tla.FuncDef // LET f[x \in S] == e
	sc      *scope
	env     *env
	builtin string // an operator symbol such as "+" passed as an argument
	at      tla.Pos
}

// ctx is where an expression is evaluated: its scope and bound names, and
// the current and next states. In a constant context both states are nil.
// While successors are enumerated, next is the partial next state: nil
// entries are variables not yet assigned.
type ctx struct {
	sc  *scope
	env *env
	// The states are in a frame of their own, shared by every context
	// that sees them: contexts are made at every operator call and every
	// quantifier, and a small one is allocated and collected faster.
	*frame
	depth int // nested operator and function calls
}

// frame is what a context knows of the states. A frame is never changed
// once a context holds it: a context that sees other states gets a new
// frame.
type frame struct {
	s, t   []value.Value
	primed bool // s is the next state (we are under a prime)
	// partial is set while initial states are enumerated: s is then the
	// state being built, whose unassigned variables change as it goes.
	partial bool
	// shared is set while a temporal formula is decomposed: what it binds
	// is evaluated later by several goroutines at once.
	shared bool
	// nextReads counts the reads of the next state by the evaluation the
	// frame belongs to (every frame made from the first shares it, nil
	// where there is no next state): a parameter's value is kept only when
	// its evaluation did not read the next state, which a count tells
	// without a frame of its own for each argument.
	nextReads *int
}

// noStates is the frame of a constant context; sharedNoStates that of a
// temporal formula being decomposed.
var (
	noStates       = &frame{}
	sharedNoStates = &frame{shared: true}
)

// maxDepth bounds nested operator and function calls: a recursion without
// end must be an error of the spec, not a fatal overflow of the Go stack.
const maxDepth = 10000

// call returns the context in which a body of scope sc with bound names
// env is evaluated when called from c (at the call site at).
func (c *ctx) call(sc *scope, env *env, at tla.Pos) *ctx {
	if c.depth >= maxDepth {
		c.fail(at, "more than %d nested operator or function calls: a recursion without end?", maxDepth)
	}
	return &ctx{sc: sc, env: env, frame: c.frame, depth: c.depth + 1}
}

// value returns the value of a bound name; a parameter's argument is
// evaluated in c's states.
func (c *ctx) value(b *env, at tla.Pos) value.Value {
	th := b.th
	if th == nil {
		return b.val
	}
	memoable := !c.primed && !c.partial && !th.shared
	if memoable && th.memo != nil && sameState(th.memoS, c.s) {
		return th.memo
	}
	reads := c.readsOfNext()
	v := c.call(th.sc, th.env, at).eval(th.expr)
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
func (c *ctx) argCtx(b *env, at tla.Pos) *ctx {
	return c.call(b.th.sc, b.th.env, at)
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

// cache guards the values of constant-level definitions, which workers
// share.
var cacheMu sync.Mutex
