package value

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCanonicalEquality(t *testing.T) {
	tests := []struct {
		name string
		a, b Value
		eq   bool
	}{
		{"set order and duplicates", NewSet(Int(2), Int(1), Int(2)), NewSet(Int(1), Int(2)), true},
		{"tuple is a function on 1..n", NewTuple(String("a"), String("b")),
			NewFunc([]Value{Int(2), Int(1)}, []Value{String("b"), String("a")}), true},
		{"record is a function on strings", NewRecord([]string{"b", "a"}, []Value{Int(2), Int(1)}),
			NewFunc([]Value{String("a"), String("b")}, []Value{Int(1), Int(2)}), true},
		{"empty tuple is the empty function", NewTuple(), NewFunc(nil, nil), true},
		{"interval equals its enumeration", &Interval{1, 3}, NewSet(Int(1), Int(2), Int(3)), true},
		{"different kinds differ", Int(1), String("1"), false},
		{"model values by name", &Model{"a"}, &Model{"a"}, true},
		{"sets of sets", NewSet(NewSet(Int(1)), EmptySet), NewSet(EmptySet, NewSet(Int(1))), true},
		{"empty set is not the empty function", EmptySet, EmptyFunc, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.eq, Equal(tt.a, tt.b))
			if tt.eq {
				assert.Equal(t, Hash(tt.a), Hash(tt.b), "equal values must hash equally")
				assert.Zero(t, Compare(tt.a, tt.b))
			} else {
				assert.NotZero(t, Compare(tt.a, tt.b))
			}
		})
	}
}

func TestLazySets(t *testing.T) {
	s := &Subset{Base: NewSet(Int(1), Int(2))}
	e, err := s.Enumerate()
	require.NoError(t, err)
	assert.Equal(t, "{{}, {1}, {2}, {1, 2}}", Format(e))

	fs := &FuncSet{Dom: NewSet(String("x")), Rng: &Interval{0, 1}}
	e, err = fs.Enumerate()
	require.NoError(t, err)
	assert.Equal(t, `{[x |-> 0], [x |-> 1]}`, Format(e))
	in, err := fs.Contains(NewRecord([]string{"x"}, []Value{Int(1)}))
	require.NoError(t, err)
	assert.True(t, in)

	nat := &Infinite{Name: "Nat"}
	in, _ = nat.Contains(Int(-1))
	assert.False(t, in)
	_, err = nat.Enumerate()
	assert.ErrorIs(t, err, ErrInfinite)

	seq := &Infinite{Name: "Seq", Elem: NewSet(Int(1))}
	in, _ = seq.Contains(NewTuple(Int(1), Int(1)))
	assert.True(t, in)
	in, _ = seq.Contains(NewTuple(Int(2)))
	assert.False(t, in)

	p := &Product{Sets: []SetValue{NewSet(Int(1), Int(2)), NewSet(String("a"))}}
	e, err = p.Enumerate()
	require.NoError(t, err)
	assert.Equal(t, `{<<1, "a">>, <<2, "a">>}`, Format(e))
}

func TestSetAlgebra(t *testing.T) {
	a := NewSet(Int(1), Int(2), Int(3))
	b := NewSet(Int(2), Int(4))
	assert.Equal(t, "{1, 2, 3, 4}", Format(a.Union(b)))
	assert.Equal(t, "{2}", Format(a.Intersect(b)))
	assert.Equal(t, "{1, 3}", Format(a.Minus(b)))
	assert.Equal(t, "{0, 1, 2, 3}", Format(a.Add(Int(0))))
}

func TestFuncOps(t *testing.T) {
	f := NewTuple(Int(10), Int(20))
	g, ok := f.Update(Int(2), Int(21))
	require.True(t, ok)
	assert.Equal(t, "<<10, 21>>", Format(g))
	assert.Equal(t, "<<10, 20>>", Format(f), "update must not mutate")
	_, ok = f.Update(Int(3), Int(0))
	assert.False(t, ok)
	h := NewFunc([]Value{String("a")}, []Value{Int(1)}).Merge(NewFunc([]Value{Int(7), String("a")}, []Value{Int(2), Int(3)}))
	assert.Equal(t, `(7 :> 2 @@ "a" :> 1)`, Format(h))
	assert.Equal(t, "<<10, 20, 30>>", Format(f.Append(Int(30))))
}

func TestHashTuple(t *testing.T) {
	vals := []Value{Int(1), String("a"), NewSet(Int(2))}
	assert.Equal(t, Hash(NewTuple(vals...)), HashTuple(vals))
	assert.Equal(t, Hash(EmptyFunc), HashTuple(nil))
}

// TestSymmetryHash: the least hash over a group of permutations,
// computed without building the permuted values, is the least of the
// hashes of the permuted values, for values of every kind, some holding no
// model value, some a model value the group fixes.
func TestSymmetryHash(t *testing.T) {
	a, b, c, x, y := &Model{Name: "a"}, &Model{Name: "b"}, &Model{Name: "c"}, &Model{Name: "x"}, &Model{Name: "y"}
	other := &Model{Name: "other"}
	// The group Permutations({a, b, c}) x Permutations({x, y}), without
	// the identity.
	var perms []map[string]*Model
	for _, abc := range [][3]*Model{{a, b, c}, {a, c, b}, {b, a, c}, {b, c, a}, {c, a, b}, {c, b, a}} {
		for _, xy := range [][2]*Model{{x, y}, {y, x}} {
			p := map[string]*Model{"a": abc[0], "b": abc[1], "c": abc[2], "x": xy[0], "y": xy[1]}
			if abc[0] == a && abc[1] == b && xy[0] == x {
				continue
			}
			perms = append(perms, p)
		}
	}
	sym := NewSymmetry(perms)
	require.Equal(t, 12, sym.Len())
	h := sym.NewHasher()
	least := func(v Value) uint64 {
		m := Hash(v)
		for _, p := range perms {
			m = min(m, Hash(Permute(v, p)))
		}
		return m
	}
	vals := []Value{
		Int(3), String("s"), other, a, x,
		NewSet(a, b, Int(3)),
		NewSet(Int(1), Int(2)),
		NewFunc([]Value{a, b, c}, []Value{NewSet(b), NewTuple(c, a), String("x")}),
		NewRecord([]string{"p", "q"}, []Value{a, NewSet(NewSet(a, c), NewSet(b))}),
		NewRecord([]string{"acceptor", "value", "ballot"}, []Value{b, y, Int(2)}),
		NewSet(NewRecord([]string{"r", "v"}, []Value{a, x}), NewRecord([]string{"r", "v"}, []Value{c, y}), other),
		NewTuple(other, NewSet(Int(1)), NewFunc([]Value{x, y}, []Value{Int(0), a})),
		EmptySet, EmptyFunc,
	}
	for _, v := range vals {
		assert.Equal(t, least(v), h.Hash(v), "%s", Format(v))
	}
	// Whole states: HashTuple is the least hash of the tuple, and equal
	// for states the group maps to each other.
	for i := range vals {
		state := vals[i:]
		assert.Equal(t, least(NewTuple(state...)), h.HashTuple(state))
	}
	s1 := []Value{NewSet(a, x), NewFunc([]Value{a, b, c}, []Value{x, y, x})}
	s2 := []Value{NewSet(c, y), NewFunc([]Value{a, b, c}, []Value{x, y, y})}
	s3 := []Value{NewSet(c, y), NewFunc([]Value{a, b, c}, []Value{y, y, x})}
	assert.Equal(t, h.HashTuple(s1), h.HashTuple(s2))
	assert.NotEqual(t, h.HashTuple(s1), h.HashTuple(s3))
}

func TestHashTupleIsTupleHash(t *testing.T) {
	vals := []Value{&Model{Name: "a"}, Int(1), NewSet(&Model{Name: "b"})}
	if HashTuple(vals) != Hash(NewTuple(vals...)) {
		t.Error("HashTuple differs from the tuple's Hash")
	}
}

// TestSubsetOrder: SUBSET S is made in the canonical order of sets, with
// no sort, so it must be the set the subsets make when sorted: every
// subset once, in order, for bases of every size up to 10 and of mixed
// kinds (a set sorts strings, integers and sets by kind).
func TestSubsetOrder(t *testing.T) {
	pool := []Value{Int(3), String("a"), NewSet(Int(1)), Int(-7), String("b"), NewTuple(Int(1)), Bool(true), Int(0), NewSet(), String("")}
	for n := 0; n <= len(pool); n++ {
		base := NewSet(pool[:n]...)
		var want []Value
		for mask := 0; mask < 1<<base.Len(); mask++ {
			var elems []Value
			for i, e := range base.Elems() {
				if mask&(1<<i) != 0 {
					elems = append(elems, e)
				}
			}
			want = append(want, NewSet(elems...))
		}
		got, err := (&Subset{Base: base}).Enumerate()
		require.NoError(t, err)
		require.Equal(t, 1<<base.Len(), got.Len(), "n=%d", n)
		assert.True(t, Equal(NewSet(want...), got), "n=%d: %s", n, Format(got))
		assert.True(t, sortedUnique(got.Elems()), "n=%d: not in canonical order: %s", n, Format(got))
	}
}

// stopAfter is a Budget that stops an enumeration once it has been told
// of more than n values.
type stopAfter struct{ n, spent int }

var errBudget = errors.New("budget spent")

func (b *stopAfter) Spend(n int) error {
	b.spent += n
	if b.spent > b.n {
		return errBudget
	}
	return nil
}

// TestEnumerateWithin: an enumeration is stopped by its budget, before it
// builds what it would be told of up front (SUBSET of 20 elements, a
// product) and as it goes; an enumeration the budget allows is the same
// as Enumerate's.
func TestEnumerateWithin(t *testing.T) {
	big := &Subset{Base: &Interval{1, 20}}
	_, err := EnumerateWithin(big, &stopAfter{n: 1 << 20})
	assert.ErrorIs(t, err, errBudget)
	fs := &FuncSet{Dom: &Interval{1, 6}, Rng: &Interval{1, 8}}
	_, err = EnumerateWithin(fs, &stopAfter{n: 1 << 20})
	assert.ErrorIs(t, err, errBudget)
	nested := &Subset{Base: &Cup{A: &Interval{1, 10}, B: &Interval{30, 39}}}
	_, err = EnumerateWithin(nested, &stopAfter{n: 1000})
	assert.ErrorIs(t, err, errBudget)

	small := &RecordSet{Names: []string{"a", "b"}, Sets: []SetValue{&Interval{1, 3}, &Subset{Base: &Interval{1, 2}}}}
	want, err := small.Enumerate()
	require.NoError(t, err)
	got, err := EnumerateWithin(small, &stopAfter{n: 1 << 20})
	require.NoError(t, err)
	assert.True(t, Equal(want, got))
	got, err = EnumerateWithin(small, nil)
	require.NoError(t, err)
	assert.True(t, Equal(want, got))
}
