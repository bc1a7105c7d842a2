package eval

import (
	"errors"
	"math"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// builtin evaluates an application of a built-in operator.
func (c *ctx) builtin(n *callBuiltin) value.Value {
	if n.cache >= 0 {
		return c.constant(n.cache, n)
	}
	a := n.args
	at := pos(n)
	switch n.op {
	case tla.OpPrime:
		return c.primedCtx(at).eval(a[0])
	case tla.OpAnd:
		return value.Bool(c.bool(a[0]) && c.bool(a[1]))
	case tla.OpOr:
		return value.Bool(c.bool(a[0]) || c.bool(a[1]))
	case tla.OpImplies:
		return value.Bool(!c.bool(a[0]) || c.bool(a[1]))
	case tla.OpEquiv:
		return value.Bool(c.bool(a[0]) == c.bool(a[1]))
	case tla.OpNot:
		return value.Bool(!c.bool(a[0]))
	case tla.OpEq:
		return value.Bool(c.equal(c.eval(a[0]), c.eval(a[1]), at))
	case tla.OpNeq:
		return value.Bool(!c.equal(c.eval(a[0]), c.eval(a[1]), at))
	case tla.OpIn, tla.OpNotIn:
		x := c.eval(a[0])
		if in, ok := c.memberOfFilter(x, a[1], at); ok {
			return value.Bool(in == (n.op == tla.OpIn))
		}
		s := c.set(a[1])
		c.comparableMember(x, s, at)
		in, err := s.Contains(x)
		if err != nil {
			var te *tla.Error
			if c.stopError(err) || errors.As(err, &te) {
				// A stop, or an error evaluating the predicate of an
				// infinite set filter, at its own position.
				panic(evalPanic{err})
			}
			c.fail(at, "%v", err)
		}
		return value.Bool(in == (n.op == tla.OpIn))
	case tla.OpUnchanged:
		return value.Bool(c.unchanged(a[0]))
	case tla.OpEnabled:
		return value.Bool(c.enabled(a[0]))
	case tla.OpAlways, tla.OpEventually, tla.OpLeadsTo, tla.OpWhilePlus:
		c.fail(at, "temporal operator %s cannot be evaluated in a state; it belongs in a property", n.op)
	case tla.OpAssert:
		if !c.bool(a[0]) {
			c.fail(at, "Assert failed: %s", value.Format(c.eval(a[1])))
		}
		return value.True
	case tla.OpPrint:
		v := c.eval(a[0])
		c.print(value.Format(v))
		return c.eval(a[1])
	case tla.OpPrintT:
		c.print(value.Format(c.eval(a[0])))
		return value.True
	case tla.OpTLCEval:
		// TLCEval(v) is v; for TLC it only asks for eager evaluation.
		return c.eval(a[0])
	case tla.OpRandomElement:
		// An arbitrary element, as TLC picks one at random: allowed where
		// the choice cannot make the state graph depend on the order of
		// evaluation (constants, ASSUME), and made reproducible there.
		if c.s == nil && c.t == nil {
			s := c.enumerate(a[0])
			if s.Len() == 0 {
				c.fail(at, "RandomElement of the empty set")
			}
			return s.Elems()[c.sc.spec.random(s.Len())]
		}
		c.fail(at, "RandomElement is supported in constant expressions only (in a state its value would not be a function of the state)")
	case tla.OpTLCGet:
		return c.tlcGet(a, at)
	case tla.OpTLCSet:
		return c.tlcSet(a, at)
	case tla.OpJavaTime, tla.OpAny:
		c.fail(at, "%s is not supported by roomspec (its value is not a function of the state)", n.op)
	case tla.OpSelectSeq:
		// The test is an operator argument.
		s := c.fn(a[0])
		test := c.closureOf(n.ops[1])
		var out []value.Value
		for _, x := range s.Vals() {
			v := c.callClosure(test, []value.Value{x}, at)
			b, ok := v.(value.Bool)
			if !ok {
				c.fail(n.ops[1].at, "the test of SelectSeq must be a boolean, found %s", value.Format(v))
			}
			if b {
				out = append(out, x)
			}
		}
		return value.NewTuple(out...)
	case tla.OpSortSeq:
		s := c.fn(a[0])
		less := c.closureOf(n.ops[1])
		vals := append([]value.Value(nil), s.Vals()...)
		for i := 1; i < len(vals); i++ {
			for j := i; j > 0; j-- {
				v := c.callClosure(less, []value.Value{vals[j], vals[j-1]}, at)
				b, ok := v.(value.Bool)
				if !ok {
					c.fail(n.ops[1].at, "the order of SortSeq must be a boolean, found %s", value.Format(v))
				}
				if !bool(b) {
					break
				}
				vals[j], vals[j-1] = vals[j-1], vals[j]
			}
		}
		return value.NewTuple(vals...)
	case tla.OpBagOfAll:
		f := c.closureOf(n.ops[0])
		b := c.fn(a[1])
		out := value.EmptyFunc
		for i, k := range b.Keys() {
			img := c.callClosure(f, []value.Value{k}, at)
			out = bagAdd(out, img, int64(b.Vals()[i].(value.Int)))
		}
		return out
	}
	args := make([]value.Value, len(a))
	for i, x := range a {
		args[i] = c.eval(x)
	}
	return c.applyBuiltinValues(n.op, args, at)
}

// print sends the output of Print and PrintT to the spec's Print hook.
func (c *ctx) print(s string) {
	if f := c.sc.spec.Print; f != nil {
		f(s)
	}
}

func (c *ctx) asInt(v value.Value, at tla.Pos) int64 {
	i, ok := v.(value.Int)
	if !ok {
		c.fail(at, "expected an integer, found %s", value.Format(v))
	}
	return int64(i)
}

func (c *ctx) asSet(v value.Value, at tla.Pos) value.SetValue {
	s, ok := v.(value.SetValue)
	if !ok {
		c.fail(at, "expected a set, found %s", value.Format(v))
	}
	return s
}

func (c *ctx) asFunc(v value.Value, at tla.Pos) *value.Func {
	f, ok := v.(*value.Func)
	if !ok {
		c.fail(at, "expected a function, found %s", value.Format(v))
	}
	return f
}

func (c *ctx) asSeq(v value.Value, at tla.Pos) *value.Func {
	f, ok := v.(*value.Func)
	if !ok || !f.IsSeq() {
		c.fail(at, "expected a sequence, found %s", value.Format(v))
	}
	return f
}

// applyBuiltinValues applies a built-in operator to evaluated arguments.
func (c *ctx) applyBuiltinValues(op tla.Op, a []value.Value, at tla.Pos) value.Value {
	if want := tla.BuiltinOf(op).Arity(); want != len(a) {
		c.fail(at, "%s takes %d arguments, got %d", op, want, len(a))
	}
	switch op {
	case tla.OpPlus, tla.OpMinus, tla.OpTimes, tla.OpRealDiv, tla.OpDiv, tla.OpMod, tla.OpExp:
		return c.arith(op, c.asInt(a[0], at), c.asInt(a[1], at), at)
	case tla.OpNeg:
		x := c.asInt(a[0], at)
		if x == math.MinInt64 {
			c.fail(at, "integer overflow in -%d", x)
		}
		return value.Int(-x)
	case tla.OpRange:
		return &value.Interval{Lo: c.asInt(a[0], at), Hi: c.asInt(a[1], at)}
	case tla.OpLt:
		return value.Bool(c.asInt(a[0], at) < c.asInt(a[1], at))
	case tla.OpGt:
		return value.Bool(c.asInt(a[0], at) > c.asInt(a[1], at))
	case tla.OpLe:
		return value.Bool(c.asInt(a[0], at) <= c.asInt(a[1], at))
	case tla.OpGe:
		return value.Bool(c.asInt(a[0], at) >= c.asInt(a[1], at))
	case tla.OpEq:
		return value.Bool(c.equal(a[0], a[1], at))
	case tla.OpNeq:
		return value.Bool(!c.equal(a[0], a[1], at))
	case tla.OpIn, tla.OpNotIn:
		c.comparableMember(a[0], c.asSet(a[1], at), at)
		in, err := c.asSet(a[1], at).Contains(a[0])
		if err != nil {
			c.fail(at, "%v", err)
		}
		return value.Bool(in == (op == tla.OpIn))
	case tla.OpAnd, tla.OpOr, tla.OpImplies, tla.OpEquiv, tla.OpNot:
		bs := make([]bool, len(a))
		for i, x := range a {
			b, ok := x.(value.Bool)
			if !ok {
				c.fail(at, "expected a boolean, found %s", value.Format(x))
			}
			bs[i] = bool(b)
		}
		switch op {
		case tla.OpAnd:
			return value.Bool(bs[0] && bs[1])
		case tla.OpOr:
			return value.Bool(bs[0] || bs[1])
		case tla.OpImplies:
			return value.Bool(!bs[0] || bs[1])
		case tla.OpEquiv:
			return value.Bool(bs[0] == bs[1])
		}
		return value.Bool(!bs[0])
	case tla.OpCup:
		x, y := c.asSet(a[0], at), c.asSet(a[1], at)
		xs, ex := x.(*value.Set)
		ys, ey := y.(*value.Set)
		if ex && ey {
			return xs.Union(ys)
		}
		return &value.Cup{A: x, B: y}
	case tla.OpCap:
		x, y := c.asSet(a[0], at), c.asSet(a[1], at)
		if xs, ok := x.(*value.Set); ok {
			if ys, ok := y.(*value.Set); ok {
				return xs.Intersect(ys)
			}
			return c.filterIn(xs, y, true, at)
		}
		if ys, ok := y.(*value.Set); ok {
			return c.filterIn(ys, x, true, at)
		}
		if xs, err := x.Enumerate(); err == nil {
			return c.filterIn(xs, y, true, at)
		}
		return &value.Cap{A: x, B: y}
	case tla.OpSetMinus:
		x, y := c.asSet(a[0], at), c.asSet(a[1], at)
		xs, err := x.Enumerate()
		if err != nil {
			return &value.Diff{A: x, B: y}
		}
		if ys, ok := y.(*value.Set); ok {
			return xs.Minus(ys)
		}
		return c.filterIn(xs, y, false, at)
	case tla.OpSubseteq:
		x, y := c.asSet(a[0], at), c.asSet(a[1], at)
		xs := c.enumerateValue(at, x)
		sub, err := xs.SubsetOf(y)
		if err != nil {
			c.fail(at, "%v", err)
		}
		return value.Bool(sub)
	case tla.OpPowerset:
		return &value.Subset{Base: c.asSet(a[0], at)}
	case tla.OpUnion:
		outer := c.enumerateValue(at, c.asSet(a[0], at))
		u := value.EmptySet
		var lazy value.SetValue
		for _, s := range outer.Elems() {
			set := c.asSet(s, at)
			es, explicit := set.(*value.Set)
			if !explicit {
				// UNION {[S -> Int]}: kept lazy, for membership tests;
				// enumerated only if it must be.
				if lazy == nil {
					lazy = set
				} else {
					lazy = &value.Cup{A: lazy, B: set}
				}
				continue
			}
			u = u.Union(es)
		}
		if lazy != nil {
			return &value.Cup{A: u, B: lazy}
		}
		return u
	case tla.OpDomain:
		return c.asFunc(a[0], at).Domain()
	case tla.OpSeq:
		return &value.Infinite{Name: "Seq", Elem: c.asSet(a[0], at)}
	case tla.OpLen:
		if s, ok := a[0].(value.String); ok {
			return value.Int(len(s))
		}
		return value.Int(c.asSeq(a[0], at).Len())
	case tla.OpConcat:
		if s, ok := a[0].(value.String); ok {
			t, ok := a[1].(value.String)
			if !ok {
				c.fail(at, "cannot concatenate string %s with %s", value.Format(s), value.Format(a[1]))
			}
			return s + t
		}
		x, y := c.asSeq(a[0], at), c.asSeq(a[1], at)
		c.reserve(2 * (x.Len() + y.Len()))
		vals := make([]value.Value, 0, x.Len()+y.Len())
		vals = append(vals, x.Vals()...)
		vals = append(vals, y.Vals()...)
		return value.NewTuple(vals...)
	case tla.OpAppend:
		s := c.asSeq(a[0], at)
		c.reserve(2 * s.Len())
		return s.Append(a[1])
	case tla.OpHead:
		s := c.asSeq(a[0], at)
		if s.Len() == 0 {
			c.fail(at, "Head of the empty sequence")
		}
		return s.Vals()[0]
	case tla.OpTail:
		s := c.asSeq(a[0], at)
		if s.Len() == 0 {
			c.fail(at, "Tail of the empty sequence")
		}
		c.reserve(2 * s.Len())
		return value.NewTuple(append([]value.Value(nil), s.Vals()[1:]...)...)
	case tla.OpSubSeq:
		m, n := c.asInt(a[1], at), c.asInt(a[2], at)
		if str, ok := a[0].(value.String); ok {
			// TLC's SubSeq takes strings too.
			if m > n {
				return value.String("")
			}
			if m < 1 || n > int64(len(str)) {
				c.fail(at, "SubSeq(s, %d, %d) is out of range for a string of length %d", m, n, len(str))
			}
			return str[m-1 : n]
		}
		s := c.asSeq(a[0], at)
		if m > n {
			return value.EmptyFunc
		}
		if m < 1 || n > int64(s.Len()) {
			c.fail(at, "SubSeq(s, %d, %d) is out of range for a sequence of length %d", m, n, s.Len())
		}
		return value.NewTuple(append([]value.Value(nil), s.Vals()[m-1:n]...)...)
	case tla.OpCardinality:
		s := c.asSet(a[0], at)
		if iv, ok := s.(*value.Interval); ok {
			return value.Int(iv.Len())
		}
		return value.Int(c.enumerateValue(at, s).Len())
	case tla.OpIsFiniteSet:
		_, err := c.asSet(a[0], at).Enumerate()
		return value.Bool(err == nil)
	case tla.OpSingleton:
		return value.NewFunc([]value.Value{a[0]}, []value.Value{a[1]})
	case tla.OpMerge:
		return c.asFunc(a[0], at).Merge(c.asFunc(a[1], at))
	case tla.OpToString:
		return value.String(value.Format(a[0]))
	case tla.OpPermutations:
		s := c.enumerateValue(at, c.asSet(a[0], at))
		n, count := s.Len(), 1
		for i := 2; i <= n && count <= value.MaxEnumerate; i++ {
			count *= i
		}
		if count > value.MaxEnumerate {
			c.fail(at, "Permutations of a set of %d elements: %v", n, value.ErrTooLarge)
		}
		c.reserve(count * (1 + n))
		return permutations(s)
	case tla.OpPrint:
		c.print(value.Format(a[0]))
		return a[1]
	case tla.OpPrintT:
		c.print(value.Format(a[0]))
		return value.True
	case tla.OpAssert:
		if b, ok := a[0].(value.Bool); !ok || !bool(b) {
			c.fail(at, "Assert failed: %s", value.Format(a[1]))
		}
		return value.True
	// Bags: functions from elements to positive counts.
	case tla.OpIsABag:
		f, ok := a[0].(*value.Func)
		if !ok {
			return value.False
		}
		for _, v := range f.Vals() {
			if n, ok := v.(value.Int); !ok || n <= 0 {
				return value.False
			}
		}
		return value.True
	case tla.OpBagToSet:
		return c.asFunc(a[0], at).Domain()
	case tla.OpSetToBag:
		s := c.enumerateValue(at, c.asSet(a[0], at))
		vals := make([]value.Value, s.Len())
		for i := range vals {
			vals[i] = value.Int(1)
		}
		return value.NewFunc(append([]value.Value(nil), s.Elems()...), vals)
	case tla.OpBagIn:
		_, ok := c.asFunc(a[1], at).Apply(a[0])
		return value.Bool(ok)
	case tla.OpCopiesIn:
		if v, ok := c.asFunc(a[1], at).Apply(a[0]); ok {
			return v
		}
		return value.Int(0)
	case tla.OpBagAdd:
		out := c.asFunc(a[0], at)
		b := c.asFunc(a[1], at)
		for i, k := range b.Keys() {
			out = bagAdd(out, k, c.asInt(b.Vals()[i], at))
		}
		return out
	case tla.OpBagSub:
		out := c.asFunc(a[0], at)
		b := c.asFunc(a[1], at)
		for i, k := range b.Keys() {
			out = bagAdd(out, k, -c.asInt(b.Vals()[i], at))
		}
		return out
	case tla.OpBagUnion:
		out := value.EmptyFunc
		s := c.enumerateValue(at, c.asSet(a[0], at))
		for _, b := range s.Elems() {
			bf := c.asFunc(b, at)
			for i, k := range bf.Keys() {
				out = bagAdd(out, k, c.asInt(bf.Vals()[i], at))
			}
		}
		return out
	case tla.OpSqSubseteq:
		x, y := c.asFunc(a[0], at), c.asFunc(a[1], at)
		for i, k := range x.Keys() {
			n := c.asInt(x.Vals()[i], at)
			m := int64(0)
			if v, ok := y.Apply(k); ok {
				m = c.asInt(v, at)
			}
			if n > m {
				return value.False
			}
		}
		return value.True
	case tla.OpSubBag:
		b := c.asFunc(a[0], at)
		sets := make([]*value.Set, b.Len())
		for i := range sets {
			sets[i] = c.enumerateValue(at, &value.Interval{Lo: 0, Hi: c.asInt(b.Vals()[i], at)})
		}
		var out []value.Value
		var rec func(i int, acc *value.Func)
		rec = func(i int, acc *value.Func) {
			if i == len(sets) {
				out = append(out, acc)
				return
			}
			for _, n := range sets[i].Elems() {
				rec(i+1, bagAdd(acc, b.Keys()[i], int64(n.(value.Int))))
			}
		}
		rec(0, value.EmptyFunc)
		return value.NewSetOwned(out)
	case tla.OpBagCardinality:
		b := c.asFunc(a[0], at)
		var n int64
		for _, v := range b.Vals() {
			n += c.asInt(v, at)
		}
		return value.Int(n)
	}
	b := tla.BuiltinOf(op)
	c.fail(at, "%s of the standard module %s is not supported by roomspec's evaluator", b.Name, b.Module)
	return nil
}

// bagAdd adds n copies of x to bag b, dropping elements whose count falls
// to zero or below.
func bagAdd(b *value.Func, x value.Value, n int64) *value.Func {
	cur := int64(0)
	if v, ok := b.Apply(x); ok {
		cur = int64(v.(value.Int))
	}
	total := cur + n
	var keys, vals []value.Value
	for i, k := range b.Keys() {
		if value.Equal(k, x) {
			continue
		}
		keys = append(keys, k)
		vals = append(vals, b.Vals()[i])
	}
	if total > 0 {
		keys = append(keys, x)
		vals = append(vals, value.Int(total))
	}
	return value.NewFunc(keys, vals)
}

func permutations(s *value.Set) value.Value {
	elems := s.Elems()
	n := len(elems)
	var out []value.Value
	perm := make([]int, n)
	used := make([]bool, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			vals := make([]value.Value, n)
			for j, p := range perm {
				vals[j] = elems[p]
			}
			out = append(out, value.NewFunc(append([]value.Value(nil), elems...), vals))
			return
		}
		for j := 0; j < n; j++ {
			if !used[j] {
				used[j] = true
				perm[i] = j
				rec(i + 1)
				used[j] = false
			}
		}
	}
	rec(0)
	return value.NewSetOwned(out)
}
