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
	labelAt   tla.Pos // where the labelling definition is (in labelCtx's file)
	label     *Action
	labelArgs labelArgs
	labelCtx  *ctx
}

// enum explores the ways e can hold, calling k after each; it returns true
// when the search was stopped.
func (c *ctx) enum(e expr, en *enumerator, k func() bool) bool {
	switch n := e.(type) {
	case *junction:
		if n.and {
			return c.enumAnd(n.items, en, k)
		}
		for _, it := range n.items {
			if c.enum(it, en, k) {
				return true
			}
		}
		return false
	case *lit:
		if b, ok := n.v.(value.Bool); ok && bool(b) {
			return k()
		}
	case *local:
		if b := c.env.at(n.up, n.slot); b.th != nil {
			// A parameter standing for an action: enumerate the argument.
			return c.argCtx(b, pos(n)).enum(b.th.e, en, k)
		}
	case *defRef:
		if n.d.fn == nil {
			sc := c.scopeOf(n.d, n.at)
			return c.call(sc, nil, pos(n)).enumLabelled(n.d.name, n.d.at, labelArgs{}, n.d.body, en, k)
		}
	case *varRef:
		if !en.primed && c.s[n.idx] == nil {
			c.fail(pos(n), "%s is used before it is assigned a value", n.name)
		}
	case *substRef:
		if n.s.e != nil {
			cx := c.sc.cx
			return c.call(cx.outer, cx.env, pos(n)).enum(n.s.e, en, k)
		}
	case *callDef:
		if n.d.fn == nil && n.d.native == nil {
			c2 := c.call(c.scopeOf(n.d, n.at), nil, pos(n))
			c2.env = c.bindArgs(n.args, n.ops, nil)
			var label labelArgs
			if !en.labelled && en.primed {
				label = labelArgs{env: c2.env, n: len(n.args)}
			}
			return c2.enumLabelled(n.d.name, n.d.at, label, n.d.body, en, k)
		}
	case *callLocal:
		if cl := c.env.at(n.up, n.slot).op; enumerable(cl) {
			return c.enumClosure(cl, n.args, n.ops, "", en, k)
		}
	case *callSubst:
		// An operator constant of an instance replaced by an operator
		// (an action, say): as the operator it stands for.
		if cl := c.substOp(n.s, pos(n)); enumerable(cl) {
			name := ""
			if cl.d != nil {
				name = n.s.name
			}
			return c.enumClosure(cl, n.args, n.ops, name, en, k)
		}
	case *callBuiltin:
		a := n.args
		switch n.op {
		case tla.OpAnd:
			return c.enumAnd(a, en, k)
		case tla.OpOr:
			return c.enum(a[0], en, k) || c.enum(a[1], en, k)
		case tla.OpEq:
			if idx, ok := c.assignable(a[0], en); ok {
				return c.assign(en, idx, c.eval(a[1]), k)
			}
		case tla.OpIn:
			if idx, ok := c.assignable(a[0], en); ok {
				s := c.enumerate(a[1])
				for _, v := range s.Elems() {
					c.poll()
					if c.assign(en, idx, v, k) {
						return true
					}
				}
				return false
			}
		case tla.OpUnchanged:
			return c.enumUnchanged(a[0], en, k)
		case tla.OpImplies:
			// As TLC: P => A assigns through A when P holds.
			if c.bool(a[0]) {
				return c.enum(a[1], en, k)
			}
			return k()
		}
	case *quant:
		if n.exists && !n.b.unbounded() {
			stop := false
			c.forBounds(n.b, func(c2 *ctx) bool {
				stop = c2.enum(n.body, en, k)
				return stop
			})
			return stop
		}
		if !n.exists && !n.b.unbounded() {
			// As TLC: \A over a finite set is the conjunction of its
			// instances, so its body may assign.
			conj := &instances{body: n.body, en: en, k: k}
			if bd := n.b.bounds[0]; len(n.b.bounds) == 1 && !bd.tuple && bd.names == 1 {
				conj.one, conj.base = true, c
				conj.elems = c.domain(bd).Elems()
				return conj.enum(0)
			}
			c.forBoundsFresh(n.b, func(c2 *ctx) bool {
				conj.ctxs = append(conj.ctxs, *c2) // forBounds reuses c2 for the next instance
				return false
			})
			return conj.enum(0)
		}
	case *ifExpr:
		if c.bool(n.cond) {
			return c.enum(n.then, en, k)
		}
		return c.enum(n.els, en, k)
	case *caseExpr:
		for i, cond := range n.conds {
			if c.bool(cond) {
				return c.enum(n.vals[i], en, k)
			}
		}
		if n.other != nil {
			return c.enum(n.other, en, k)
		}
		c.fail(pos(n), "no CASE arm is true and there is no OTHER")
	case *letExpr:
		return c.withLet(n).enum(n.body, en, k)
	case *actionBox:
		// [A]_v == A \/ UNCHANGED v
		return c.enum(n.a, en, k) || c.enumUnchanged(n.sub, en, k)
	case *actionAngle:
		return c.enum(n.a, en, func() bool {
			if c.unchanged(n.sub) {
				return false
			}
			return k()
		})
	case *selector:
		c2 := &ctx{sc: c.scopeOf(n.d, n.at), states: c.states, depth: c.depth}
		return c2.enum(n.e, en, k)
	}
	if c.bool(e) {
		return k()
	}
	return false
}

// enumerable reports whether enum can look into an operator: one with a
// TLA+ body (not a built-in operator, a function or a native).
func enumerable(cl *closure) bool {
	return cl != nil && cl.op == tla.OpNone && cl.fn == nil && (cl.d == nil || cl.d.native == nil)
}

// enumClosure enumerates an operator applied to argument expressions
// written in c; a name labels the successors as a definition does (cl is
// then a definition's).
func (c *ctx) enumClosure(cl *closure, args []expr, ops []*opArg, name string, en *enumerator, k func() bool) bool {
	if len(args) != cl.nparams {
		c.fail(pos(args[0]), "%s takes %d arguments, got %d", cl.name, cl.nparams, len(args))
	}
	c2 := c.call(cl.sc, nil, cl.at)
	c2.env = c.bindArgs(args, ops, cl.env)
	if name == "" {
		return c2.enum(cl.body, en, k)
	}
	var label labelArgs
	if !en.labelled && en.primed {
		label = labelArgs{env: c2.env, n: len(args)}
	}
	return c2.enumLabelled(name, cl.d.at, label, cl.body, en, k)
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
	elems []value.Value
	body  expr
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
	return in.base.with(in.elems[i])
}

func (c *ctx) enumAnd(items []expr, en *enumerator, k func() bool) bool {
	// Conjuncts that can only test are evaluated in a loop: no
	// continuation is built for them.
	for len(items) > 0 && onlyTests(items[0]) {
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
func onlyTests(e expr) bool {
	switch n := e.(type) {
	case *quant:
		// k() is called once for each way \E's body holds, but once for
		// all of \A's instances.
		return !n.exists && !n.b.unbounded() && onlyTests(n.body)
	case *junction, *local, *varRef, *defRef, *substRef, *lit, *ifExpr, *caseExpr, *letExpr,
		*actionBox, *actionAngle, *callDef, *callLocal, *callSubst, *selector:
		return false
	case *callBuiltin:
		switch n.op {
		case tla.OpAnd, tla.OpOr, tla.OpUnchanged, tla.OpImplies:
			return false
		case tla.OpEq, tla.OpIn:
			// Only a variable, possibly primed, can be assigned.
			switch lhs := n.args[0].(type) {
			case *local, *varRef, *substRef, *defRef:
				return false
			case *callBuiltin:
				if lhs.op == tla.OpPrime {
					return false
				}
			}
		}
	}
	return true
}

// labelArgs are the parameters of the action that names successors: the
// n slots of group env. Their values are taken when a successor is
// complete, since an argument may be primed.
type labelArgs struct {
	env *env
	n   int
}

// enumLabelled enumerates the body of a definition, naming the action
// after it unless an outer definition already did.
func (c *ctx) enumLabelled(name string, at tla.Pos, args labelArgs, body expr, en *enumerator, k func() bool) bool {
	if en.labelled || !en.primed {
		return c.enum(body, en, k)
	}
	en.labelled, en.labelName, en.labelAt, en.labelArgs, en.labelCtx = true, name, at, args, c
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
	for i := range a.Params {
		b := &en.labelArgs.env.slots[i]
		if b.th == nil {
			a.Params[i] = b.val
			continue
		}
		a.Params[i] = en.labelCtx.value(b, pos(b.th.e))
	}
	return a
}

// assignable reports whether lhs is a variable this enumeration may still
// assign: x' in an action, x in an initial predicate. Parameters and
// instance substitutions are followed to the expressions they stand for.
func (c *ctx) assignable(lhs expr, en *enumerator) (int, bool) {
	idx, primed, ok := c.varTarget(lhs, c.primed)
	if !ok || primed != en.primed || en.target[idx] != nil {
		return 0, false
	}
	return idx, true
}

// varTarget resolves e to a state variable, possibly primed (primed says
// whether e is already under a prime), following parameters and instance
// substitutions.
func (c *ctx) varTarget(e expr, primed bool) (idx int, isPrimed, ok bool) {
	switch n := e.(type) {
	case *callBuiltin:
		if n.op == tla.OpPrime && !primed {
			return c.varTarget(n.args[0], true)
		}
	case *varRef:
		return n.idx, primed, true
	case *local:
		if b := c.env.at(n.up, n.slot); b.th != nil {
			return c.argCtx(b, pos(n)).varTarget(b.th.e, primed)
		}
	case *substRef:
		if n.s.e != nil {
			cx := c.sc.cx
			c2 := &ctx{sc: cx.outer, env: cx.env, states: noStates, depth: c.depth}
			return c2.varTarget(n.s.e, primed)
		}
	}
	return 0, false, false
}

// varOf resolves e to an unprimed state variable, following parameters and
// instance substitutions.
func (c *ctx) varOf(e expr) (int, bool) {
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
func (c *ctx) enumUnchanged(e expr, en *enumerator, k func() bool) bool {
	if x, ok := e.(*tuple); ok {
		return c.enumUnchangedList(x.elems, en, k)
	}
	if idx, ok := c.varOf(e); ok {
		if !en.primed {
			c.fail(pos(e), "UNCHANGED in an initial predicate")
		}
		if en.target[idx] == nil {
			return c.assign(en, idx, c.s[idx], k)
		}
		if c.equal(en.target[idx], c.s[idx], pos(e)) {
			return k()
		}
		return false
	}
	switch x := e.(type) {
	case *local:
		if b := c.env.at(x.up, x.slot); b.th != nil {
			return c.argCtx(b, pos(x)).enumUnchanged(b.th.e, en, k)
		}
	case *defRef:
		if x.d.fn == nil && x.d.native == nil {
			return c.call(c.scopeOf(x.d, x.at), nil, pos(x)).enumUnchanged(x.d.body, en, k)
		}
	case *substRef:
		if x.s.e != nil {
			cx := c.sc.cx
			return c.call(cx.outer, cx.env, pos(x)).enumUnchanged(x.s.e, en, k)
		}
	}
	if c.unchanged(e) {
		return k()
	}
	return false
}

func (c *ctx) enumUnchangedList(es []expr, en *enumerator, k func() bool) bool {
	if len(es) == 0 {
		return k()
	}
	return c.enumUnchanged(es[0], en, func() bool { return c.enumUnchangedList(es[1:], en, k) })
}

// enabled evaluates ENABLED a in the current state: whether some next state
// satisfies a.
func (c *ctx) enabled(a expr) bool {
	if c.s == nil || c.primed {
		c.fail(pos(a), "ENABLED needs a current state")
	}
	target := make([]value.Value, len(c.s))
	en := &enumerator{target: target, primed: true, labelled: true}
	c2 := *c
	f := *c.states
	f.t = target
	c2.states = &f
	found := false
	c2.enum(a, en, func() bool {
		found = true
		return true
	})
	return found
}
