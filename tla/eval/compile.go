package eval

import (
	"math"
	"math/big"
	"slices"
	"strconv"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// compiler compiles the expressions of one unit (a module's text) of a
// template.
type compiler struct {
	t    *template
	unit int
	// depth counts the binding groups opened since the start of the
	// definition being compiled: a local name refers to group depth-1-up.
	depth int
	// uses, when set, resolves the names of an expression the resolver
	// saw after the specification (ParseFormula): its contexts exist, so
	// the expression gets no cache slots.
	uses *tla.Info
}

// props are what compiling finds out about an expression.
type props struct {
	// varies: the value may depend on the state (a variable, a prime,
	// ENABLED, an instance, ...), directly or through definitions.
	varies bool
	// effects: it applies an operator each evaluation of which counts
	// (Print), directly.
	effects bool
	// outer is the outermost binding group it refers to (noGroup if
	// none).
	outer int
}

const noGroup = math.MaxInt

func (p props) join(q props) props {
	return props{varies: p.varies || q.varies, effects: p.effects || q.effects, outer: min(p.outer, q.outer)}
}

var constProps = props{outer: noGroup}

// closed reports whether an expression compiled at the compiler's depth,
// with props p, can be evaluated once for all in its context: it depends
// on no state and on no name bound outside it.
func (c *compiler) closed(p props) bool { return !p.varies && p.outer >= c.depth }

// cacheSlot returns a cache slot for an expression with props p if it is
// constant and has no effects, -1 otherwise.
func (c *compiler) cacheSlot(p props) int {
	if !c.closed(p) || p.effects || c.uses != nil {
		return -1
	}
	return c.t.newSlot()
}

func (t *template) newSlot() int {
	t.ncache++
	return t.ncache - 1
}

func (c *compiler) info() *tla.Info {
	if c.uses != nil {
		return c.uses
	}
	return c.t.spec.info
}

func (c *compiler) module() *tla.Module { return c.t.units[c.unit] }

// compileDef compiles a definition (once; a definition met while it is
// being compiled counts as constant, which its other uses then decide).
func compileDef(d *defn) {
	if d.state != 0 {
		return
	}
	d.state = 1
	c := &compiler{t: d.t, unit: d.unit}
	switch fd := d.sym.Decl.(type) {
	case *tla.FuncDef:
		var p props
		d.fn, p = c.funcDef(fd)
		d.varies = p.varies
		d.constant = !p.varies
	default:
		if len(d.params) > 0 {
			c.depth = 1
		}
		var p props
		d.body, p = c.expr(d.syntax)
		d.varies = p.varies
		d.constant = len(d.params) == 0 && !p.varies && d.native == nil
	}
	if d.constant {
		d.cache = d.t.newSlot()
	}
	d.state = 2
}

// funcDef compiles f[x \in S] == e, opening the group of its bounds.
func (c *compiler) funcDef(fd *tla.FuncDef) (*funcDef, props) {
	b, p := c.binder(fd, fd.Bounds)
	c.depth++
	body, bp := c.expr(fd.Body)
	c.depth--
	return &funcDef{name: fd.Name, at: fd.At, b: b, body: body}, p.join(bp)
}

// binder compiles the sets of bounds (outside the group they open).
func (c *compiler) binder(n tla.Node, bs []*tla.Bound) (*binder, props) {
	b := &binder{slots: c.info().Group(n)}
	p := constProps
	slot := 0
	for _, x := range bs {
		bd := &bound{at: x.At, first: slot, names: len(x.Names), tuple: x.Tuple, dom: -1}
		slot += len(x.Names)
		if x.Set != nil {
			var sp props
			bd.set, sp = c.expr(x.Set)
			if c.closed(sp) && c.uses == nil {
				bd.dom = c.t.newSlot()
			}
			p = p.join(sp)
		}
		b.bounds = append(b.bounds, bd)
	}
	return b, p
}

// inGroup compiles f's expressions one binding group deeper, and removes
// the group from their props.
func (c *compiler) inGroup(f func() props) props {
	c.depth++
	p := f()
	c.depth--
	if p.outer == c.depth {
		p.outer = noGroup
	}
	return p
}

// expr compiles e.
func (c *compiler) expr(e tla.Expr) (expr, props) {
	switch n := e.(type) {
	case *tla.Bool:
		return &lit{node{e}, value.Bool(n.Value)}, constProps
	case *tla.Num:
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			if _, ok := new(big.Int).SetString(n.Value, 10); ok {
				return &failing{node{e}, "integer " + n.Value + " does not fit in 64 bits"}, constProps
			}
			return &failing{node{e}, "unsupported number " + n.Value + " (only integers are supported)"}, constProps
		}
		return &lit{node{e}, value.Int(i)}, constProps
	case *tla.Str:
		return &lit{node{e}, value.String(n.Value)}, constProps
	case *tla.AtSign:
		u, ok := c.info().Use(n)
		if !ok {
			return &failing{node{e}, "@ used outside an EXCEPT update"}, constProps
		}
		return &local{node{e}, u.Up, 0}, props{outer: c.depth - 1 - u.Up}
	case *tla.Ident:
		u, ok := c.info().Use(n)
		if !ok {
			return &failing{node{e}, "unknown name " + n.Name}, constProps
		}
		return c.use(e, u, nil)
	case *tla.OpApp:
		return c.opApp(n)
	case *tla.Junction:
		items, p := c.exprs(n.Items)
		return &junction{node{e}, n.Op == tla.And, items}, p
	case *tla.If:
		cond, p1 := c.expr(n.Cond)
		then, p2 := c.expr(n.Then)
		els, p3 := c.expr(n.Else)
		return &ifExpr{node{e}, cond, then, els}, p1.join(p2).join(p3)
	case *tla.Case:
		x := &caseExpr{node: node{e}}
		p := constProps
		for _, a := range n.Arms {
			cond, p1 := c.expr(a.Cond)
			val, p2 := c.expr(a.Val)
			x.conds, x.vals = append(x.conds, cond), append(x.vals, val)
			p = p.join(p1).join(p2)
		}
		if n.Other != nil {
			var po props
			x.other, po = c.expr(n.Other)
			p = p.join(po)
		}
		return x, p
	case *tla.Let:
		return c.let(n)
	case *tla.SetEnum:
		elems, p := c.exprs(n.Elems)
		return &setEnum{node{e}, elems, c.cacheSlot(p)}, p
	case *tla.Tuple:
		elems, p := c.exprs(n.Elems)
		return &tuple{node{e}, elems, c.cacheSlot(p)}, p
	case *tla.RecordCons:
		names := make([]string, len(n.Fields))
		vals := make([]tla.Expr, len(n.Fields))
		for i, f := range n.Fields {
			names[i], vals[i] = f.Name, f.Val
		}
		cv, p := c.exprs(vals)
		return &record{node{e}, value.NewRecordShape(names), cv, c.cacheSlot(p)}, p
	case *tla.RecordSet:
		fields := slices.Clone(n.Fields)
		slices.SortStableFunc(fields, func(a, b *tla.Field) int {
			switch {
			case a.Name < b.Name:
				return -1
			case a.Name > b.Name:
				return 1
			}
			return 0
		})
		x := &recordSet{node: node{e}}
		p := constProps
		for _, f := range fields {
			s, fp := c.expr(f.Val)
			x.names, x.sets = append(x.names, f.Name), append(x.sets, s)
			p = p.join(fp)
		}
		x.cache = c.cacheSlot(p)
		return x, p
	case *tla.FuncSet:
		dom, p1 := c.expr(n.Dom)
		rng, p2 := c.expr(n.Rng)
		p := p1.join(p2)
		return &funcSet{node{e}, dom, rng, c.cacheSlot(p)}, p
	case *tla.Cross:
		sets, p := c.exprs(n.Sets)
		return &cross{node{e}, sets, c.cacheSlot(p)}, p
	case *tla.SetFilter:
		b, p := c.binder(n, []*tla.Bound{n.Bound})
		var pred expr
		p = p.join(c.inGroup(func() (q props) { pred, q = c.expr(n.Pred); return q }))
		return &setFilter{node{e}, b, pred}, p
	case *tla.SetMap:
		b, p := c.binder(n, n.Bounds)
		var elem expr
		p = p.join(c.inGroup(func() (q props) { elem, q = c.expr(n.Elem); return q }))
		return &setMap{node{e}, b, elem}, p
	case *tla.Quant:
		b, p := c.binder(n, n.Bounds)
		var body expr
		p = p.join(c.inGroup(func() (q props) { body, q = c.expr(n.Body); return q }))
		return &quant{node{e}, n.Kind == tla.Exists, b, body}, p
	case *tla.Choose:
		b, p := c.binder(n, []*tla.Bound{n.Bound})
		var body expr
		p = p.join(c.inGroup(func() (q props) { body, q = c.expr(n.Body); return q }))
		return &choose{node{e}, b, body}, p
	case *tla.FuncCons:
		b, p := c.binder(n, n.Bounds)
		var body expr
		p = p.join(c.inGroup(func() (q props) { body, q = c.expr(n.Body); return q }))
		return &funcCons{node{e}, b, body}, p
	case *tla.FuncApp:
		f, p := c.expr(n.Func)
		as, pa := c.exprs(n.Args)
		return &funcApp{node{e}, f, as}, p.join(pa)
	case *tla.FieldAccess:
		r, p := c.expr(n.Rec)
		return &fieldAccess{node{e}, r, n.Field}, p
	case *tla.Except:
		return c.except(n)
	case *tla.ActionBox:
		a, p1 := c.expr(n.Action)
		sub, p2 := c.expr(n.Sub)
		p := p1.join(p2)
		p.varies = true
		return &actionBox{node{e}, a, sub}, p
	case *tla.ActionAngle:
		a, p1 := c.expr(n.Action)
		sub, p2 := c.expr(n.Sub)
		p := p1.join(p2)
		p.varies = true
		return &actionAngle{node{e}, a, sub}, p
	case *tla.Fairness:
		sub, p1 := c.expr(n.Sub)
		a, p2 := c.expr(n.Action)
		p := p1.join(p2)
		p.varies = true
		return &fairness{node{e}, n.Strong, sub, a}, p
	case *tla.Lambda:
		return &failing{node{e}, "LAMBDA can only be an argument of an operator"}, constProps
	}
	return &failing{node{e}, "cannot evaluate " + tla.Print(e)}, constProps
}

func (c *compiler) exprs(es []tla.Expr) ([]expr, props) {
	out := make([]expr, len(es))
	p := constProps
	for i, e := range es {
		var q props
		out[i], q = c.expr(e)
		p = p.join(q)
	}
	return out, p
}

// let compiles LET definitions, bound in a group of their own.
func (c *compiler) let(n *tla.Let) (expr, props) {
	if c.info().Group(n) == 0 {
		return c.expr(n.Body)
	}
	x := &letExpr{node: node{n}}
	p := c.inGroup(func() props {
		p := constProps
		for _, u := range n.Defs {
			switch d := u.(type) {
			case *tla.OpDef:
				ld := &letDef{name: d.Name, at: d.At, nparams: len(d.Params), params: d.Params}
				if len(d.Params) > 0 {
					p = p.join(c.inGroup(func() (q props) { ld.body, q = c.expr(d.Body); return q }))
				} else {
					var q props
					ld.body, q = c.expr(d.Body)
					p = p.join(q)
				}
				x.defs = append(x.defs, ld)
			case *tla.FuncDef:
				fd, q := c.funcDef(d)
				p = p.join(q)
				x.defs = append(x.defs, &letDef{name: d.Name, at: d.At, fn: fd})
			}
		}
		body, q := c.expr(n.Body)
		x.body = body
		return p.join(q)
	})
	return x, p
}

// except compiles [f EXCEPT ![a] = v, ...].
func (c *compiler) except(n *tla.Except) (expr, props) {
	f, p := c.expr(n.Func)
	x := &except{node: node{n}, f: f}
	for _, u := range n.Updates {
		cu := &exceptUpdate{bindsAt: c.info().BindsAt(u)}
		for _, st := range u.Path {
			cs := &exceptStep{at: st.At, field: st.Field}
			if st.Index != nil {
				var q props
				cs.index, q = c.exprs(st.Index)
				p = p.join(q)
			}
			cu.path = append(cu.path, cs)
		}
		if cu.bindsAt {
			p = p.join(c.inGroup(func() (q props) { cu.val, q = c.expr(u.Val); return q }))
		} else {
			var q props
			cu.val, q = c.expr(u.Val)
			p = p.join(q)
		}
		x.updates = append(x.updates, cu)
	}
	return x, p
}

// opApp compiles an operator application.
func (c *compiler) opApp(n *tla.OpApp) (expr, props) {
	u, ok := c.info().Use(n)
	switch {
	case !ok:
		return &failing{node{n}, "unknown operator " + n.Name}, constProps
	case u.Selector:
		return c.selector(n, u)
	case len(u.Path) > 0:
		return c.qualified(n, u)
	}
	return c.use(n, u, n.Args)
}

// use compiles a name (applied to args) that resolved to u.
func (c *compiler) use(x tla.Expr, u tla.Use, args []tla.Expr) (expr, props) {
	s := u.Symbol
	if s.Local {
		outer := props{outer: c.depth - 1 - u.Up}
		if len(args) == 0 && s.Arity() == 0 {
			return &local{node{x}, u.Up, s.Slot}, outer
		}
		as, ops, p := c.args(s.Params, args)
		return &callLocal{node{x}, u.Up, s.Slot, as, ops}, p.join(outer)
	}
	if b := c.t.spec.scoped[c.module().Name][s.Name]; b != nil {
		return c.bound(x, b, args)
	}
	switch s.Kind {
	case tla.SymBuiltin:
		if b := c.t.spec.builtins[s.Builtin.Op]; b != nil {
			return c.bound(x, b, args)
		}
		return c.builtin(x, s.Builtin, args)
	case tla.SymVariable:
		if c.t.inst == nil {
			return &varRef{node{x}, c.t.spec.VarIndex(s.Name), s.Name}, props{varies: true, outer: noGroup}
		}
		sub := c.t.substitution(s)
		return &substRef{node{x}, sub}, props{varies: sub.varies, outer: noGroup}
	case tla.SymConstant:
		if c.t.inst == nil {
			if b := c.t.spec.bound[s]; b != nil {
				return c.bound(x, b, args)
			}
			as, p := c.exprs(args)
			_ = as
			return &failing{node{x}, "constant " + s.Name + " has no value: the model (.cfg) must assign it"}, p
		}
		sub := c.t.substitution(s)
		if len(args) > 0 {
			as, ops, p := c.args(s.Params, args)
			p.varies = p.varies || sub.varies
			return &callSubst{node{x}, sub, as, ops}, p
		}
		return &substRef{node{x}, sub}, props{varies: sub.varies, outer: noGroup}
	case tla.SymDefinition:
		if c.t.inst == nil {
			if b := c.t.spec.bound[s]; b != nil {
				return c.bound(x, b, args)
			}
		}
		d, w := c.t.locate(s)
		if d == nil {
			return &failing{node{x}, "cannot evaluate " + s.Name + " here"}, constProps
		}
		return c.call(x, d, w, args, constProps)
	}
	return &failing{node{x}, s.Name + " is a module instance; write " + s.Name + "!Name"}, constProps
}

// args compiles the arguments of an application: ordinary ones as
// expressions, those of operator parameters (arity > 0) as operators.
func (c *compiler) args(arities []int, args []tla.Expr) ([]expr, []*opArg, props) {
	out := make([]expr, len(args))
	ops := make([]*opArg, len(args))
	p := constProps
	for i, a := range args {
		if i < len(arities) && arities[i] > 0 {
			ops[i] = c.opArg(a, arities[i])
			continue
		}
		var q props
		out[i], q = c.expr(a)
		p = p.join(q)
	}
	return out, ops, p
}

// call compiles an application of definition d, reached through w; p
// are the props of what w evaluates.
func (c *compiler) call(x tla.Expr, d *defn, w where, args []tla.Expr, p props) (expr, props) {
	if b := c.t.spec.scopedDefs[d.sym]; b != nil {
		return c.bound(x, b, args)
	}
	compileDef(d)
	p.varies = p.varies || d.varies
	if len(args) == 0 && len(d.params) == 0 {
		return &defRef{node{x}, d, w}, p
	}
	arities := make([]int, len(d.params))
	for i, prm := range d.params {
		arities[i] = prm.Arity
	}
	as, ops, q := c.args(arities, args)
	return &callDef{node: node{x}, d: d, at: w, args: as, ops: ops}, p.join(q)
}

// bound compiles a use of a name the model binds: to a value, or to a
// definition of the root module.
func (c *compiler) bound(x tla.Expr, b *Binding, args []tla.Expr) (expr, props) {
	if b.Subst == "" {
		if len(args) > 0 {
			return &failing{node{x}, b.Name + " is bound to a value by the model, and applied to arguments here"}, constProps
		}
		return &lit{node{x}, b.Value}, constProps
	}
	s := c.t.spec.info.Lookup(c.t.spec.Module, b.Subst)
	d, w := c.t.spec.rootT.locate(s)
	if d == nil {
		return &failing{node{x}, "cannot evaluate " + b.Subst}, constProps
	}
	w.root = c.t != c.t.spec.rootT
	if len(args) != len(d.params) {
		return &failing{node{x}, b.Name + " is replaced by " + b.Subst + ", which takes " + strconv.Itoa(len(d.params)) + " arguments, not " + strconv.Itoa(len(args))}, constProps
	}
	return c.call(x, d, w, args, constProps)
}

// builtin compiles a built-in operator (applied to args).
func (c *compiler) builtin(x tla.Expr, b *tla.Builtin, args []tla.Expr) (expr, props) {
	if len(args) == 0 {
		if v, ok := builtinConstant(b.Op); ok {
			return &lit{node{x}, v}, constProps
		}
	}
	as, ops, p := c.args(b.Params, args)
	call := &callBuiltin{node: node{x}, op: b.Op, args: as, ops: ops, cache: -1}
	switch b.Op {
	case tla.OpPrime, tla.OpUnchanged, tla.OpEnabled, tla.OpAlways, tla.OpEventually, tla.OpLeadsTo, tla.OpWhilePlus, tla.OpCdot:
		p.varies = true
	case tla.OpCup, tla.OpCap, tla.OpSetMinus, tla.OpPowerset, tla.OpUnion, tla.OpRange:
		// Sets such as Ballot \cup {-1} in a type invariant.
		call.cache = c.cacheSlot(p)
	}
	if b.Effect {
		p.effects = true
	}
	return call, p
}

// qualified compiles M(a)!N!Op(b).
func (c *compiler) qualified(n *tla.OpApp, u tla.Use) (expr, props) {
	t, w, p, ok := c.instancePath(n, u)
	if !ok {
		return &failing{node{n}, "cannot evaluate " + tla.Print(n)}, constProps
	}
	if u.Kind == tla.SymBuiltin {
		return c.builtin(n, u.Builtin, n.Args)
	}
	d, dw := t.locate(u.Symbol)
	if d == nil {
		return &failing{node{n}, "cannot evaluate " + tla.Print(n)}, constProps
	}
	w.hops = append(w.hops, dw.hops...)
	return c.call(n, d, w, n.Args, p)
}

// instancePath compiles the instances of M(a)!N!... (their arguments
// evaluated where the name is written) and returns the template they
// lead to and how to reach its context.
func (c *compiler) instancePath(n *tla.OpApp, u tla.Use) (*template, where, props, bool) {
	t := c.t
	var w where
	p := constProps
	p.varies = true // as instances may bring variables
	for i, s := range u.Path {
		ni, hops := t.locateInstance(s)
		if ni == nil {
			return nil, w, p, false
		}
		w.hops = append(w.hops, hops...)
		h := hop{sub: -1, inst: ni}
		if i < len(n.Prefix) && len(n.Prefix[i].Args) > 0 {
			var q props
			h.args, q = c.exprs(n.Prefix[i].Args)
			p = p.join(q)
		}
		w.hops = append(w.hops, h)
		t = ni.t
	}
	return t, w, p, true
}

// selector compiles a subexpression name Op!1!:.
func (c *compiler) selector(n *tla.OpApp, u tla.Use) (expr, props) {
	d, w := c.t.locate(u.Symbol)
	if d == nil || d.sym.Decl == nil || len(n.Prefix[0].Args) > 0 || len(d.params) > 0 {
		return &failing{node{n}, n.Prefix[0].Name + " is not a module instance"}, constProps
	}
	if _, isFn := d.sym.Decl.(*tla.FuncDef); isFn {
		return &failing{node{n}, n.Prefix[0].Name + " is not a module instance"}, constProps
	}
	e := d.syntax
	steps := make([]string, 0, len(n.Prefix))
	for _, r := range n.Prefix[1:] {
		steps = append(steps, r.Name)
	}
	steps = append(steps, n.Name)
	for _, st := range steps {
		var msg string
		if e, msg = selectStep(e, st, n); msg != "" {
			return &failing{node{n}, msg}, constProps
		}
	}
	dc := &compiler{t: d.t, unit: d.unit}
	se, p := dc.expr(e)
	p.varies = true
	p.outer = noGroup
	return &selector{node{n}, d, w, se}, p
}

// selectStep applies one step of a subexpression name: ":" is the
// expression itself, a number k the k-th operand (the k-th item of a
// conjunction or disjunction list).
func selectStep(e tla.Expr, step string, n *tla.OpApp) (tla.Expr, string) {
	if step == ":" {
		return e, ""
	}
	k := 0
	for _, r := range step {
		if r < '0' || r > '9' {
			return nil, "subexpression name " + tla.Print(n) + ": " + step + " is not a position (only !1, !2, ... and !: are supported)"
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
		return nil, "subexpression name " + tla.Print(n) + ": " + tla.Print(e) + " has no operand " + strconv.Itoa(k)
	}
	return items[k-1], ""
}

// opArg compiles an argument passed for an operator parameter of arity
// arguments.
func (c *compiler) opArg(a tla.Expr, arity int) *opArg {
	if l, ok := a.(*tla.Lambda); ok {
		oa := &opArg{kind: opLambda, name: "LAMBDA", at: l.At, nparams: len(l.Params)}
		p := c.inGroup(func() (q props) { oa.body, q = c.expr(l.Body); return q })
		oa.varies = p.varies
		return oa
	}
	fail := &opArg{kind: opFailing, at: a.Pos(), msg: "expected an operator of " + strconv.Itoa(arity) + " arguments"}
	u, ok := c.info().Use(a)
	if !ok {
		return fail
	}
	s := u.Symbol
	at := a.Pos()
	switch {
	case len(u.Path) > 0:
		t, w, _, ok := c.instancePath(a.(*tla.OpApp), u)
		if !ok {
			return fail
		}
		if s.Kind == tla.SymBuiltin {
			return &opArg{kind: opBuiltin, name: s.Name, at: at, op: s.Builtin.Op, nparams: arity}
		}
		d, dw := t.locate(s)
		if d == nil {
			return fail
		}
		compileDef(d)
		w.hops = append(w.hops, dw.hops...)
		return &opArg{kind: opDef, name: s.Name, at: at, d: d, where: w, nparams: len(d.params), varies: true}
	case s.Local:
		return &opArg{kind: opLocal, name: s.Name, at: at, up: u.Up, slot: s.Slot, nparams: arity}
	case s.Kind == tla.SymBuiltin:
		if b := c.t.spec.builtins[s.Builtin.Op]; b != nil && b.Subst != "" {
			return c.boundOp(s.Name, at, b)
		}
		return &opArg{kind: opBuiltin, name: s.Name, at: at, op: s.Builtin.Op, nparams: arity}
	case s.Kind == tla.SymConstant && c.t.inst != nil:
		sub := c.t.substitution(s)
		return &opArg{kind: opSubst, name: s.Name, at: at, s: sub, nparams: arity, varies: sub.varies}
	case s.Kind == tla.SymConstant:
		if b := c.t.spec.bound[s]; b != nil && b.Subst != "" {
			return c.boundOp(s.Name, at, b)
		}
		return &opArg{kind: opFailing, at: at, msg: "constant " + s.Name + " has no value: the model (.cfg) must assign it"}
	case s.Kind == tla.SymDefinition:
		if c.t.inst == nil {
			if b := c.t.spec.bound[s]; b != nil && b.Subst != "" {
				return c.boundOp(s.Name, at, b)
			}
		}
		d, w := c.t.locate(s)
		if d == nil {
			return fail
		}
		compileDef(d)
		return &opArg{kind: opDef, name: s.Name, at: at, d: d, where: w, nparams: len(d.params), varies: d.varies}
	}
	return fail
}

// boundOp compiles an operator the model replaces by a root definition.
func (c *compiler) boundOp(name string, at tla.Pos, b *Binding) *opArg {
	d, w := c.t.spec.rootT.locate(c.t.spec.info.Lookup(c.t.spec.Module, b.Subst))
	if d == nil {
		return &opArg{kind: opFailing, at: at, msg: "cannot evaluate " + b.Subst}
	}
	compileDef(d)
	w.root = c.t != c.t.spec.rootT
	return &opArg{kind: opDef, name: name, at: at, d: d, where: w, nparams: len(d.params), varies: d.varies}
}

// substitution returns what replaces s, a constant or variable of t's
// module, compiled (once) in the instantiating template.
func (t *template) substitution(s *tla.Symbol) *substitution {
	if sub := t.substs[s]; sub != nil {
		return sub
	}
	sub := &substitution{name: s.Name, unit: t.instUnit, slot: t.nsubst}
	t.nsubst++
	t.substs[s] = sub
	for _, x := range t.spec.info.Substitutions(t.inst) {
		if x.Decl != s {
			continue
		}
		c := &compiler{t: t.parent, unit: t.instUnit}
		if len(t.inst.Params) > 0 {
			c.depth = 1
		}
		if s.Arity() > 0 {
			sub.op = c.opArg(x.Expr, s.Arity())
			sub.varies = sub.op.varies
		} else {
			var p props
			sub.e, p = c.expr(x.Expr)
			sub.varies = p.varies
		}
		return sub
	}
	sub.e = &failing{node{&tla.Ident{At: t.inst.At, Name: s.Name}}, "no substitution for " + s.Name}
	return sub
}

// locate finds the definition s stands for in t, and how to reach the
// context it is evaluated in (through the unnamed instances that bring
// it).
func (t *template) locate(s *tla.Symbol) (*defn, where) {
	var w where
	for s != nil && s.Via != nil {
		i, ok := t.subOf[s.Via]
		if !ok {
			return nil, w
		}
		w.hops = append(w.hops, hop{sub: i})
		t, s = t.subs[i], s.Target
	}
	if s == nil {
		return nil, w
	}
	return t.defs[s], w
}

// locateInstance finds the named instance s stands for in t.
func (t *template) locateInstance(s *tla.Symbol) (*namedInst, []hop) {
	var hops []hop
	for s.Via != nil {
		i, ok := t.subOf[s.Via]
		if !ok {
			return nil, nil
		}
		hops = append(hops, hop{sub: i})
		t, s = t.subs[i], s.Target
	}
	inst, ok := s.Decl.(*tla.Instance)
	if !ok {
		return nil, nil
	}
	return t.namedOf[inst], hops
}

// builtinConstant returns the value of a built-in operator without
// arguments, when it has one.
func builtinConstant(op tla.Op) (value.Value, bool) {
	switch op {
	case tla.OpBoolean:
		return value.NewSet(value.False, value.True), true
	case tla.OpNat:
		return &value.Infinite{Name: "Nat"}, true
	case tla.OpInt:
		return &value.Infinite{Name: "Int"}, true
	case tla.OpString:
		return &value.Infinite{Name: "STRING"}, true
	case tla.OpEmptyBag:
		return value.EmptyFunc, true
	}
	return nil, false
}
