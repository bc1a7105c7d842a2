package eval

import (
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// Action names the sub-action of the next-state relation that produced a
// successor: the first definition entered below the relation itself, with
// the values of its parameters.
type Action struct {
	Name   string
	Params []value.Value
	// Text, when set, is the action as printed; a compiled model of the
	// spec, which does not hold parameters as values, provides it.
	Text string
}

// String renders the action as Name(p1, p2).
func (a *Action) String() string {
	if a == nil {
		return ""
	}
	if a.Text != "" {
		return a.Text
	}
	if len(a.Params) == 0 {
		return a.Name
	}
	s := a.Name + "("
	for i, p := range a.Params {
		if i > 0 {
			s += ", "
		}
		s += value.Format(p)
	}
	return s + ")"
}

// enumerator collects the states an action (or initial predicate) allows,
// TLC style: the first `x' = e` or `x' \in S` of a conjunction assigns x',
// later ones test it.
type enumerator struct {
	target []value.Value // the partial state being built
	primed bool          // assignments are to primed variables (actions) or not (Init)
	// labelled is set once a definition names the successors: labelName,
	// with the parameters labelArgs gives (in labelCtx), if it has some.
	// label is the action, made when a first successor is found, for a
	// definition without parameters (most definitions find none).
	labelled  bool
	labelName string
	label     *Action
	labelArgs labelArgs
	labelCtx  *ctx
}

// enum explores the ways e can hold, calling k after each; it returns true
// when the search was stopped.
func (c *ctx) enum(e tla.Expr, en *enumerator, k func() bool) bool {
	switch n := e.(type) {
	case *tla.Junction:
		if n.Op == tla.And {
			return c.enumAnd(n.Items, en, k)
		}
		for _, it := range n.Items {
			if c.enum(it, en, k) {
				return true
			}
		}
		return false
	case *tla.Bool:
		if n.Value {
			return k()
		}
		return false
	case *tla.Ident:
		if b := c.env.find(n.Name); b != nil {
			if b.op != nil && b.op.fn == nil && b.op.builtin == "" && len(b.op.params) == 0 {
				return c.call(b.op.sc, b.op.env, n.At).enum(b.op.body, en, k)
			}
			if b.th != nil {
				// A parameter standing for an action: enumerate the argument.
				return c.argCtx(b, n.At).enum(b.th.expr, en, k)
			}
			break
		}
		if ent := c.sc.lookupAt(n.Name, &n.Res); ent != nil {
			switch {
			case ent.kind == entDef && ent.def.fn == nil && len(ent.def.params) == 0:
				return c.call(ent.def.sc, nil, n.At).enumLabelled(ent.def.name, labelArgs{}, ent.def.body, en, k)
			case ent.kind == entVar && !en.primed && c.s[ent.index] == nil:
				c.fail(n.At, "%s is used before it is assigned a value", n.Name)
			case ent.kind == entSubst:
				c2 := c.call(ent.subst.sc, ent.subst.env, n.At)
				return c2.enum(ent.subst.expr, en, k)
			}
		}
	case *tla.OpApp:
		if op, ok := c.resolveOp(n); ok {
			return c.enumUser(&op, n, en, k)
		}
		a := n.Args
		switch n.Name {
		case "/\\":
			return c.enumAnd(a, en, k)
		case "\\/":
			return c.enum(a[0], en, k) || c.enum(a[1], en, k)
		case "=":
			if idx, ok := c.assignable(a[0], en); ok {
				return c.assign(en, idx, c.eval(a[1]), k)
			}
		case "\\in":
			if idx, ok := c.assignable(a[0], en); ok {
				s := c.enumerate(a[1])
				for _, v := range s.Elems() {
					if c.assign(en, idx, v, k) {
						return true
					}
				}
				return false
			}
		case "UNCHANGED":
			return c.enumUnchanged(a[0], en, k)
		case "=>":
			// As TLC: P => A assigns through A when P holds.
			if c.bool(a[0]) {
				return c.enum(a[1], en, k)
			}
			return k()
		}
	case *tla.Quant:
		if n.Kind == tla.Exists && !hasUnbounded(n.Bounds) {
			stop := false
			c.forBounds(n.Bounds, func(c2 *ctx) bool {
				stop = c2.enum(n.Body, en, k)
				return stop
			})
			return stop
		}
		if n.Kind == tla.Forall && !hasUnbounded(n.Bounds) {
			// As TLC: \A over a finite set is the conjunction of its
			// instances, so its body may assign.
			conj := &instances{body: n.Body, en: en, k: k}
			if b := n.Bounds[0]; len(n.Bounds) == 1 && !b.Tuple && len(b.Names) == 1 {
				conj.one, conj.base, conj.name = true, c, b.Names[0].Name
				conj.elems = c.domain(b.Set).Elems()
				return conj.enum(0)
			}
			c.forBoundsFresh(n.Bounds, func(c2 *ctx) bool {
				conj.ctxs = append(conj.ctxs, *c2) // forBounds reuses c2 for the next instance
				return false
			})
			return conj.enum(0)
		}
	case *tla.If:
		if c.bool(n.Cond) {
			return c.enum(n.Then, en, k)
		}
		return c.enum(n.Else, en, k)
	case *tla.Case:
		for _, arm := range n.Arms {
			if c.bool(arm.Cond) {
				return c.enum(arm.Val, en, k)
			}
		}
		if n.Other != nil {
			return c.enum(n.Other, en, k)
		}
		c.fail(n.At, "no CASE arm is true and there is no OTHER")
	case *tla.Let:
		return c.withLet(n.Defs).enum(n.Body, en, k)
	case *tla.ActionBox:
		// [A]_v == A \/ UNCHANGED v
		return c.enum(n.Action, en, k) || c.enumUnchanged(n.Sub, en, k)
	case *tla.ActionAngle:
		return c.enum(n.Action, en, func() bool {
			if c.unchanged(n.Sub) {
				return false
			}
			return k()
		})
	}
	if c.bool(e) {
		return k()
	}
	return false
}

// instances enumerates the conjunction of the instances of a \A: the
// body in each context of ctxs, or, for a \A over one name (one is set),
// the body in base with name bound to each of elems. The context of such
// an instance is made when the instances before it hold: most often one
// of the first does not.
type instances struct {
	ctxs  []ctx
	one   bool
	base  *ctx
	name  string
	elems []value.Value
	body  tla.Expr
	en    *enumerator
	k     func() bool
}

// enum enumerates the instances from the i-th on.
func (in *instances) enum(i int) bool {
	n := len(in.ctxs)
	if in.one {
		n = len(in.elems)
	}
	switch {
	case i == n:
		return in.k()
	case i == n-1:
		return in.ctx(i).enum(in.body, in.en, in.k)
	}
	return in.ctx(i).enum(in.body, in.en, func() bool { return in.enum(i + 1) })
}

// ctx returns the context of the i-th instance.
func (in *instances) ctx(i int) *ctx {
	if !in.one {
		return &in.ctxs[i]
	}
	return in.base.with(in.name, in.elems[i])
}

func (c *ctx) enumAnd(items []tla.Expr, en *enumerator, k func() bool) bool {
	// Conjuncts that can only test are evaluated in a loop: no
	// continuation is built for them.
	for len(items) > 0 && c.onlyTests(items[0]) {
		if !c.bool(items[0]) {
			return false
		}
		items = items[1:]
	}
	switch len(items) {
	case 0:
		return k()
	case 1:
		return c.enum(items[0], en, k)
	}
	return c.enum(items[0], en, func() bool { return c.enumAnd(items[1:], en, k) })
}

// onlyTests reports whether enum treats e as a test, c.enum(e, en, k)
// being "k() if e holds": no case of enum but the last applies to it.
func (c *ctx) onlyTests(e tla.Expr) bool {
	switch n := e.(type) {
	case *tla.Quant:
		// k() is called once for each way \E's body holds, but once for
		// all of \A's instances.
		return n.Kind == tla.Forall && !hasUnbounded(n.Bounds) && c.onlyTests(n.Body)
	case *tla.Junction, *tla.Ident, *tla.If, *tla.Case, *tla.Let, *tla.ActionBox, *tla.ActionAngle:
		return false
	case *tla.OpApp:
		switch n.Name {
		case "/\\", "\\/", "UNCHANGED", "=>":
			return false
		case "=", "\\in":
			// Only a variable, possibly primed, can be assigned.
			switch lhs := n.Args[0].(type) {
			case *tla.Ident:
				return false
			case *tla.OpApp:
				if lhs.Name == "'" {
					return false
				}
			}
		}
		_, user := c.resolveOp(n)
		return !user
	}
	return true
}

// labelArgs are the parameters of the action that names successors: the
// first n bindings of env, in reverse order. Their values are taken when a
// successor is complete, since an argument may be primed.
type labelArgs struct {
	env *env
	n   int
}

// enumLabelled enumerates the body of a definition, naming the action
// after it unless an outer definition already did.
func (c *ctx) enumLabelled(name string, args labelArgs, body tla.Expr, en *enumerator, k func() bool) bool {
	if en.labelled || !en.primed {
		return c.enum(body, en, k)
	}
	en.labelled, en.labelName, en.labelArgs, en.labelCtx = true, name, args, c
	stop := c.enum(body, en, k)
	en.labelled, en.labelName, en.label, en.labelArgs, en.labelCtx = false, "", nil, labelArgs{}, nil
	return stop
}

// action returns the action that produced the successor just completed,
// nil if no definition named it.
func (en *enumerator) action() *Action {
	if !en.labelled {
		return nil
	}
	if en.labelArgs.n == 0 {
		if en.label == nil {
			en.label = &Action{Name: en.labelName}
		}
		return en.label
	}
	var a *Action
	if n := en.labelArgs.n; n <= 2 {
		// An action of one or two parameters, the usual, is allocated
		// with them.
		ap := &struct {
			a Action
			p [2]value.Value
		}{a: Action{Name: en.labelName}}
		ap.a.Params = ap.p[:n:n]
		a = &ap.a
	} else {
		a = &Action{Name: en.labelName, Params: make([]value.Value, n)}
	}
	b := en.labelArgs.env
	for i := en.labelArgs.n - 1; i >= 0; i, b = i-1, b.next {
		if b.th == nil {
			a.Params[i] = b.val
			continue
		}
		a.Params[i] = en.labelCtx.value(b, b.th.expr.Pos())
	}
	return a
}

func (c *ctx) enumUser(op *operator, n *tla.OpApp, en *enumerator, k func() bool) bool {
	var params []*tla.Param
	var body tla.Expr
	var c2 *ctx
	switch {
	case op.cl != nil && op.cl.builtin == "" && op.cl.fn == nil:
		params, body = op.cl.params, op.cl.body
		c2 = c.call(op.cl.sc, op.cl.env, n.At)
	case op.def != nil && op.def.fn == nil:
		params, body = op.def.params, op.def.body
		c2 = c.call(op.def.sc, nil, n.At)
	case op.ent != nil && op.ent.kind == entSubst && len(n.Args) == 0:
		c3 := c.call(op.ent.subst.sc, op.ent.subst.env, n.At)
		return c3.enum(op.ent.subst.expr, en, k)
	default:
		if c.bool(n) {
			return k()
		}
		return false
	}
	if len(n.Args) != len(params) {
		c.fail(n.At, "%s takes %d arguments, got %d", n.Name, len(params), len(n.Args))
	}
	c.bindParams(c2, params, n.Args)
	if op.cl != nil {
		return c2.enum(body, en, k)
	}
	var label labelArgs
	if !en.labelled && en.primed && len(params) > 0 {
		label = labelArgs{env: c2.env, n: len(params)}
	}
	return c2.enumLabelled(n.Name, label, body, en, k)
}

// assignable reports whether lhs is a variable this enumeration may still
// assign: x' in an action, x in an initial predicate. Parameters and
// instance substitutions are followed to the expressions they stand for.
func (c *ctx) assignable(lhs tla.Expr, en *enumerator) (int, bool) {
	idx, primed, ok := c.varTarget(lhs, c.primed)
	if !ok || primed != en.primed || en.target[idx] != nil {
		return 0, false
	}
	return idx, true
}

// varTarget resolves e to a state variable, possibly primed (primed says
// whether e is already under a prime), following parameters and instance
// substitutions.
func (c *ctx) varTarget(e tla.Expr, primed bool) (idx int, isPrimed, ok bool) {
	switch n := e.(type) {
	case *tla.OpApp:
		if n.Name == "'" && len(n.Prefix) == 0 && len(n.Args) == 1 && !primed {
			return c.varTarget(n.Args[0], true)
		}
	case *tla.Ident:
		if b := c.env.find(n.Name); b != nil {
			if b.th != nil {
				return c.argCtx(b, n.At).varTarget(b.th.expr, primed)
			}
			return 0, false, false
		}
		ent := c.sc.lookupAt(n.Name, &n.Res)
		if ent == nil {
			return 0, false, false
		}
		switch ent.kind {
		case entVar:
			return ent.index, primed, true
		case entSubst:
			c2 := &ctx{sc: ent.subst.sc, env: ent.subst.env, frame: noStates, depth: c.depth}
			return c2.varTarget(ent.subst.expr, primed)
		}
	}
	return 0, false, false
}

// varOf resolves e to an unprimed state variable, following parameters and
// instance substitutions.
func (c *ctx) varOf(e tla.Expr) (int, bool) {
	idx, primed, ok := c.varTarget(e, false)
	return idx, ok && !primed
}

func (c *ctx) assign(en *enumerator, idx int, v value.Value, k func() bool) bool {
	en.target[idx] = v
	stop := k()
	en.target[idx] = nil
	return stop
}

// enumUnchanged handles UNCHANGED e: assigns every unassigned variable in e
// its current value and tests the rest.
func (c *ctx) enumUnchanged(e tla.Expr, en *enumerator, k func() bool) bool {
	switch x := e.(type) {
	case *tla.Tuple:
		return c.enumUnchangedList(x.Elems, en, k)
	case *tla.Ident:
		if idx, ok := c.varOf(x); ok {
			if !en.primed {
				c.fail(x.At, "UNCHANGED in an initial predicate")
			}
			if en.target[idx] == nil {
				return c.assign(en, idx, c.s[idx], k)
			}
			if c.equal(en.target[idx], c.s[idx], x.At) {
				return k()
			}
			return false
		}
		if b := c.env.find(x.Name); b != nil && b.th != nil {
			return c.argCtx(b, x.At).enumUnchanged(b.th.expr, en, k)
		} else if b == nil {
			switch ent := c.sc.lookupAt(x.Name, &x.Res); {
			case ent == nil:
			case ent.kind == entDef && len(ent.def.params) == 0 && ent.def.fn == nil && ent.def.native == nil:
				return c.call(ent.def.sc, nil, x.At).enumUnchanged(ent.def.body, en, k)
			case ent.kind == entSubst:
				c2 := c.call(ent.subst.sc, ent.subst.env, x.At)
				return c2.enumUnchanged(ent.subst.expr, en, k)
			}
		}
	}
	if c.unchanged(e) {
		return k()
	}
	return false
}

func (c *ctx) enumUnchangedList(es []tla.Expr, en *enumerator, k func() bool) bool {
	if len(es) == 0 {
		return k()
	}
	return c.enumUnchanged(es[0], en, func() bool { return c.enumUnchangedList(es[1:], en, k) })
}

// enabled evaluates ENABLED a in the current state: whether some next state
// satisfies a.
func (c *ctx) enabled(a tla.Expr) bool {
	if c.s == nil || c.primed {
		c.fail(a.Pos(), "ENABLED needs a current state")
	}
	target := make([]value.Value, len(c.s))
	en := &enumerator{target: target, primed: true, labelled: true}
	c2 := *c
	f := *c.frame
	f.t = target
	c2.frame = &f
	found := false
	c2.enum(a, en, func() bool {
		found = true
		return true
	})
	return found
}
