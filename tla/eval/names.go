package eval

import (
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// ident evaluates a bare name.
func (c *ctx) ident(n *tla.Ident) value.Value {
	if b := c.env.find(n.Name); b != nil {
		if b.op == nil {
			return c.value(b, n.At)
		}
		return c.callClosure(b.op, nil, n.At)
	}
	if e := c.sc.lookupAt(n.Name, &n.Res); e != nil {
		return c.entityValue(e, n.At)
	}
	if v, ok := builtinConstant(n.Name); ok {
		return v
	}
	c.fail(n.At, "unknown name %s", n.Name)
	return nil
}

func (c *ctx) entityValue(e *entity, at tla.Pos) value.Value {
	switch e.kind {
	case entVar:
		if c.s == nil {
			c.fail(at, "variable %s has no value in a constant expression", e.name)
		}
		v := c.s[e.index]
		if v == nil {
			if c.primed {
				c.fail(at, "%s' is used before it is assigned a value", e.name)
			}
			c.fail(at, "%s is used before it is assigned a value", e.name)
		}
		return v
	case entConst:
		return e.val
	case entDef:
		return c.callDef(e.def, nil, at)
	case entSubst:
		c2 := c.call(e.subst.sc, e.subst.env, at)
		return c2.eval(e.subst.expr)
	case entUnbound:
		c.fail(at, "constant %s has no value: the model (.cfg) must assign it", e.name)
	case entInstance:
		c.fail(at, "%s is a module instance; write %s!Name", e.name, e.name)
	}
	c.fail(at, "cannot evaluate %s", e.name)
	return nil
}

// callDef applies a definition of a scope to already evaluated arguments.
func (c *ctx) callDef(d *def, args []value.Value, at tla.Pos) value.Value {
	if d.fn != nil {
		if len(args) > 0 {
			c.fail(at, "%s is a function: write %s[...]", d.name, d.name)
		}
		return c.call(d.sc, nil, at).funcCons(d.fn.Bounds, d.fn.Body)
	}
	if len(args) != len(d.params) {
		c.fail(at, "%s takes %d arguments, got %d", d.name, len(d.params), len(args))
	}
	if len(d.params) == 0 {
		if v := d.cachedValue(); v != nil {
			return v
		}
		if d.isConstant() {
			c2 := c.call(d.sc, nil, at)
			c2.frame = &frame{partial: c.partial, shared: c.shared, nextReads: c.nextReads}
			v := c2.eval(d.body)
			d.setCache(v)
			return v
		}
		return c.call(d.sc, nil, at).eval(d.body)
	}
	c2 := c.call(d.sc, nil, at)
	for i, p := range d.params {
		c2.env = c2.env.bind(p.Name, args[i])
	}
	return c2.eval(d.body)
}

func (c *ctx) callClosure(cl *closure, args []value.Value, at tla.Pos) value.Value {
	if cl.builtin != "" {
		return c.applyBuiltinValues(cl.builtin, args, at)
	}
	if cl.fn != nil {
		return c.call(cl.sc, cl.env, at).funcCons(cl.fn.Bounds, cl.fn.Body)
	}
	if len(args) != len(cl.params) {
		c.fail(at, "%s takes %d arguments, got %d", cl.name, len(cl.params), len(args))
	}
	c2 := c.call(cl.sc, cl.env, at)
	for i, p := range cl.params {
		c2.env = c2.env.bind(p.Name, args[i])
	}
	return c2.eval(cl.body)
}

// operator is what an OpApp's name resolves to when it is not built in.
type operator struct {
	def  *def
	cl   *closure
	ent  *entity // a substituted or bound constant used as an operator
	sc   *scope  // for def: unused; kept for module-qualified lookups
	name string
}

// resolveOp finds the user operator n names, following an instance path.
// It returns false for a built-in operator. (Operators are returned by
// value: resolving one is frequent and must not allocate.)
func (c *ctx) resolveOp(n *tla.OpApp) (operator, bool) {
	if len(n.Prefix) == 0 && isSymbol(n.Name) && c.sc.spec != nil && !c.sc.spec.symbols[n.Name] {
		return operator{}, false
	}
	if len(n.Prefix) > 0 {
		if op, ok := c.subexpression(n); ok {
			return op, true
		}
		sc := c.instanceScope(n.Prefix)
		e := sc.lookup(n.Name)
		if e == nil {
			c.fail(n.At, "module %s has no definition %s", sc.module, n.Name)
		}
		return (&ctx{sc: sc, frame: noStates, depth: c.depth}).entityOp(e, n.Name), true
	}
	if b := c.env.find(n.Name); b != nil {
		if b.op != nil {
			return operator{cl: b.op, name: n.Name}, true
		}
		return operator{}, false
	}
	if e := c.sc.lookupAt(n.Name, &n.Res); e != nil {
		return c.entityOp(e, n.Name), true
	}
	return operator{}, false
}

// entityOp returns the operator an entity of c's scope stands for. A
// constant of an instantiated module declared as an operator (CONSTANT
// F(_)) and substituted, explicitly or by name, stands for the operator it
// is replaced by.
func (c *ctx) entityOp(e *entity, name string) operator {
	if e.kind == entSubst {
		c2 := &ctx{sc: e.subst.sc, env: e.subst.env, frame: noStates, depth: c.depth}
		switch x := e.subst.expr.(type) {
		case *tla.Ident:
			if b := c2.env.find(x.Name); b != nil && b.op != nil {
				return operator{cl: b.op, name: name}
			}
			if e2 := c2.sc.lookup(x.Name); e2 != nil && e2.kind != entVar && e2.kind != entConst {
				op := c2.entityOp(e2, name)
				if op.def != nil || op.cl != nil {
					return op
				}
			}
		case *tla.Lambda:
			return operator{cl: &closure{name: "LAMBDA", params: x.Params, body: x.Body, sc: c2.sc, env: c2.env, at: x.At}, name: name}
		case *tla.OpApp:
			if len(x.Args) == 0 && len(x.Prefix) > 0 {
				if op, ok := c2.resolveOp(x); ok && (op.def != nil || op.cl != nil) {
					return op
				}
			}
		}
	}
	return operator{def: e.def, ent: e, sc: c.sc, name: name}
}

// subexpression resolves a subexpression name such as Inv!2 (the second
// conjunct of Inv) or Thm!: (the statement of theorem Thm) to an operator
// without parameters; it returns false when n's prefix is an instance path.
func (c *ctx) subexpression(n *tla.OpApp) (operator, bool) {
	first := n.Prefix[0]
	e := c.sc.lookup(first.Name)
	if e == nil || e.kind != entDef || e.def.fn != nil || len(first.Args) > 0 {
		return operator{}, false
	}
	expr := e.def.body
	steps := make([]string, 0, len(n.Prefix))
	for _, r := range n.Prefix[1:] {
		steps = append(steps, r.Name)
	}
	steps = append(steps, n.Name)
	for _, st := range steps {
		expr = c.selectStep(expr, st, n)
	}
	return operator{cl: &closure{name: tla.Print(n), body: expr, sc: e.def.sc, at: n.At}, name: n.Name}, true
}

// selectStep applies one step of a subexpression name: ":" is the
// expression itself, a number k the k-th operand (the k-th item of a
// conjunction or disjunction list).
func (c *ctx) selectStep(e tla.Expr, step string, n *tla.OpApp) tla.Expr {
	if step == ":" {
		return e
	}
	k := 0
	for _, r := range step {
		if r < '0' || r > '9' {
			c.fail(n.At, "subexpression name %s: %s is not a position (only !1, !2, ... and !: are supported)", tla.Print(n), step)
		}
		k = k*10 + int(r-'0')
	}
	var items []tla.Expr
	switch x := e.(type) {
	case *tla.Junction:
		items = x.Items
	case *tla.OpApp:
		items = x.Args
	case *tla.If:
		items = []tla.Expr{x.Cond, x.Then, x.Else}
	}
	if k < 1 || k > len(items) {
		c.fail(n.At, "subexpression name %s: %s has no operand %d", tla.Print(n), tla.Print(e), k)
	}
	return items[k-1]
}

// instanceScope resolves the instance path M(a)!N!... to a scope.
func (c *ctx) instanceScope(path []*tla.InstanceRef) *scope {
	sc := c.sc
	for _, ref := range path {
		e := sc.lookup(ref.Name)
		if e == nil || e.kind != entInstance {
			c.fail(ref.At, "%s is not a module instance", ref.Name)
		}
		args := make([]value.Value, len(ref.Args))
		for i, a := range ref.Args {
			args[i] = c.eval(a)
		}
		sc = e.inst.scopeOf(c, args, ref.At)
	}
	return sc
}

// userApp evaluates an application of a user-defined operator.
func (c *ctx) userApp(op *operator, n *tla.OpApp) value.Value {
	var params []*tla.Param
	switch {
	case op.cl != nil:
		params = op.cl.params
	case op.def != nil:
		params = op.def.params
	case op.ent != nil && len(n.Args) == 0:
		return c.entityValue(op.ent, n.At)
	default:
		c.fail(n.At, "%s is not an operator", n.Name)
	}
	if len(n.Args) != len(params) && !(op.cl != nil && op.cl.builtin != "") {
		c.fail(n.At, "%s takes %d arguments, got %d", n.Name, len(params), len(n.Args))
	}
	var body tla.Expr
	var c2 *ctx
	switch {
	case op.def != nil && op.def.native != nil:
		args := make([]value.Value, len(n.Args))
		ops := make([]*closure, len(n.Args))
		for i, a := range n.Args {
			if params[i].Arity > 0 {
				ops[i] = c.opArg(a, params[i])
			} else {
				args[i] = c.eval(a)
			}
		}
		return op.def.native(c, n.At, args, ops)
	case op.cl != nil && op.cl.builtin != "":
		args := make([]value.Value, len(n.Args))
		for i, a := range n.Args {
			args[i] = c.eval(a)
		}
		return c.callClosure(op.cl, args, n.At)
	case op.cl != nil && op.cl.fn != nil:
		return c.callClosure(op.cl, nil, n.At)
	case op.cl != nil:
		body = op.cl.body
		c2 = c.call(op.cl.sc, op.cl.env, n.At)
	case op.def.fn != nil:
		return c.callDef(op.def, nil, n.At)
	default:
		if len(params) == 0 {
			return c.callDef(op.def, nil, n.At)
		}
		body = op.def.body
		c2 = c.call(op.def.sc, nil, n.At)
	}
	c.bindParams(c2, params, n.Args)
	return c2.eval(body)
}

// bindParams binds the parameters of a call in c2 to the arguments, written
// in c: operator parameters to closures, the others to the argument
// expressions, by name.
func (c *ctx) bindParams(c2 *ctx, params []*tla.Param, args []tla.Expr) {
	for i, p := range params {
		if p.Arity > 0 {
			c2.env = c2.env.bindOp(p.Name, c.opArg(args[i], p))
			continue
		}
		c2.env = c2.env.bindArg(p.Name, args[i], c)
	}
}

// opArg turns an argument passed for an operator parameter into a closure:
// a LAMBDA, the name of an operator, or a built-in operator symbol.
func (c *ctx) opArg(a tla.Expr, p *tla.Param) *closure {
	switch x := a.(type) {
	case *tla.Lambda:
		return &closure{name: "LAMBDA", params: x.Params, body: x.Body, sc: c.sc, env: c.env, at: x.At}
	case *tla.Ident:
		if b := c.env.find(x.Name); b != nil && b.op != nil {
			return b.op
		} else if b != nil && b.th != nil {
			// A parameter passed on: its argument is the operator.
			return c.argCtx(b, x.At).opArg(b.th.expr, p)
		}
		if e := c.sc.lookup(x.Name); e != nil {
			switch op := c.entityOp(e, x.Name); {
			case op.cl != nil:
				return op.cl
			case op.def != nil:
				return &closure{name: x.Name, params: op.def.params, body: op.def.body, fn: op.def.fn, sc: op.def.sc, at: x.At}
			}
		}
		if isBuiltinOp(x.Name) {
			return &closure{name: x.Name, builtin: x.Name, at: x.At}
		}
	case *tla.OpApp:
		if len(x.Args) == 0 && len(x.Prefix) > 0 {
			sc := c.instanceScope(x.Prefix)
			if e := sc.lookup(x.Name); e != nil && e.kind == entDef {
				return &closure{name: x.Name, params: e.def.params, body: e.def.body, fn: e.def.fn, sc: e.def.sc, at: x.At}
			}
		}
		if len(x.Args) == 0 && isBuiltinOp(x.Name) {
			return &closure{name: x.Name, builtin: x.Name, at: x.At}
		}
	}
	c.fail(a.Pos(), "expected an operator of %d arguments for parameter %s", p.Arity, p.Name)
	return nil
}
