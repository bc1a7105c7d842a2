package eval

import (
	"math"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// builtinConstant returns the value of a built-in zero-argument operator.
func builtinConstant(name string) (value.Value, bool) {
	switch name {
	case "BOOLEAN":
		return value.NewSet(value.False, value.True), true
	case "Nat", "Int", "STRING":
		return &value.Infinite{Name: name}, true
	case "EmptyBag":
		return value.EmptyFunc, true
	}
	return nil, false
}

var builtinArity = map[string]int{
	"+": 2, "-": 2, "*": 2, "/": 2, "\\div": 2, "%": 2, "^": 2, "..": 2,
	"<": 2, ">": 2, "<=": 2, ">=": 2, "=": 2, "/=": 2, "\\in": 2, "\\notin": 2,
	"\\cup": 2, "\\cap": 2, "\\": 2, "\\subseteq": 2, "\\subset": 2, "\\supseteq": 2, "\\supset": 2,
	"=>": 2, "<=>": 2, "/\\": 2, "\\/": 2, "~": 1, "-.": 1,
	"\\o": 2, ":>": 2, "@@": 2, "SUBSET": 1, "UNION": 1, "DOMAIN": 1,
	"Len": 1, "Append": 2, "Head": 1, "Tail": 1, "SubSeq": 3, "SelectSeq": 2, "Seq": 1,
	"Cardinality": 1, "IsFiniteSet": 1,
	"Print": 2, "PrintT": 1, "Assert": 2, "ToString": 1, "Permutations": 1, "SortSeq": 2,
	"IsABag": 1, "BagToSet": 1, "SetToBag": 1, "BagIn": 2, "CopiesIn": 2, "(+)": 2, "(-)": 2,
	"\\oplus": 2, "\\ominus": 2, "BagUnion": 1, "\\sqsubseteq": 2, "SubBag": 1, "BagOfAll": 2,
	"BagCardinality": 1, "TLCEval": 1, "RandomElement": 1,
}

func isBuiltinOp(name string) bool {
	_, ok := builtinArity[name]
	return ok
}

// opApp evaluates an operator application.
func (c *ctx) opApp(n *tla.OpApp) value.Value {
	if op, ok := c.resolveOp(n); ok {
		return c.userApp(&op, n)
	}
	a := n.Args
	switch n.Name {
	case "\\cup", "\\cap", "\\", "SUBSET", "UNION", "..":
		// Sets such as Ballot \cup {-1} in a type invariant.
		if v, ok := c.constant(n); ok {
			return v
		}
	}
	switch n.Name {
	case "'":
		return c.primedCtx(n.At).eval(a[0])
	case "/\\":
		return value.Bool(c.bool(a[0]) && c.bool(a[1]))
	case "\\/":
		return value.Bool(c.bool(a[0]) || c.bool(a[1]))
	case "=>":
		return value.Bool(!c.bool(a[0]) || c.bool(a[1]))
	case "<=>":
		return value.Bool(c.bool(a[0]) == c.bool(a[1]))
	case "~":
		return value.Bool(!c.bool(a[0]))
	case "=":
		return value.Bool(c.equal(c.eval(a[0]), c.eval(a[1]), n.At))
	case "/=":
		return value.Bool(!c.equal(c.eval(a[0]), c.eval(a[1]), n.At))
	case "\\in", "\\notin":
		x := c.eval(a[0])
		if in, ok := c.memberOfFilter(x, a[1], n.At); ok {
			return value.Bool(in == (n.Name == "\\in"))
		}
		s := c.set(a[1])
		c.comparableMember(x, s, n.At)
		in, err := s.Contains(x)
		if err != nil {
			c.fail(n.At, "%v", err)
		}
		return value.Bool(in == (n.Name == "\\in"))
	case "UNCHANGED":
		return value.Bool(c.unchanged(a[0]))
	case "ENABLED":
		return value.Bool(c.enabled(a[0]))
	case "[]", "<>", "~>", "-+->":
		c.fail(n.At, "temporal operator %s cannot be evaluated in a state; it belongs in a property", n.Name)
	case "Assert":
		if !c.bool(a[0]) {
			c.fail(n.At, "Assert failed: %s", value.Format(c.eval(a[1])))
		}
		return value.True
	case "Print":
		v := c.eval(a[0])
		c.print(value.Format(v))
		return c.eval(a[1])
	case "PrintT":
		c.print(value.Format(c.eval(a[0])))
		return value.True
	case "TLCEval":
		// TLCEval(v) is v; for TLC it only asks for eager evaluation.
		if len(a) == 1 {
			return c.eval(a[0])
		}
	case "RandomElement":
		// An arbitrary element, as TLC picks one at random: allowed where
		// the choice cannot make the state graph depend on the order of
		// evaluation (constants, ASSUME), and made reproducible there.
		if len(a) == 1 && c.s == nil && c.t == nil {
			s := c.enumerate(a[0])
			if s.Len() == 0 {
				c.fail(n.At, "RandomElement of the empty set")
			}
			return s.Elems()[c.sc.spec.random(s.Len())]
		}
		c.fail(n.At, "RandomElement is supported in constant expressions only (in a state its value would not be a function of the state)")
	case "TLCGet":
		return c.tlcGet(a, n.At)
	case "TLCSet":
		return c.tlcSet(a, n.At)
	case "JavaTime", "Any":
		c.fail(n.At, "%s is not supported by roomspec (its value is not a function of the state)", n.Name)
	}
	if len(n.Prefix) > 0 {
		c.fail(n.At, "unknown operator %s", n.Name)
	}
	want, ok := builtinArity[n.Name]
	if !ok {
		if n.Fix == tla.FixCall && len(a) == 0 {
			if v, ok := builtinConstant(n.Name); ok {
				return v
			}
		}
		c.fail(n.At, "unknown operator %s", n.Name)
	}
	if want != len(a) {
		c.fail(n.At, "%s takes %d arguments, got %d", n.Name, want, len(a))
	}
	if n.Name == "SelectSeq" {
		// The test is an operator argument.
		s := c.fn(a[0])
		test := c.opArg(a[1], &tla.Param{Name: "Test", Arity: 1})
		var out []value.Value
		for _, x := range s.Vals() {
			v := c.callClosure(test, []value.Value{x}, n.At)
			b, ok := v.(value.Bool)
			if !ok {
				c.fail(a[1].Pos(), "the test of SelectSeq must be a boolean, found %s", value.Format(v))
			}
			if b {
				out = append(out, x)
			}
		}
		return value.NewTuple(out...)
	}
	if n.Name == "SortSeq" {
		s := c.fn(a[0])
		less := c.opArg(a[1], &tla.Param{Name: "Op", Arity: 2})
		vals := append([]value.Value(nil), s.Vals()...)
		for i := 1; i < len(vals); i++ {
			for j := i; j > 0; j-- {
				v := c.callClosure(less, []value.Value{vals[j], vals[j-1]}, n.At)
				b, ok := v.(value.Bool)
				if !ok {
					c.fail(a[1].Pos(), "the order of SortSeq must be a boolean, found %s", value.Format(v))
				}
				if !bool(b) {
					break
				}
				vals[j], vals[j-1] = vals[j-1], vals[j]
			}
		}
		return value.NewTuple(vals...)
	}
	if n.Name == "BagOfAll" {
		f := c.opArg(a[0], &tla.Param{Name: "F", Arity: 1})
		b := c.fn(a[1])
		out := value.EmptyFunc
		for i, k := range b.Keys() {
			img := c.callClosure(f, []value.Value{k}, n.At)
			out = bagAdd(out, img, int64(b.Vals()[i].(value.Int)))
		}
		return out
	}
	args := make([]value.Value, len(a))
	for i, x := range a {
		args[i] = c.eval(x)
	}
	return c.applyBuiltinValues(n.Name, args, n.At)
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
func (c *ctx) applyBuiltinValues(name string, a []value.Value, at tla.Pos) value.Value {
	if want, ok := builtinArity[name]; ok && want != len(a) {
		c.fail(at, "%s takes %d arguments, got %d", name, want, len(a))
	}
	switch name {
	case "+", "-", "*", "/", "\\div", "%", "^":
		return c.arith(name, c.asInt(a[0], at), c.asInt(a[1], at), at)
	case "-.":
		x := c.asInt(a[0], at)
		if x == math.MinInt64 {
			c.fail(at, "integer overflow in -%d", x)
		}
		return value.Int(-x)
	case "..":
		return &value.Interval{Lo: c.asInt(a[0], at), Hi: c.asInt(a[1], at)}
	case "<":
		return value.Bool(c.asInt(a[0], at) < c.asInt(a[1], at))
	case ">":
		return value.Bool(c.asInt(a[0], at) > c.asInt(a[1], at))
	case "<=":
		return value.Bool(c.asInt(a[0], at) <= c.asInt(a[1], at))
	case ">=":
		return value.Bool(c.asInt(a[0], at) >= c.asInt(a[1], at))
	case "=":
		return value.Bool(c.equal(a[0], a[1], at))
	case "/=":
		return value.Bool(!c.equal(a[0], a[1], at))
	case "\\in", "\\notin":
		c.comparableMember(a[0], c.asSet(a[1], at), at)
		in, err := c.asSet(a[1], at).Contains(a[0])
		if err != nil {
			c.fail(at, "%v", err)
		}
		return value.Bool(in == (name == "\\in"))
	case "/\\", "\\/", "=>", "<=>", "~":
		bs := make([]bool, len(a))
		for i, x := range a {
			b, ok := x.(value.Bool)
			if !ok {
				c.fail(at, "expected a boolean, found %s", value.Format(x))
			}
			bs[i] = bool(b)
		}
		switch name {
		case "/\\":
			return value.Bool(bs[0] && bs[1])
		case "\\/":
			return value.Bool(bs[0] || bs[1])
		case "=>":
			return value.Bool(!bs[0] || bs[1])
		case "<=>":
			return value.Bool(bs[0] == bs[1])
		}
		return value.Bool(!bs[0])
	case "\\cup":
		x, y := c.asSet(a[0], at), c.asSet(a[1], at)
		xs, ex := x.(*value.Set)
		ys, ey := y.(*value.Set)
		if ex && ey {
			return xs.Union(ys)
		}
		return &value.Cup{A: x, B: y}
	case "\\cap":
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
	case "\\":
		x, y := c.asSet(a[0], at), c.asSet(a[1], at)
		xs, err := x.Enumerate()
		if err != nil {
			return &value.Diff{A: x, B: y}
		}
		if ys, ok := y.(*value.Set); ok {
			return xs.Minus(ys)
		}
		return c.filterIn(xs, y, false, at)
	case "\\subseteq", "\\subset", "\\supseteq", "\\supset":
		x, y := c.asSet(a[0], at), c.asSet(a[1], at)
		if name == "\\supseteq" || name == "\\supset" {
			x, y = y, x
		}
		xs := c.enumerateValue(at, x)
		sub, err := xs.SubsetOf(y)
		if err != nil {
			c.fail(at, "%v", err)
		}
		if sub && (name == "\\subset" || name == "\\supset") {
			ys := c.enumerateValue(at, y)
			return value.Bool(xs.Len() < ys.Len())
		}
		return value.Bool(sub)
	case "SUBSET":
		return &value.Subset{Base: c.asSet(a[0], at)}
	case "UNION":
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
	case "DOMAIN":
		return c.asFunc(a[0], at).Domain()
	case "Seq":
		return &value.Infinite{Name: "Seq", Elem: c.asSet(a[0], at)}
	case "Len":
		if s, ok := a[0].(value.String); ok {
			return value.Int(len(s))
		}
		return value.Int(c.asSeq(a[0], at).Len())
	case "\\o":
		if s, ok := a[0].(value.String); ok {
			t, ok := a[1].(value.String)
			if !ok {
				c.fail(at, "cannot concatenate string %s with %s", value.Format(s), value.Format(a[1]))
			}
			return s + t
		}
		x, y := c.asSeq(a[0], at), c.asSeq(a[1], at)
		vals := make([]value.Value, 0, x.Len()+y.Len())
		vals = append(vals, x.Vals()...)
		vals = append(vals, y.Vals()...)
		return value.NewTuple(vals...)
	case "Append":
		return c.asSeq(a[0], at).Append(a[1])
	case "Head":
		s := c.asSeq(a[0], at)
		if s.Len() == 0 {
			c.fail(at, "Head of the empty sequence")
		}
		return s.Vals()[0]
	case "Tail":
		s := c.asSeq(a[0], at)
		if s.Len() == 0 {
			c.fail(at, "Tail of the empty sequence")
		}
		return value.NewTuple(append([]value.Value(nil), s.Vals()[1:]...)...)
	case "SubSeq":
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
	case "Cardinality":
		s := c.asSet(a[0], at)
		if iv, ok := s.(*value.Interval); ok {
			return value.Int(iv.Len())
		}
		return value.Int(c.enumerateValue(at, s).Len())
	case "IsFiniteSet":
		_, err := c.asSet(a[0], at).Enumerate()
		return value.Bool(err == nil)
	case ":>":
		return value.NewFunc([]value.Value{a[0]}, []value.Value{a[1]})
	case "@@":
		return c.asFunc(a[0], at).Merge(c.asFunc(a[1], at))
	case "ToString":
		return value.String(value.Format(a[0]))
	case "Permutations":
		s := c.enumerateValue(at, c.asSet(a[0], at))
		return permutations(s)
	case "Print":
		c.print(value.Format(a[0]))
		return a[1]
	case "PrintT":
		c.print(value.Format(a[0]))
		return value.True
	case "Assert":
		if b, ok := a[0].(value.Bool); !ok || !bool(b) {
			c.fail(at, "Assert failed: %s", value.Format(a[1]))
		}
		return value.True
	// Bags: functions from elements to positive counts.
	case "IsABag":
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
	case "BagToSet":
		return c.asFunc(a[0], at).Domain()
	case "SetToBag":
		s := c.enumerateValue(at, c.asSet(a[0], at))
		vals := make([]value.Value, s.Len())
		for i := range vals {
			vals[i] = value.Int(1)
		}
		return value.NewFunc(append([]value.Value(nil), s.Elems()...), vals)
	case "BagIn":
		_, ok := c.asFunc(a[1], at).Apply(a[0])
		return value.Bool(ok)
	case "CopiesIn":
		if v, ok := c.asFunc(a[1], at).Apply(a[0]); ok {
			return v
		}
		return value.Int(0)
	case "(+)", "\\oplus":
		out := c.asFunc(a[0], at)
		b := c.asFunc(a[1], at)
		for i, k := range b.Keys() {
			out = bagAdd(out, k, c.asInt(b.Vals()[i], at))
		}
		return out
	case "(-)", "\\ominus":
		out := c.asFunc(a[0], at)
		b := c.asFunc(a[1], at)
		for i, k := range b.Keys() {
			out = bagAdd(out, k, -c.asInt(b.Vals()[i], at))
		}
		return out
	case "BagUnion":
		out := value.EmptyFunc
		s := c.enumerateValue(at, c.asSet(a[0], at))
		for _, b := range s.Elems() {
			bf := c.asFunc(b, at)
			for i, k := range bf.Keys() {
				out = bagAdd(out, k, c.asInt(bf.Vals()[i], at))
			}
		}
		return out
	case "\\sqsubseteq":
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
	case "SubBag":
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
	case "BagCardinality":
		b := c.asFunc(a[0], at)
		var n int64
		for _, v := range b.Vals() {
			n += c.asInt(v, at)
		}
		return value.Int(n)
	}
	c.fail(at, "unknown operator %s", name)
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
