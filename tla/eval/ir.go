package eval

import (
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// The evaluator does not walk the syntax tree: NewSpec compiles every
// definition, once per instantiation of its module (a template), into the
// nodes below, reading what each name means from the resolver (tla.Info).
// A node knows what it refers to (a slot of the bindings in scope, a state
// variable's index, a compiled definition and how to reach the context it
// is evaluated in, a built-in Op) and what can be computed once (a literal's
// value, whether an expression is constant, a record's shape). Nodes are
// never written after compilation: workers share them.

// expr is a compiled expression.
type expr interface {
	// src is the syntax the node was compiled from, for positions and
	// messages.
	src() tla.Expr
}

// node is embedded in every compiled expression.
type node struct{ x tla.Expr }

func (n *node) src() tla.Expr { return n.x }

// pos returns where e was written.
func pos(e expr) tla.Pos { return e.src().Pos() }

type (
	// lit is a value known when compiling: a literal, a constant the
	// model gives a value, a built-in constant such as BOOLEAN.
	lit struct {
		node
		v value.Value
	}
	// failing is an expression whose evaluation fails with msg: a
	// construct the evaluator does not support, an integer that does not
	// fit, a constant without a value.
	failing struct {
		node
		msg string
	}
	// local is a name bound in an expression: slot slot of the binding
	// group up groups out.
	local struct {
		node
		up, slot int
	}
	// varRef is a state variable.
	varRef struct {
		node
		idx  int
		name string
	}
	// substRef is a constant or variable of an instantiated module,
	// replaced by an expression of the instantiating one.
	substRef struct {
		node
		s *substitution
	}
	// defRef is a definition without arguments.
	defRef struct {
		node
		d  *defn
		at where
	}
	// callDef applies a definition with parameters: args holds the
	// ordinary arguments and ops the operator arguments (each nil where
	// the other is set).
	callDef struct {
		node
		d    *defn
		at   where
		args []expr
		ops  []*opArg
	}
	// callLocal applies an operator bound in an expression: a LET
	// definition with parameters, an operator parameter.
	callLocal struct {
		node
		up, slot int
		args     []expr
		ops      []*opArg
	}
	// callSubst applies an operator constant of an instantiated module,
	// replaced by an operator of the instantiating one.
	callSubst struct {
		node
		s    *substitution
		args []expr
		ops  []*opArg
	}
	// callBuiltin applies a built-in operator. cache is the slot of its
	// value when it is constant (-1 otherwise).
	callBuiltin struct {
		node
		op    tla.Op
		args  []expr
		ops   []*opArg
		cache int
	}
	// selector is a subexpression name Op!1!:, the selected expression
	// evaluated where Op's body is.
	selector struct {
		node
		d  *defn
		at where
		e  expr
	}
	junction struct {
		node
		and   bool
		items []expr
	}
	ifExpr struct {
		node
		cond, then, els expr
	}
	caseExpr struct {
		node
		conds, vals []expr
		other       expr
	}
	// letExpr binds its definitions in a group of their own.
	letExpr struct {
		node
		defs []*letDef
		body expr
	}
	setEnum struct {
		node
		elems []expr
		cache int
	}
	tuple struct {
		node
		elems []expr
		cache int
	}
	record struct {
		node
		shape *value.RecordShape
		vals  []expr
		cache int
	}
	// recordSet has its fields sorted by name.
	recordSet struct {
		node
		names []string
		sets  []expr
		cache int
	}
	funcSet struct {
		node
		dom, rng expr
		cache    int
	}
	cross struct {
		node
		sets  []expr
		cache int
	}
	setFilter struct {
		node
		b    *binder
		pred expr
	}
	setMap struct {
		node
		b    *binder
		elem expr
	}
	quant struct {
		node
		exists bool
		b      *binder
		body   expr
	}
	choose struct {
		node
		b    *binder
		body expr
	}
	funcCons struct {
		node
		b    *binder
		body expr
	}
	funcApp struct {
		node
		f    expr
		args []expr
	}
	fieldAccess struct {
		node
		rec  expr
		name string
	}
	except struct {
		node
		f       expr
		updates []*exceptUpdate
	}
	actionBox struct {
		node
		a, sub expr
	}
	actionAngle struct {
		node
		a, sub expr
	}
	fairness struct {
		node
		strong bool
		sub, a expr
	}
)

// letDef is a LET definition: a zero-argument one is bound to its body,
// evaluated where it is used and kept; one with parameters or a function
// definition to a closure.
type letDef struct {
	name    string
	at      tla.Pos
	nparams int
	params  []*tla.Param
	body    expr
	fn      *funcDef
}

// funcDef is f[x \in S, ...] == body.
type funcDef struct {
	name string
	at   tla.Pos
	b    *binder
	body expr
}

// binder is the bounds of a quantifier, CHOOSE, set or function
// constructor, or function definition: its names fill one binding group.
type binder struct {
	slots  int
	bounds []*bound
}

// bound is `x, y \in S` or `<<a, b>> \in S`; set is nil when unbounded.
type bound struct {
	at    tla.Pos
	first int // slot of the first name
	names int
	tuple bool
	set   expr
	// dom is the context cache slot of the set's enumeration when the set
	// is constant, -1 otherwise.
	dom int
}

// exceptUpdate is `!path = val`; val is evaluated in a group binding @
// when bindsAt.
type exceptUpdate struct {
	path    []*exceptStep
	val     expr
	bindsAt bool
}

type exceptStep struct {
	at    tla.Pos
	field string
	index []expr
}

// opArgKind says what an operator argument is.
type opArgKind uint8

const (
	opLambda  opArgKind = iota // LAMBDA x : body
	opDef                      // a definition (possibly of an instance)
	opLocal                    // an operator bound in an expression
	opBuiltin                  // a built-in operator
	opSubst                    // an operator constant of an instance, passed on
	opFailing                  // cannot be an operator (msg)
)

// opArg is an argument passed for an operator parameter: at run time it
// becomes a closure.
type opArg struct {
	kind     opArgKind
	name     string
	at       tla.Pos
	nparams  int
	body     expr // opLambda
	d        *defn
	where    where // opDef
	up, slot int   // opLocal
	op       tla.Op
	s        *substitution
	msg      string
	varies   bool // the operator's value may depend on the state
}

// where says how to reach, from the context an expression is evaluated
// in, the context of the definition it refers to: the root context, then
// named instances (with their arguments) and unnamed ones, in order. The
// zero where is the context itself.
type where struct {
	root bool
	hops []hop
}

// hop is one step of a where: an unnamed instance (sub), or a named one
// (inst, applied to args).
type hop struct {
	sub  int // index of an unnamed instance in the template's subs, or -1
	inst *namedInst
	args []expr
}

func (w where) here() bool { return !w.root && len(w.hops) == 0 }

// substitution is what replaces a constant or variable of an
// instantiated module: an expression of the instantiating template,
// evaluated in the instantiating context with the instance's parameters
// bound (or, for an operator constant, an operator).
type substitution struct {
	name   string
	e      expr
	op     *opArg
	unit   int // the instantiating unit
	varies bool
	slot   int // of its values in a context's memo (substMemo)
}

// children calls f with each direct subexpression of e (the expressions
// of operator arguments and instance arguments included).
func children(e expr, f func(expr)) {
	all := func(es []expr) {
		for _, x := range es {
			if x != nil {
				f(x)
			}
		}
	}
	ops := func(os []*opArg) {
		for _, o := range os {
			if o != nil && o.body != nil {
				f(o.body)
			}
		}
	}
	hops := func(w where) {
		for _, h := range w.hops {
			all(h.args)
		}
	}
	bounds := func(b *binder) {
		for _, bd := range b.bounds {
			if bd.set != nil {
				f(bd.set)
			}
		}
	}
	switch n := e.(type) {
	case *defRef:
		hops(n.at)
	case *callDef:
		hops(n.at)
		all(n.args)
		ops(n.ops)
	case *callLocal:
		all(n.args)
		ops(n.ops)
	case *callSubst:
		all(n.args)
		ops(n.ops)
	case *callBuiltin:
		all(n.args)
		ops(n.ops)
	case *selector:
		hops(n.at)
	case *junction:
		all(n.items)
	case *ifExpr:
		f(n.cond)
		f(n.then)
		f(n.els)
	case *caseExpr:
		all(n.conds)
		all(n.vals)
		if n.other != nil {
			f(n.other)
		}
	case *letExpr:
		for _, d := range n.defs {
			if d.fn != nil {
				bounds(d.fn.b)
				f(d.fn.body)
			} else {
				f(d.body)
			}
		}
		f(n.body)
	case *setEnum:
		all(n.elems)
	case *tuple:
		all(n.elems)
	case *record:
		all(n.vals)
	case *recordSet:
		all(n.sets)
	case *funcSet:
		f(n.dom)
		f(n.rng)
	case *cross:
		all(n.sets)
	case *setFilter:
		bounds(n.b)
		f(n.pred)
	case *setMap:
		bounds(n.b)
		f(n.elem)
	case *quant:
		bounds(n.b)
		f(n.body)
	case *choose:
		bounds(n.b)
		f(n.body)
	case *funcCons:
		bounds(n.b)
		f(n.body)
	case *funcApp:
		f(n.f)
		all(n.args)
	case *fieldAccess:
		f(n.rec)
	case *except:
		f(n.f)
		for _, u := range n.updates {
			for _, st := range u.path {
				all(st.index)
			}
			f(u.val)
		}
	case *actionBox:
		f(n.a)
		f(n.sub)
	case *actionAngle:
		f(n.a)
		f(n.sub)
	case *fairness:
		f(n.sub)
		f(n.a)
	}
}

// varies reports whether e may depend on the state: it reads a variable,
// primes, applies ENABLED, UNCHANGED or a temporal operator, refers to a
// named instance, or uses a definition that does.
func varies(e expr) bool {
	switch n := e.(type) {
	case *varRef, *actionBox, *actionAngle, *fairness, *selector:
		return true
	case *substRef:
		return n.s.varies
	case *defRef:
		if n.d.varies || !n.at.here() && hasNamed(n.at) {
			return true
		}
	case *callDef:
		if n.d.varies || hasNamed(n.at) {
			return true
		}
	case *callBuiltin:
		switch n.op {
		case tla.OpPrime, tla.OpUnchanged, tla.OpEnabled, tla.OpAlways, tla.OpEventually, tla.OpLeadsTo, tla.OpWhilePlus, tla.OpCdot:
			return true
		}
	}
	found := false
	children(e, func(x expr) { found = found || varies(x) })
	return found
}

func hasNamed(w where) bool {
	for _, h := range w.hops {
		if h.inst != nil {
			return true
		}
	}
	return false
}
