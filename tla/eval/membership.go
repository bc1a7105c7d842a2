package eval

import (
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// equal is = as TLC evaluates it: values of different kinds cannot be
// compared ("Attempted to check equality of integer 1 with non-integer"),
// at any depth, except model values, which differ from every other value.
func (c *ctx) equal(x, y value.Value, at tla.Pos) bool {
	eq, err := value.EqualStrict(x, y)
	if err != nil {
		c.fail(at, "%v", err)
	}
	return eq
}

// comparableMember fails, as TLC does, when x \in s would compare x with
// an element of another kind (model values aside): an explicit set with
// such an element, or an interval when x is not an integer.
func (c *ctx) comparableMember(x value.Value, s value.SetValue, at tla.Pos) {
	k := x.Kind()
	if k == value.KindModel {
		return
	}
	other := func(e value.Value) bool { return e.Kind() != k && e.Kind() != value.KindModel }
	switch s := s.(type) {
	case *value.Set:
		elems := s.Elems()
		// Sets are sorted by kind first: when the first and last
		// elements have x's kind, all do.
		if len(elems) == 0 || elems[0].Kind() == k && elems[len(elems)-1].Kind() == k {
			return
		}
		for _, e := range elems {
			if other(e) {
				c.fail(at, "cannot look for %s in %s: it holds %s, a value of another kind", value.Format(x), value.Format(s), value.Format(e))
			}
		}
	case *value.Interval:
		if k != value.KindInt {
			c.fail(at, "cannot look for %s in %s, a set of integers", value.Format(x), value.Format(s))
		}
	}
}

func (c *ctx) filterIn(xs *value.Set, y value.SetValue, keep bool, at tla.Pos) *value.Set {
	var out []value.Value
	for _, e := range xs.Elems() {
		in, err := y.Contains(e)
		if err != nil {
			c.fail(at, "%v", err)
		}
		if in == keep {
			out = append(out, e)
		}
	}
	return value.NewSetOwned(out)
}

// memberOfFilter decides x \in {y \in S : P} (also through definitions
// without parameters that stand for such a set) as x \in S /\ P with y
// bound to x, as TLC does, without enumerating S: a membership test of a
// type invariant such as DP \in {D \in SUBSET SUBSET S : ...} must not
// build the 2^2^n sets. ok is false when setExpr is no set filter.
func (c *ctx) memberOfFilter(x value.Value, setExpr tla.Expr, at tla.Pos) (in, ok bool) {
	for {
		id, isID := setExpr.(*tla.Ident)
		if !isID || c.env.find(id.Name) != nil {
			break
		}
		e := c.sc.lookupAt(id.Name, &id.Res)
		if e == nil || e.kind != entDef || len(e.def.params) > 0 || e.def.fn != nil || e.def.native != nil || e.def.cachedValue() != nil {
			return false, false
		}
		c = c.call(e.def.sc, nil, id.At)
		setExpr = e.def.body
	}
	f, isFilter := setExpr.(*tla.SetFilter)
	if !isFilter || f.Bound.Tuple {
		return false, false
	}
	base, baseOK := c.memberOfFilter(x, f.Bound.Set, at)
	if !baseOK {
		s := c.set(f.Bound.Set)
		c.comparableMember(x, s, at)
		var err error
		if base, err = s.Contains(x); err != nil {
			c.fail(at, "%v", err)
		}
	}
	if !base {
		return false, true
	}
	return c.with(f.Bound.Names[0].Name, x).bool(f.Pred), true
}
