package eval

import (
	"sync/atomic"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// defValue evaluates a definition without arguments, reached through w.
func (c *ctx) defValue(d *defn, w where, at tla.Pos) value.Value {
	sc := c.scopeOf(d, w)
	if d.constant {
		if v := sc.cx.cached(d.cache); v != nil {
			return v
		}
		c2 := c.call(sc, nil, at)
		c2.states = &states{partial: c.partial, shared: c.shared, nextReads: c.nextReads}
		v := c2.defBody(d)
		sc.cx.setCache(d.cache, v)
		return v
	}
	return c.call(sc, nil, at).defBody(d)
}

// defBody evaluates the body of a definition without arguments in c.
func (c *ctx) defBody(d *defn) value.Value {
	if d.native != nil {
		// IOUtils' IOEnv: its body ranges over [STRING -> STRING].
		return d.native(c, d.at, nil, nil)
	}
	if d.fn != nil {
		return c.funcCons(d.fn.b, d.fn.body)
	}
	return c.eval(d.body)
}

// callDef applies a definition with parameters.
func (c *ctx) callDef(n *callDef) value.Value {
	d := n.d
	sc := c.scopeOf(d, n.at)
	if d.native != nil {
		return c.callNative(d, n.args, n.ops, pos(n))
	}
	c2 := c.call(sc, nil, pos(n))
	c2.env = c.bindArgs(n.args, n.ops, nil)
	return c2.eval(d.body)
}

// callNative applies a library operator computed natively.
func (c *ctx) callNative(d *defn, args []expr, ops []*opArg, at tla.Pos) value.Value {
	vals := make([]value.Value, len(args))
	cls := make([]*closure, len(args))
	for i := range args {
		if ops[i] != nil {
			cls[i] = c.closureOf(ops[i])
		} else {
			vals[i] = c.eval(args[i])
		}
	}
	return d.native(c, at, vals, cls)
}

// callLocal applies an operator bound in an expression.
func (c *ctx) callLocal(n *callLocal) value.Value {
	b := c.env.at(n.up, n.slot)
	if b.op == nil {
		c.fail(pos(n), "%s is not an operator", tla.Print(n.src()))
	}
	return c.applyClosure(b.op, n.args, n.ops, pos(n))
}

// callSubst applies an operator constant of an instance.
func (c *ctx) callSubst(n *callSubst) value.Value {
	return c.applyClosure(c.substOp(n.s, pos(n)), n.args, n.ops, pos(n))
}

// substValue evaluates what replaces a constant or variable of the
// instance c is in.
func (c *ctx) substValue(s *substitution, at tla.Pos) value.Value {
	if s.e == nil {
		c.fail(at, "%s is an operator: apply it to arguments", s.name)
	}
	cx := c.sc.cx
	// As TLC's lazy values of an instance's substitutions: a variable
	// replaced by an expression (a refinement mapping, which V!Next reads
	// many times) is computed once in a state, not at every reference.
	// Only in a whole state (the current one, or a next one that is not
	// being built), and where the evaluation did not read a next state
	// that may be.
	memo := (!c.primed || c.whole) && !c.partial && !c.shared && len(c.s) > 0 && s.slot < len(cx.substMemo)
	var slot *atomic.Pointer[stateValue]
	if memo {
		slot = cx.substMemo[s.slot].slot(c.s)
		if m := slot.Load(); m != nil && sameState(m.s, c.s) {
			return m.v
		}
	}
	reads := c.readsOfNext()
	v := c.call(cx.outer, cx.env, at).eval(s.e)
	if memo && c.readsOfNext() == reads {
		slot.Store(&stateValue{c.s, v})
	}
	return v
}

// substOp returns the operator that replaces an operator constant of the
// instance c is in.
func (c *ctx) substOp(s *substitution, at tla.Pos) *closure {
	cx := c.sc.cx
	if s.op == nil {
		c.fail(at, "%s is replaced by an expression, not an operator", s.name)
	}
	return c.call(cx.outer, cx.env, at).closureOf(s.op)
}

// applyClosure applies an operator to argument expressions written in c.
func (c *ctx) applyClosure(cl *closure, args []expr, ops []*opArg, at tla.Pos) value.Value {
	switch {
	case cl.op != tla.OpNone:
		vals := make([]value.Value, len(args))
		for i, a := range args {
			vals[i] = c.eval(a)
		}
		return c.applyBuiltinValues(cl.op, vals, at)
	case cl.d != nil && cl.d.native != nil:
		return c.callNative(cl.d, args, ops, at)
	case cl.fn != nil:
		return c.callClosure(cl, nil, at)
	}
	if len(args) != cl.nparams {
		c.fail(at, "%s takes %d arguments, got %d", cl.name, cl.nparams, len(args))
	}
	c2 := c.call(cl.sc, nil, at)
	c2.env = c.bindArgs(args, ops, cl.env)
	return c2.eval(cl.body)
}

// bindArgs returns a group over next binding the arguments of a call,
// written in c: operators to closures, the other arguments to what
// bindArg gives.
func (c *ctx) bindArgs(args []expr, ops []*opArg, next *env) *env {
	// An argument that is a value already (a literal, a name bound to a
	// value) needs no thunk: the group is allocated with as many as the
	// others need.
	thunks := 0
	for i, a := range args {
		if (ops == nil || ops[i] == nil) && c.argValue(a) == nil {
			thunks++
		}
	}
	var e *env
	var ths []thunk
	switch {
	case thunks == 0:
		e = next.push(len(args))
	case len(args) == 1:
		// One allocation for the group, its slot and the argument's
		// thunk.
		g := &struct {
			env
			s [1]binding
			t [1]thunk
		}{}
		g.env.slots, e, ths = g.s[:], &g.env, g.t[:]
	case len(args) == 2:
		g := &struct {
			env
			s [2]binding
			t [2]thunk
		}{}
		g.env.slots, e, ths = g.s[:], &g.env, g.t[:]
	default:
		e, ths = next.push(len(args)), make([]thunk, thunks)
	}
	e.next = next
	for i, a := range args {
		if ops != nil && ops[i] != nil {
			e.slots[i].op = c.closureOf(ops[i])
			continue
		}
		if v := c.argValue(a); v != nil {
			e.slots[i].val = v
			continue
		}
		th := &ths[0]
		ths = ths[1:]
		th.e, th.sc, th.env, th.shared = a, c.sc, c.env, c.shared
		e.slots[i].th = th
	}
	return e
}

// argValue returns the value of an argument that is one already: a
// literal, or a name bound to a value; nil for any other.
func (c *ctx) argValue(a expr) value.Value {
	switch x := a.(type) {
	case *lit:
		return x.v
	case *local:
		if b := c.env.at(x.up, x.slot); b.op == nil && b.th == nil {
			return b.val
		}
	}
	return nil
}

// closureOf returns the operator an operator argument stands for in c.
func (c *ctx) closureOf(oa *opArg) *closure {
	switch oa.kind {
	case opLambda:
		return &closure{name: oa.name, nparams: oa.nparams, body: oa.body, sc: c.sc, env: c.env, at: oa.at}
	case opDef:
		d := oa.d
		return &closure{name: oa.name, nparams: len(d.params), params: d.params, body: d.body, fn: d.fn,
			d: d, sc: c.scopeOf(d, oa.where), at: oa.at}
	case opLocal:
		if b := c.env.at(oa.up, oa.slot); b.op != nil {
			return b.op
		}
	case opBuiltin:
		return &closure{name: oa.name, nparams: oa.nparams, op: oa.op, at: oa.at}
	case opSubst:
		return c.substOp(oa.s, oa.at)
	case opFailing:
		c.fail(oa.at, "%s", oa.msg)
	}
	c.fail(oa.at, "expected an operator of %d arguments for %s", oa.nparams, oa.name)
	return nil
}

// callClosure applies an operator to evaluated arguments.
func (c *ctx) callClosure(cl *closure, args []value.Value, at tla.Pos) value.Value {
	switch {
	case cl.op != tla.OpNone:
		return c.applyBuiltinValues(cl.op, args, at)
	case cl.fn != nil:
		return c.call(cl.sc, cl.env, at).funcCons(cl.fn.b, cl.fn.body)
	}
	if len(args) != cl.nparams {
		c.fail(at, "%s takes %d arguments, got %d", cl.name, cl.nparams, len(args))
	}
	if cl.d != nil && cl.d.native != nil {
		return cl.d.native(c, at, args, make([]*closure, len(args)))
	}
	c2 := c.call(cl.sc, cl.env, at)
	if len(args) > 0 {
		c2.env = cl.env.push(len(args))
		for i, v := range args {
			c2.env.slots[i].val = v
		}
	}
	return c2.eval(cl.body)
}
