package eval

import (
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// eval evaluates e to a value.
func (c *ctx) eval(e expr) value.Value {
	switch n := e.(type) {
	case *lit:
		return n.v
	case *local:
		b := c.env.at(n.up, n.slot)
		if b.op != nil {
			return c.callClosure(b.op, nil, pos(n))
		}
		return c.value(b, pos(n))
	case *varRef:
		return c.variable(n)
	case *defRef:
		return c.defValue(n.d, n.at, pos(n))
	case *callDef:
		return c.callDef(n)
	case *callBuiltin:
		return c.builtin(n)
	case *junction:
		return c.junction(n)
	case *ifExpr:
		if c.bool(n.cond) {
			return c.eval(n.then)
		}
		return c.eval(n.els)
	case *caseExpr:
		for i, cond := range n.conds {
			if c.bool(cond) {
				return c.eval(n.vals[i])
			}
		}
		if n.other != nil {
			return c.eval(n.other)
		}
		c.fail(pos(n), "no CASE arm is true and there is no OTHER")
	case *letExpr:
		return c.withLet(n).eval(n.body)
	case *substRef:
		return c.substValue(n.s, pos(n))
	case *callLocal:
		return c.callLocal(n)
	case *callSubst:
		return c.callSubst(n)
	case *setEnum:
		if n.cache >= 0 {
			return c.constant(n.cache, n)
		}
		elems := make([]value.Value, len(n.elems))
		for i, x := range n.elems {
			elems[i] = c.eval(x)
		}
		return value.NewSetOwned(elems)
	case *tuple:
		if n.cache >= 0 {
			return c.constant(n.cache, n)
		}
		elems := make([]value.Value, len(n.elems))
		for i, x := range n.elems {
			elems[i] = c.eval(x)
		}
		return value.NewTuple(elems...)
	case *record:
		if n.cache >= 0 {
			return c.constant(n.cache, n)
		}
		// Record copies the values: the usual handful stays on the stack.
		var buf [8]value.Value
		vals := buf[:0]
		for _, f := range n.vals {
			vals = append(vals, c.eval(f))
		}
		return n.shape.Record(vals)
	case *recordSet:
		if n.cache >= 0 {
			return c.constant(n.cache, n)
		}
		rs := &value.RecordSet{Names: n.names, Sets: make([]value.SetValue, len(n.sets))}
		for i, s := range n.sets {
			rs.Sets[i] = c.set(s)
		}
		return rs
	case *funcSet:
		if n.cache >= 0 {
			return c.constant(n.cache, n)
		}
		return &value.FuncSet{Dom: c.set(n.dom), Rng: c.set(n.rng)}
	case *cross:
		if n.cache >= 0 {
			return c.constant(n.cache, n)
		}
		p := &value.Product{}
		for _, s := range n.sets {
			p.Sets = append(p.Sets, c.set(s))
		}
		return p
	case *setFilter:
		var out []value.Value
		visit := func(c2 *ctx, elem value.Value) bool {
			if c2.bool(n.pred) {
				out = append(out, elem)
			}
			return false
		}
		if bd := n.b.bounds[0]; !bd.tuple && bd.names == 1 {
			// {x \in Nat : P} is never enumerated: membership in it is
			// decided by P, as TLC does ([Jug -> {n \in Nat : n > 0}]).
			elems, inf := c.domainOrInfinite(bd)
			if inf != nil {
				return c.infiniteFilter(n, inf)
			}
			c.forElems(n.b, elems, visit)
			return value.NewSetOwned(out)
		}
		c.forBound(n.b, visit)
		return value.NewSetOwned(out)
	case *setMap:
		var out []value.Value
		c.forBounds(n.b, func(c2 *ctx) bool {
			out = append(out, c2.eval(n.elem))
			return false
		})
		return value.NewSetOwned(out)
	case *quant:
		if n.b.unbounded() {
			c.fail(pos(n), "unbounded quantifier cannot be evaluated: write \\A x \\in S or \\E x \\in S")
		}
		found := false
		want := n.exists
		c.forBounds(n.b, func(c2 *ctx) bool {
			if c2.bool(n.body) == want {
				found = true
				return true
			}
			return false
		})
		if want {
			return value.Bool(found)
		}
		return value.Bool(!found)
	case *choose:
		if n.b.unbounded() {
			c.fail(pos(n), "unbounded CHOOSE cannot be evaluated: write CHOOSE x \\in S : P")
		}
		var chosen value.Value
		c.forBound(n.b, func(c2 *ctx, elem value.Value) bool {
			if c2.bool(n.body) {
				chosen = elem
				return true
			}
			return false
		})
		if chosen == nil {
			c.fail(pos(n), "CHOOSE found no element satisfying %s", tla.Print(n.body.src()))
		}
		return chosen
	case *funcCons:
		return c.funcCons(n.b, n.body)
	case *funcApp:
		return c.funcApp(n)
	case *fieldAccess:
		r := c.eval(n.rec)
		f, ok := r.(*value.Func)
		if !ok {
			c.fail(pos(n), "cannot access field .%s of %s, which is not a record", n.name, value.Format(r))
		}
		v, ok := f.Field(n.name)
		if !ok {
			c.fail(pos(n), "record %s has no field %s", value.Format(r), n.name)
		}
		return v
	case *except:
		return c.except(n)
	case *selector:
		return (&ctx{sc: c.scopeOf(n.d, n.at), states: c.states, depth: c.depth}).eval(n.e)
	case *actionBox:
		// [A]_v == A \/ UNCHANGED v
		if c.bool(n.a) {
			return value.True
		}
		return value.Bool(c.unchanged(n.sub))
	case *actionAngle:
		if !c.bool(n.a) {
			return value.False
		}
		return value.Bool(!c.unchanged(n.sub))
	case *fairness:
		c.fail(pos(n), "a fairness formula is temporal and has no value in a single state")
	case *failing:
		c.fail(pos(n), "%s", n.msg)
	}
	c.fail(pos(e), "cannot evaluate %s", tla.Print(e.src()))
	return nil
}

// variable returns the value of a state variable.
func (c *ctx) variable(n *varRef) value.Value {
	if c.s == nil {
		c.fail(pos(n), "variable %s has no value in a constant expression", n.name)
	}
	v := c.s[n.idx]
	if v == nil {
		if c.primed {
			c.fail(pos(n), "%s' is used before it is assigned a value", n.name)
		}
		c.fail(pos(n), "%s is used before it is assigned a value", n.name)
	}
	return v
}

// constant returns the value of a constant expression, computed once per
// context in cache slot i.
func (c *ctx) constant(i int, e expr) value.Value {
	cx := c.sc.cx
	if v := cx.cached(i); v != nil {
		return v
	}
	c2 := &ctx{sc: c.sc, states: noStates, depth: c.depth}
	v := c2.evalUncached(e)
	cx.setCache(i, v)
	return v
}

// evalUncached evaluates a node that has a cache slot without looking at
// it.
func (c *ctx) evalUncached(e expr) value.Value {
	switch n := e.(type) {
	case *setEnum:
		m := *n
		m.cache = -1
		return c.eval(&m)
	case *tuple:
		m := *n
		m.cache = -1
		return c.eval(&m)
	case *record:
		m := *n
		m.cache = -1
		return c.eval(&m)
	case *recordSet:
		m := *n
		m.cache = -1
		return c.eval(&m)
	case *funcSet:
		m := *n
		m.cache = -1
		return c.eval(&m)
	case *cross:
		m := *n
		m.cache = -1
		return c.eval(&m)
	case *callBuiltin:
		m := *n
		m.cache = -1
		return c.eval(&m)
	}
	return c.eval(e)
}

func (b *binder) unbounded() bool {
	for _, x := range b.bounds {
		if x.set == nil {
			return true
		}
	}
	return false
}

func (c *ctx) bool(e expr) bool {
	v := c.eval(e)
	b, ok := v.(value.Bool)
	if !ok {
		c.fail(pos(e), "expected a boolean, found %s", value.Format(v))
	}
	return bool(b)
}

func (c *ctx) set(e expr) value.SetValue {
	v := c.eval(e)
	s, ok := v.(value.SetValue)
	if !ok {
		c.fail(pos(e), "expected a set, found %s", value.Format(v))
	}
	return s
}

func (c *ctx) enumerate(e expr) *value.Set {
	return c.enumerateValue(pos(e), c.set(e))
}

func (c *ctx) enumerateValue(at tla.Pos, s value.SetValue) *value.Set {
	es, err := value.EnumerateWithin(s, c)
	if err != nil {
		if c.stopError(err) {
			panic(evalPanic{err})
		}
		c.fail(at, "%v", err)
	}
	return es
}

func (c *ctx) fn(e expr) *value.Func {
	v := c.eval(e)
	f, ok := v.(*value.Func)
	if !ok {
		c.fail(pos(e), "expected a function, found %s", value.Format(v))
	}
	return f
}

func (c *ctx) junction(n *junction) value.Value {
	if n.and {
		for _, it := range n.items {
			if !c.bool(it) {
				return value.False
			}
		}
		return value.True
	}
	for _, it := range n.items {
		if c.bool(it) {
			return value.True
		}
	}
	return value.False
}

// with returns a copy of c with a group of one slot holding v.
func (c *ctx) with(v value.Value) *ctx {
	// One allocation for the context, the group and its slot.
	b := &struct {
		c ctx
		e env
		s [1]binding
	}{c: *c}
	b.s[0].val = v
	b.e.slots, b.e.next = b.s[:], c.env
	b.c.env = &b.e
	return &b.c
}

// withLet returns a copy of c with the group of LET definitions bound.
func (c *ctx) withLet(n *letExpr) *ctx {
	c2 := *c
	c2.env = c.env.push(len(n.defs))
	for i, d := range n.defs {
		b := &c2.env.slots[i]
		switch {
		case d.fn != nil:
			b.op = &closure{name: d.name, fn: d.fn, sc: c.sc, env: c2.env, at: d.at}
		case d.nparams > 0:
			b.op = &closure{name: d.name, nparams: d.nparams, params: d.params, body: d.body, sc: c.sc, env: c2.env, at: d.at}
		default:
			// A definition without parameters is its body, evaluated
			// where it is used (primed there if it is primed) and kept
			// once evaluated in the current state, as TLC does: LET
			// children == ... IN children \cup F(children) must not
			// compute children twice. (A body that is a literal or a
			// bound name is bound to its value.)
			*b = c2.bindArg(d.body)
		}
	}
	return &c2
}

// forBound calls f with each element of a binder of one bound (one name or
// a tuple pattern); f returns true to stop.
func (c *ctx) forBound(b *binder, f func(*ctx, value.Value) bool) {
	c.forElems(b, c.domain(b.bounds[0]), f)
}

// forElems is forBound over s, the bound's set enumerated.
func (c *ctx) forElems(b *binder, s *value.Set, f func(*ctx, value.Value) bool) {
	bd := b.bounds[0]
	c2 := *c
	c2.env = c.env.push(b.slots)
	for _, elem := range s.Elems() {
		c.poll()
		c2.bindBound(bd, elem)
		if f(&c2, elem) {
			return
		}
	}
}

// bindBound binds the names of bd to elem (a tuple for a tuple pattern).
func (c *ctx) bindBound(bd *bound, elem value.Value) {
	if !bd.tuple {
		c.env.slots[bd.first].val = elem
		return
	}
	t, ok := elem.(*value.Func)
	if !ok || !t.IsSeq() || t.Len() != bd.names {
		c.fail(bd.at, "cannot match %s against a tuple of %d names", value.Format(elem), bd.names)
	}
	for i, v := range t.Vals() {
		c.env.slots[bd.first+i].val = v
	}
}

// domain enumerates the set of a bound: once per context when it is
// constant (Node \ {0}, [type : {"a"}, x : S]).
func (c *ctx) domain(bd *bound) *value.Set {
	if bd.dom < 0 {
		return c.enumerate(bd.set)
	}
	cx := c.sc.cx
	if v := cx.cached(bd.dom); v != nil {
		return v.(*value.Set)
	}
	s := (&ctx{sc: c.sc, states: noStates, depth: c.depth}).enumerate(bd.set)
	cx.setCache(bd.dom, s)
	return s
}

// intRange returns the bounds of a domain a..b that is computed where it
// is used (not once for all), and small enough to be enumerated: such a
// domain is walked as it is, without being made into a set.
func (c *ctx) intRange(bd *bound) (lo, hi int64, ok bool) {
	r, isCall := bd.set.(*callBuiltin)
	if bd.dom >= 0 || !isCall || r.op != tla.OpRange {
		return 0, 0, false
	}
	// Evaluated, and refused, as the operator .. does.
	at := pos(r)
	a, b := c.eval(r.args[0]), c.eval(r.args[1])
	lo, hi = c.asInt(a, at), c.asInt(b, at)
	if hi >= lo && uint64(hi-lo) >= value.MaxEnumerate {
		// Too large: left to enumerate, which says so. The bounds are
		// evaluated twice, but this is an error.
		return 0, 0, false
	}
	return lo, hi, true
}

// forBounds calls f for every combination of values of a binder such as
// `x, y \in S, z \in T`; f returns true to stop. The *ctx passed to f, and
// its group, are reused for the next combination: f must not keep them
// (see forBoundsFresh).
func (c *ctx) forBounds(b *binder, f func(*ctx) bool) { c.bounds(b, false, f) }

// forBoundsFresh is forBounds with a fresh group for every combination,
// for an f that keeps its ctx's env.
func (c *ctx) forBoundsFresh(b *binder, f func(*ctx) bool) { c.bounds(b, true, f) }

func (c *ctx) bounds(b *binder, fresh bool, f func(*ctx) bool) {
	if len(b.bounds) == 1 && !b.bounds[0].tuple && b.bounds[0].names == 1 && !fresh {
		// \E x \in S : P, the common case, needs none of what follows:
		// one context serves every element.
		if lo, hi, ok := c.intRange(b.bounds[0]); ok {
			// x \in a..b, the bounds computed here: the integers are
			// not made into a set.
			if lo > hi {
				return
			}
			c2 := c.with(value.Int(lo))
			for i := lo; ; i++ {
				c.poll()
				c2.env.slots[0].val = value.Int(i)
				if f(c2) || i == hi {
					return
				}
			}
		}
		elems := c.domain(b.bounds[0]).Elems()
		if len(elems) == 0 {
			return
		}
		c2 := c.with(elems[0])
		for _, elem := range elems {
			c.poll()
			c2.env.slots[0].val = elem
			if f(c2) {
				return
			}
		}
		return
	}
	// One set per name (a tuple pattern is one), each evaluated once,
	// outside: in TLA+ the sets of a binder cannot refer to the names it
	// binds.
	type slot struct {
		bd   *bound
		name int // index in the bound's names, -1 for a tuple pattern
	}
	var slots []slot
	for _, bd := range b.bounds {
		if bd.tuple {
			slots = append(slots, slot{bd, -1})
			continue
		}
		for i := 0; i < bd.names; i++ {
			slots = append(slots, slot{bd, i})
		}
	}
	sets := make([]*value.Set, len(slots))
	for i, sl := range slots {
		sets[i] = c.domain(sl.bd)
	}
	c2 := *c
	c2.env = c.env.push(b.slots)
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(slots) {
			if fresh {
				c3 := c2
				c3.env = c.env.push(b.slots)
				copy(c3.env.slots, c2.env.slots)
				return f(&c3)
			}
			return f(&c2)
		}
		sl := slots[i]
		for _, elem := range sets[i].Elems() {
			c.poll()
			if sl.name < 0 {
				c2.bindBound(sl.bd, elem)
			} else {
				c2.env.slots[sl.bd.first+sl.name].val = elem
			}
			if rec(i + 1) {
				return true
			}
		}
		return false
	}
	rec(0)
}

// funcCons builds [x \in S, y \in T |-> body].
func (c *ctx) funcCons(b *binder, body expr) value.Value {
	var keys, vals []value.Value
	multi := len(b.bounds) > 1 || b.bounds[0].names > 1 && !b.bounds[0].tuple
	c.forBounds(b, func(c2 *ctx) bool {
		var key value.Value
		slots := c2.env.slots
		switch {
		case multi:
			comps := make([]value.Value, 0, b.slots)
			for _, bd := range b.bounds {
				if bd.tuple {
					comps = append(comps, value.NewTuple(cloneVals(slots[bd.first:bd.first+bd.names])...))
					continue
				}
				for i := 0; i < bd.names; i++ {
					comps = append(comps, slots[bd.first+i].val)
				}
			}
			key = value.NewTuple(comps...)
		case b.bounds[0].tuple:
			key = value.NewTuple(cloneVals(slots)...)
		default:
			key = slots[0].val
		}
		keys = append(keys, key)
		vals = append(vals, c2.eval(body))
		return false
	})
	return value.NewFunc(keys, vals)
}

func cloneVals(bs []binding) []value.Value {
	out := make([]value.Value, len(bs))
	for i, b := range bs {
		out[i] = b.val
	}
	return out
}

func (c *ctx) funcApp(n *funcApp) value.Value {
	var arg value.Value
	if len(n.args) == 1 {
		arg = c.eval(n.args[0])
	} else {
		elems := make([]value.Value, len(n.args))
		for i, a := range n.args {
			elems[i] = c.eval(a)
		}
		arg = value.NewTuple(elems...)
	}
	// A (possibly recursive) function definition is applied without
	// building the whole function.
	if fd, fc := c.funcDefOf(n.f); fd != nil {
		return fc.applyFuncDef(fd, arg, pos(n))
	}
	fv := c.eval(n.f)
	f, ok := fv.(*value.Func)
	if !ok {
		c.fail(pos(n), "cannot apply %s, which is not a function", value.Format(fv))
	}
	v, ok := f.Apply(arg)
	if !ok {
		c.fail(pos(n), "%s is not in the domain of %s", value.Format(arg), tla.Print(n.f.src()))
	}
	return v
}

// funcDefOf returns the function definition e names, if it names one, and
// the context its body is evaluated in.
func (c *ctx) funcDefOf(e expr) (*funcDef, *ctx) {
	switch x := e.(type) {
	case *local:
		if b := c.env.at(x.up, x.slot); b.op != nil && b.op.fn != nil {
			return b.op.fn, c.call(b.op.sc, b.op.env, pos(x))
		}
	case *defRef:
		if x.d.fn == nil {
			break
		}
		sc := c.scopeOf(x.d, x.at)
		if x.d.constant && sc.cx.cached(x.d.cache) != nil {
			break // the function, built once: applied as a value
		}
		return x.d.fn, c.call(sc, nil, pos(x))
	}
	return nil, nil
}

func (c *ctx) applyFuncDef(fd *funcDef, arg value.Value, at tla.Pos) value.Value {
	// Check arg is in the domain and bind the bound names to it.
	b := fd.b
	c2 := *c
	c2.env = c.env.push(b.slots)
	if len(b.bounds) == 1 && (b.bounds[0].names == 1 || b.bounds[0].tuple) {
		bd := b.bounds[0]
		if in, err := c.set(bd.set).Contains(arg); err != nil || !in {
			c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.name)
		}
		c2.bindBound(bd, arg)
		return c2.eval(fd.body)
	}
	t, ok := arg.(*value.Func)
	if !ok || !t.IsSeq() {
		c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.name)
	}
	i := 0
	for _, bd := range b.bounds {
		s := c.set(bd.set)
		for k := 0; k < bd.names; k++ {
			if i >= t.Len() {
				c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.name)
			}
			x := t.Vals()[i]
			if in, err := s.Contains(x); err != nil || !in {
				c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.name)
			}
			c2.env.slots[bd.first+k].val = x
			i++
		}
	}
	if i != t.Len() {
		c.fail(at, "%s is not in the domain of %s", value.Format(arg), fd.name)
	}
	return c2.eval(fd.body)
}

func (c *ctx) except(n *except) value.Value {
	v := c.eval(n.f)
	for _, u := range n.updates {
		v = c.exceptPath(v, u.path, u)
	}
	return v
}

func (c *ctx) exceptPath(v value.Value, path []*exceptStep, u *exceptUpdate) value.Value {
	if len(path) == 0 {
		if !u.bindsAt {
			// Most updates do not refer to @: binding it would cost a
			// context and a group for nothing.
			return c.eval(u.val)
		}
		return c.with(v).eval(u.val)
	}
	st := path[0]
	f, ok := v.(*value.Func)
	if !ok {
		c.fail(st.at, "EXCEPT applied to %s, which is not a function", value.Format(v))
	}
	var key value.Value
	switch {
	case st.index == nil:
		key = value.String(st.field)
	case len(st.index) == 1:
		key = c.eval(st.index[0])
	default:
		elems := make([]value.Value, len(st.index))
		for i, x := range st.index {
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
	nv := c.exceptPath(old, path[1:], u)
	f2, _ := f.Update(key, nv)
	return f2
}

// unchanged evaluates UNCHANGED sub on the current and next states.
func (c *ctx) unchanged(sub expr) bool {
	if c.t == nil {
		c.fail(pos(sub), "UNCHANGED needs a next state (it is an action)")
	}
	now := c.eval(sub)
	then := c.primedCtx(pos(sub)).eval(sub)
	return c.equal(now, then, pos(sub))
}

func (c *ctx) primedCtx(at tla.Pos) *ctx {
	if c.primed || c.t == nil {
		c.fail(at, "a primed expression needs a next state here")
	}
	*c.nextReads++ // not nil: c has a next state
	c2 := *c
	f := *c.states
	f.s, f.t, f.primed = c.t, nil, true
	c2.states = &f
	return &c2
}

// infiniteFilter returns {x \in S : P}, S infinite, as a set that is
// never enumerated: membership in it is decided by evaluating P.
func (c *ctx) infiniteFilter(n *setFilter, s value.SetValue) value.SetValue {
	bd := n.b.bounds[0]
	return &value.Filter{Base: s, Src: tla.Print(n.src()), Keep: func(v value.Value) (keep bool, err error) {
		defer recoverError(&err)
		c2 := *c
		c2.env = c.env.push(n.b.slots)
		c2.bindBound(bd, v)
		return c2.bool(n.pred), nil
	}}
}

// domainOrInfinite is domain for a bound whose set may be infinite: it
// returns the set instead of failing when it is.
func (c *ctx) domainOrInfinite(bd *bound) (*value.Set, value.SetValue) {
	if bd.dom < 0 {
		s := c.set(bd.set)
		if infinite(s) {
			return nil, s
		}
		return c.enumerateValue(pos(bd.set), s), nil
	}
	cx := c.sc.cx
	if v := cx.cached(bd.dom); v != nil {
		return v.(*value.Set), nil
	}
	cc := &ctx{sc: c.sc, states: noStates, depth: c.depth}
	s := cc.set(bd.set)
	if infinite(s) {
		return nil, s
	}
	es := cc.enumerateValue(pos(bd.set), s)
	cx.setCache(bd.dom, es)
	return es, nil
}

// infinite reports whether s is a set that cannot be enumerated because
// it is infinite.
func infinite(s value.SetValue) bool {
	switch x := s.(type) {
	case *value.Infinite, *value.Filter:
		return true
	case *value.Diff:
		return infinite(x.A)
	case *value.Cup:
		return infinite(x.A) || infinite(x.B)
	}
	return false
}
