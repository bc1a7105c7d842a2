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
func (c *ctx) memberOfFilter(x value.Value, setExpr expr, at tla.Pos) (in, ok bool) {
	for {
		ref, isRef := setExpr.(*defRef)
		if !isRef {
			break
		}
		d := ref.d
		if d.fn != nil || d.native != nil {
			return false, false
		}
		sc := c.scopeOf(d, ref.at)
		if d.constant && sc.cx.cached(d.cache) != nil {
			return false, false
		}
		c = c.call(sc, nil, pos(ref))
		setExpr = d.body
	}
	f, isFilter := setExpr.(*setFilter)
	if !isFilter || f.b.bounds[0].tuple {
		return false, false
	}
	bd := f.b.bounds[0]
	base, baseOK := c.memberOfFilter(x, bd.set, at)
	if !baseOK {
		s := c.set(bd.set)
		c.comparableMember(x, s, at)
		var err error
		if base, err = s.Contains(x); err != nil {
			c.fail(at, "%v", err)
		}
	}
	if !base {
		return false, true
	}
	return c.with(x).bool(f.pred), true
}
