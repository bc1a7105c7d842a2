package eval

import (
	"math/big"
	"strconv"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// eval evaluates e to a value.
func (c *ctx) eval(e tla.Expr) value.Value {
	switch n := e.(type) {
	case *tla.Bool:
		return value.Bool(n.Value)
	case *tla.Num:
		// Literals are kept as values: converting a string or a large
		// integer to an interface allocates.
		if v, ok := n.Val.Load().(value.Value); ok {
			return v
		}
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			if _, ok := new(big.Int).SetString(n.Value, 10); ok {
				c.fail(n.At, "integer %s does not fit in 64 bits", n.Value)
			}
			c.fail(n.At, "unsupported number %s (only integers are supported)", n.Value)
		}
		v := value.Value(value.Int(i))
		n.Val.Store(v)
		return v
	case *tla.Str:
		if v, ok := n.Val.Load().(value.Value); ok {
			return v
		}
		v := value.Value(value.String(n.Value))
		n.Val.Store(v)
		return v
	case *tla.Ident:
		return c.ident(n)
	case *tla.OpApp:
		return c.opApp(n)
	case *tla.Junction:
		return c.junction(n)
	case *tla.If:
		if c.bool(n.Cond) {
			return c.eval(n.Then)
		}
		return c.eval(n.Else)
	case *tla.Case:
		for _, arm := range n.Arms {
			if c.bool(arm.Cond) {
				return c.eval(arm.Val)
			}
		}
		if n.Other != nil {
			return c.eval(n.Other)
		}
		c.fail(n.At, "no CASE arm is true and there is no OTHER")
	case *tla.Let:
		return c.withLet(n.Defs).eval(n.Body)
	case *tla.SetEnum:
		if v, ok := c.constant(n); ok {
			return v
		}
		elems := make([]value.Value, len(n.Elems))
		for i, x := range n.Elems {
			elems[i] = c.eval(x)
		}
		return value.NewSetOwned(elems)
	case *tla.Tuple:
		if v, ok := c.constant(n); ok {
			return v
		}
		elems := make([]value.Value, len(n.Elems))
		for i, x := range n.Elems {
			elems[i] = c.eval(x)
		}
		return value.NewTuple(elems...)
	case *tla.RecordCons:
		if v, ok := c.constant(n); ok {
			return v
		}
		// Record copies the values: the usual handful stays on the stack.
		var buf [8]value.Value
		vals := buf[:0]
		for _, f := range n.Fields {
			vals = append(vals, c.eval(f.Val))
		}
		return recordShape(n).Record(vals)
	case *tla.RecordSet:
		if v, ok := c.constant(n); ok {
			return v
		}
		rs := &value.RecordSet{}
		fields := append([]*tla.Field(nil), n.Fields...)
		sortFields(fields)
		for _, f := range fields {
			rs.Names = append(rs.Names, f.Name)
			rs.Sets = append(rs.Sets, c.set(f.Val))
		}
		return rs
	case *tla.FuncSet:
		if v, ok := c.constant(n); ok {
			return v
		}
		return &value.FuncSet{Dom: c.set(n.Dom), Rng: c.set(n.Rng)}
	case *tla.Cross:
		if v, ok := c.constant(n); ok {
			return v
		}
		p := &value.Product{}
		for _, s := range n.Sets {
			p.Sets = append(p.Sets, c.set(s))
		}
		return p
	case *tla.SetFilter:
		var out []value.Value
		c.forBound(n.Bound, func(c2 *ctx, elem value.Value) bool {
			if c2.bool(n.Pred) {
				out = append(out, elem)
			}
			return false
		})
		return value.NewSetOwned(out)
	case *tla.SetMap:
		var out []value.Value
		c.forBounds(n.Bounds, func(c2 *ctx) bool {
			out = append(out, c2.eval(n.Elem))
			return false
		})
		return value.NewSetOwned(out)
	case *tla.Quant:
		if hasUnbounded(n.Bounds) {
			c.fail(n.At, "unbounded quantifier cannot be evaluated: write \\A x \\in S or \\E x \\in S")
		}
		found := false
		want := n.Kind == tla.Exists
		c.forBounds(n.Bounds, func(c2 *ctx) bool {
			if c2.bool(n.Body) == want {
				found = true
				return true
			}
			return false
		})
		if want {
			return value.Bool(found)
		}
		return value.Bool(!found)
	case *tla.Choose:
		if n.Bound.Set == nil {
			c.fail(n.At, "unbounded CHOOSE cannot be evaluated: write CHOOSE x \\in S : P")
		}
		var chosen value.Value
		c.forBound(n.Bound, func(c2 *ctx, elem value.Value) bool {
			if c2.bool(n.Body) {
				chosen = elem
				return true
			}
			return false
		})
		if chosen == nil {
			c.fail(n.At, "CHOOSE found no element satisfying %s", tla.Print(n.Body))
		}
		return chosen
	case *tla.FuncCons:
		return c.funcCons(n.Bounds, n.Body)
	case *tla.FuncApp:
		return c.funcApp(n)
	case *tla.FieldAccess:
		r := c.eval(n.Rec)
		f, ok := r.(*value.Func)
		if !ok {
			c.fail(n.At, "cannot access field .%s of %s, which is not a record", n.Field, value.Format(r))
		}
		v, ok := f.Field(n.Field)
		if !ok {
			c.fail(n.At, "record %s has no field %s", value.Format(r), n.Field)
		}
		return v
	case *tla.Except:
		return c.except(n)
	case *tla.AtSign:
		b := c.env.find("@")
		if b == nil {
			c.fail(n.At, "@ used outside an EXCEPT update")
		}
		return b.val
	case *tla.ActionBox:
		// [A]_v == A \/ UNCHANGED v
		if c.bool(n.Action) {
			return value.True
		}
		return value.Bool(c.unchanged(n.Sub))
	case *tla.ActionAngle:
		if !c.bool(n.Action) {
			return value.False
		}
		return value.Bool(!c.unchanged(n.Sub))
	case *tla.Lambda:
		c.fail(n.At, "LAMBDA can only be an argument of an operator")
	case *tla.Fairness:
		c.fail(n.At, "a fairness formula is temporal and has no value in a single state")
	}
	c.fail(e.Pos(), "cannot evaluate %T", e)
	return nil
}

func hasUnbounded(bs []*tla.Bound) bool {
	for _, b := range bs {
		if b.Set == nil {
			return true
		}
	}
	return false
}

func sortFields(fs []*tla.Field) {
	for i := 1; i < len(fs); i++ {
		for j := i; j > 0 && fs[j].Name < fs[j-1].Name; j-- {
			fs[j], fs[j-1] = fs[j-1], fs[j]
		}
	}
}

func (c *ctx) bool(e tla.Expr) bool {
	v := c.eval(e)
	b, ok := v.(value.Bool)
	if !ok {
		c.fail(e.Pos(), "expected a boolean, found %s", value.Format(v))
	}
	return bool(b)
}

func (c *ctx) set(e tla.Expr) value.SetValue {
	v := c.eval(e)
	s, ok := v.(value.SetValue)
	if !ok {
		c.fail(e.Pos(), "expected a set, found %s", value.Format(v))
	}
	return s
}

func (c *ctx) enumerate(e tla.Expr) *value.Set {
	return c.enumerateValue(e.Pos(), c.set(e))
}

func (c *ctx) enumerateValue(at tla.Pos, s value.SetValue) *value.Set {
	es, err := s.Enumerate()
	if err != nil {
		c.fail(at, "%v", err)
	}
	return es
}

func (c *ctx) fn(e tla.Expr) *value.Func {
	v := c.eval(e)
	f, ok := v.(*value.Func)
	if !ok {
		c.fail(e.Pos(), "expected a function, found %s", value.Format(v))
	}
	return f
}

func (c *ctx) junction(n *tla.Junction) value.Value {
	if n.Op == tla.And {
		for _, it := range n.Items {
			if !c.bool(it) {
				return value.False
			}
		}
		return value.True
	}
	for _, it := range n.Items {
		if c.bool(it) {
			return value.True
		}
	}
	return value.False
}

// with returns a copy of c with name bound to v.
func (c *ctx) with(name string, v value.Value) *ctx {
	// One allocation for the context and the binding.
	b := &struct {
		c ctx
		e env
	}{c: *c, e: env{name: name, val: v, next: c.env}}
	b.c.env = &b.e
	return &b.c
}

// withLet returns a copy of c with LET definitions bound.
func (c *ctx) withLet(defs []tla.Unit) *ctx {
	c2 := *c
	for _, u := range defs {
		switch d := u.(type) {
		case *tla.OpDef:
			if len(d.Params) == 0 {
				// A definition without parameters is its body, evaluated
				// where it is used (primed there if it is primed) and
				// kept once evaluated in the current state, as TLC does:
				// LET children == ... IN children \cup F(children) must
				// not compute children twice.
				// (A body that is a bound name is bound to its value.)
				c2.env = c2.env.bindArg(d.Name, d.Body, &c2)
				continue
			}
			c2.env = c2.env.bindOp(d.Name, &closure{name: d.Name, params: d.Params, body: d.Body, sc: c.sc, at: d.At})
		case *tla.FuncDef:
			c2.env = c2.env.bindOp(d.Name, &closure{name: d.Name, fn: d, body: d.Body, sc: c.sc, at: d.At})
		}
	}
	// LET definitions may refer to each other and to themselves
	// (RECURSIVE): every closure and body sees the complete chain.
	for e := c2.env; e != c.env; e = e.next {
		switch {
		case e.op != nil:
			e.op.env = c2.env
		case e.th != nil:
			e.th.env = c2.env
			e.th.sc = c.sc
		}
	}
	return &c2
}

// forBound calls f with each element of a single bound (one name or a
// tuple pattern); f returns true to stop.
func (c *ctx) forBound(b *tla.Bound, f func(*ctx, value.Value) bool) {
	s := c.domain(b.Set)
	if !b.Tuple {
		var c2 *ctx // reused for every element, as in forBounds
		for _, elem := range s.Elems() {
			if c2 == nil {
				c2 = c.with(b.Names[0].Name, elem)
			}
			c2.env.val = elem
			if f(c2, elem) {
				return
			}
		}
		return
	}
	c2 := *c
	for _, elem := range s.Elems() {
		c2.env = c.bindPattern(b, elem).env
		if f(&c2, elem) {
			return
		}
	}
}

func (c *ctx) bindPattern(b *tla.Bound, elem value.Value) *ctx {
	if !b.Tuple {
		return c.with(b.Names[0].Name, elem)
	}
	t, ok := elem.(*value.Func)
	if !ok || !t.IsSeq() || t.Len() != len(b.Names) {
		c.fail(b.At, "cannot match %s against a tuple of %d names", value.Format(elem), len(b.Names))
	}
	c2 := *c
	for i, id := range b.Names {
		c2.env = c2.env.bind(id.Name, t.Vals()[i])
	}
	return &c2
}

// forBounds calls f for every combination of values of bounds such as
// `x, y \in S, z \in T`; f returns true to stop. The *ctx passed to f, and
// the bindings of its env, are reused for the next combination: f must not
// keep them (see forBoundsFresh).
func (c *ctx) forBounds(bs []*tla.Bound, f func(*ctx) bool) { c.bounds(bs, false, f) }

// forBoundsFresh is forBounds with fresh bindings for every combination,
// for an f that keeps its ctx's env.
func (c *ctx) forBoundsFresh(bs []*tla.Bound, f func(*ctx) bool) { c.bounds(bs, true, f) }

func (c *ctx) bounds(bs []*tla.Bound, fresh bool, f func(*ctx) bool) {
	if len(bs) == 1 && !bs[0].Tuple && len(bs[0].Names) == 1 && !fresh {
		// \E x \in S : P, the common case, needs none of what follows:
		// one context serves every element.
		elems := c.domain(bs[0].Set).Elems()
		if len(elems) == 0 {
			return
		}
		c2 := c.with(bs[0].Names[0].Name, elems[0])
		for _, elem := range elems {
			c2.env.val = elem
			if f(c2) {
				return
			}
		}
		return
	}
	type slot struct {
		b    *tla.Bound
		name int // index in b.Names when not a tuple pattern
	}
	var slots []slot
	for _, b := range bs {
		if b.Tuple {
			slots = append(slots, slot{b, -1})
			continue
		}
		for i := range b.Names {
			slots = append(slots, slot{b, i})
		}
	}
	sets := make([]*value.Set, len(slots))
	// ctxs[i] is the context in which slot i is bound: one context per
	// slot serves every element, since evaluation under it ends before
	// the next element is bound (nothing keeps a *ctx).
	ctxs := make([]ctx, len(slots))
	var rec func(i int, c2 *ctx) bool
	rec = func(i int, c2 *ctx) bool {
		if i == len(slots) {
			return f(c2)
		}
		sl := slots[i]
		if sets[i] == nil {
			// In TLA+ the sets of one quantifier cannot refer to the
			// names it binds, so each is evaluated once, outside.
			sets[i] = c.domain(sl.b.Set)
		}
		c3 := &ctxs[i]
		*c3 = *c2
		var node *env
		for _, elem := range sets[i].Elems() {
			switch {
			case sl.name < 0:
				c3.env = c2.bindPattern(sl.b, elem).env
			case fresh || node == nil:
				// A binding too is reused, unless f keeps it.
				node = c2.env.bind(sl.b.Names[sl.name].Name, elem)
				c3.env = node
			default:
				node.val = elem
			}
			if rec(i+1, c3) {
				return true
			}
		}
		return false
	}
	rec(0, c)
}

// funcCons builds [x \in S, y \in T |-> body].
func (c *ctx) funcCons(bs []*tla.Bound, body tla.Expr) value.Value {
	var keys, vals []value.Value
	multi := len(bs) > 1 || len(bs[0].Names) > 1 && !bs[0].Tuple
	var names []string
	for _, b := range bs {
		for _, id := range b.Names {
			names = append(names, id.Name)
		}
	}
	c.forBounds(bs, func(c2 *ctx) bool {
		var key value.Value
		if multi {
			comps := make([]value.Value, 0, len(names))
			for _, b := range bs {
				if b.Tuple {
					tup := make([]value.Value, len(b.Names))
					for i, id := range b.Names {
						tup[i] = c2.env.find(id.Name).val
					}
					comps = append(comps, value.NewTuple(tup...))
					continue
				}
				for _, id := range b.Names {
					comps = append(comps, c2.env.find(id.Name).val)
				}
			}
			key = value.NewTuple(comps...)
		} else if bs[0].Tuple {
			tup := make([]value.Value, len(bs[0].Names))
			for i, id := range bs[0].Names {
				tup[i] = c2.env.find(id.Name).val
			}
			key = value.NewTuple(tup...)
		} else {
			key = c2.env.find(names[0]).val
		}
		keys = append(keys, key)
		vals = append(vals, c2.eval(body))
		return false
	})
	return value.NewFunc(keys, vals)
}

func (c *ctx) funcApp(n *tla.FuncApp) value.Value {
	var arg value.Value
	if len(n.Args) == 1 {
		arg = c.eval(n.Args[0])
	} else {
		elems := make([]value.Value, len(n.Args))
		for i, a := range n.Args {
			elems[i] = c.eval(a)
		}
		arg = value.NewTuple(elems...)
	}
	// A (possibly recursive) function definition is applied without
	// building the whole function.
	if id, ok := n.Func.(*tla.Ident); ok {
		if fd, fc := c.funcDefOf(id, n.At); fd != nil {
			return fc.applyFuncDef(fd, arg, n.At)
		}
	}
	fv := c.eval(n.Func)
	f, ok := fv.(*value.Func)
	if !ok {
		c.fail(n.At, "cannot apply %s, which is not a function", value.Format(fv))
	}
	v, ok := f.Apply(arg)
	if !ok {
		c.fail(n.At, "%s is not in the domain of %s", value.Format(arg), tla.Print(n.Func))
	}
	return v
}

// funcDefOf resolves id to a function definition and the context its
// body is evaluated in.
func (c *ctx) funcDefOf(id *tla.Ident, at tla.Pos) (*tla.FuncDef, *ctx) {
	if b := c.env.find(id.Name); b != nil {
		if b.op != nil && b.op.fn != nil {
			return b.op.fn, c.call(b.op.sc, b.op.env, at)
		}
		return nil, nil
	}
	if e := c.sc.lookupAt(id.Name, &id.Res); e != nil && e.kind == entDef && e.def.fn != nil {
		return e.def.fn, c.call(e.def.sc, nil, at)
	}
	return nil, nil
}

func (c *ctx) applyFuncDef(fd *tla.FuncDef, arg value.Value, at tla.Pos) value.Value {
	// Check arg is in the domain and bind the bound names to it.
	c2 := *c
	if len(fd.Bounds) == 1 && (len(fd.Bounds[0].Names) == 1 || fd.Bounds[0].Tuple) {
		b := fd.Bounds[0]
		if in, err := c.set(b.Set).Contains(arg); err != nil || !in {
			c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.Name)
		}
		return c.bindPattern(b, arg).eval(fd.Body)
	}
	t, ok := arg.(*value.Func)
	if !ok || !t.IsSeq() {
		c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.Name)
	}
	i := 0
	for _, b := range fd.Bounds {
		s := c.set(b.Set)
		for _, id := range b.Names {
			if i >= t.Len() {
				c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.Name)
			}
			x := t.Vals()[i]
			if in, err := s.Contains(x); err != nil || !in {
				c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.Name)
			}
			c2.env = c2.env.bind(id.Name, x)
			i++
		}
	}
	if i != t.Len() {
		c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.Name)
	}
	return c2.eval(fd.Body)
}

func (c *ctx) except(n *tla.Except) value.Value {
	v := c.eval(n.Func)
	for _, u := range n.Updates {
		v = c.exceptPath(v, u.Path, u.Val)
	}
	return v
}

func (c *ctx) exceptPath(v value.Value, path []*tla.ExceptStep, val tla.Expr) value.Value {
	if len(path) == 0 {
		if !usesAt(val) {
			// Most updates do not refer to @: binding it would cost a
			// context and a binding for nothing.
			return c.eval(val)
		}
		return c.with("@", v).eval(val)
	}
	st := path[0]
	f, ok := v.(*value.Func)
	if !ok {
		c.fail(st.At, "EXCEPT applied to %s, which is not a function", value.Format(v))
	}
	var key value.Value
	if st.Index == nil {
		key = value.String(st.Field)
	} else if len(st.Index) == 1 {
		key = c.eval(st.Index[0])
	} else {
		elems := make([]value.Value, len(st.Index))
		for i, x := range st.Index {
			elems[i] = c.eval(x)
		}
		key = value.NewTuple(elems...)
	}
	old, ok := f.Apply(key)
	if !ok {
		// TLC leaves the function unchanged when the argument is outside
		// its domain.
		return f
	}
	nv := c.exceptPath(old, path[1:], val)
	f2, _ := f.Update(key, nv)
	return f2
}

// unchanged evaluates UNCHANGED sub on the current and next states.
func (c *ctx) unchanged(sub tla.Expr) bool {
	if c.t == nil {
		c.fail(sub.Pos(), "UNCHANGED needs a next state (it is an action)")
	}
	now := c.eval(sub)
	then := c.primedCtx(sub.Pos()).eval(sub)
	return c.equal(now, then, sub.Pos())
}

func (c *ctx) primedCtx(at tla.Pos) *ctx {
	if c.primed || c.t == nil {
		c.fail(at, "a primed expression needs a next state here")
	}
	*c.nextReads++ // not nil: c has a next state
	c2 := *c
	f := *c.frame
	f.s, f.t, f.primed = c.t, nil, true
	c2.frame = &f
	return &c2
}
