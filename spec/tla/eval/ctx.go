package eval

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/roomspec/roomspec/spec/tla"
	"github.com/roomspec/roomspec/spec/tla/value"
)

// env is the chain of bound names in scope at a point of evaluation:
// quantified variables, operator parameters, LET definitions and @.
type env struct {
	name string
	val  value.Value
	op   *closure // set when the name stands for an operator
	next *env
}

func (e *env) bind(name string, v value.Value) *env {
	return &env{name: name, val: v, next: e}
}

func (e *env) bindOp(name string, op *closure) *env {
	return &env{name: name, op: op, next: e}
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
	sc     *scope
	env    *env
	s, t   []value.Value
	primed bool // s is the next state (we are under a prime)
	depth  int  // nested operator and function calls
}

// maxDepth bounds nested operator and function calls: a recursion without
// end must be an error of the spec, not a fatal overflow of the Go stack.
const maxDepth = 10000

// call returns the context in which a body of scope sc with bound names
// env is evaluated when called from c (at the call site at).
func (c *ctx) call(sc *scope, env *env, at tla.Pos) *ctx {
	if c.depth >= maxDepth {
		c.fail(at, "more than %d nested operator or function calls: a recursion without end?", maxDepth)
	}
	return &ctx{sc: sc, env: env, s: c.s, t: c.t, primed: c.primed, depth: c.depth + 1}
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
