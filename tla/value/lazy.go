package value

import (
	"fmt"
)

// Interval is the set lo..hi (empty when hi < lo).
type Interval struct{ Lo, Hi int64 }

// Infinite is one of the infinite sets the standard modules define: Nat,
// Int, STRING, or Seq(S). Membership is decided; enumeration is an error.
type Infinite struct {
	Name string   // "Nat", "Int", "STRING" or "Seq"
	Elem SetValue // for Seq: the element set
}

// Subset is SUBSET Base.
type Subset struct{ Base SetValue }

// FuncSet is [Dom -> Rng].
type FuncSet struct{ Dom, Rng SetValue }

// RecordSet is [f1 : S1, ..., fn : Sn]; Names are sorted.
type RecordSet struct {
	Names []string
	Sets  []SetValue
}

// Product is S1 \X ... \X Sn.
type Product struct{ Sets []SetValue }

// Diff is A \ B kept lazy because A is infinite.
type Diff struct{ A, B SetValue }

func (*Diff) Kind() Kind     { return KindSet }
func (s *Diff) hash() uint64 { return hashLazy(s) }

func (s *Diff) Contains(v Value) (bool, error) {
	if in, err := s.A.Contains(v); err != nil || !in {
		return false, err
	}
	in, err := s.B.Contains(v)
	return !in, err
}

func (s *Diff) Enumerate() (*Set, error) { return s.enumerate(nil) }

func (s *Diff) enumerate(b Budget) (*Set, error) {
	a, err := EnumerateWithin(s.A, b)
	if err != nil {
		return nil, err
	}
	bs, err := EnumerateWithin(s.B, b)
	if err != nil {
		return nil, err
	}
	return a.Minus(bs), nil
}

// Cap is A \cap B where neither side can be enumerated.
type Cap struct{ A, B SetValue }

func (*Cap) Kind() Kind     { return KindSet }
func (s *Cap) hash() uint64 { return hashLazy(s) }

func (s *Cap) Contains(v Value) (bool, error) {
	if in, err := s.A.Contains(v); err != nil || !in {
		return false, err
	}
	return s.B.Contains(v)
}

func (s *Cap) Enumerate() (*Set, error) { return s.enumerate(nil) }

func (s *Cap) enumerate(b Budget) (*Set, error) {
	a, err := EnumerateWithin(s.A, b)
	if err != nil {
		return nil, err
	}
	bs, err := EnumerateWithin(s.B, b)
	if err != nil {
		return nil, err
	}
	return a.Intersect(bs), nil
}

// Cup is A \cup B kept lazy because one side cannot be enumerated cheaply.
type Cup struct{ A, B SetValue }

func (*Interval) Kind() Kind  { return KindSet }
func (*Infinite) Kind() Kind  { return KindSet }
func (*Subset) Kind() Kind    { return KindSet }
func (*FuncSet) Kind() Kind   { return KindSet }
func (*RecordSet) Kind() Kind { return KindSet }
func (*Product) Kind() Kind   { return KindSet }
func (*Cup) Kind() Kind       { return KindSet }

// Filter is {x \in Base : P} over a Base that cannot be enumerated (Nat,
// Seq(S)): TLC decides membership in it, as in [Jug -> {n \in Nat : n > 0}],
// without enumerating it. Keep is P; Src is how the set prints.
type Filter struct {
	Base SetValue
	Src  string
	Keep func(Value) (bool, error)
}

func (*Filter) Kind() Kind     { return KindSet }
func (s *Filter) hash() uint64 { return hashLazy(s) }

func (s *Filter) Contains(v Value) (bool, error) {
	in, err := s.Base.Contains(v)
	if err != nil || !in {
		return false, err
	}
	return s.Keep(v)
}

func (s *Filter) Enumerate() (*Set, error) {
	return nil, fmt.Errorf("%s: %w", s.Src, ErrInfinite)
}

func hashLazy(s SetValue) uint64 {
	e, err := s.Enumerate()
	if err != nil {
		return hashString(0x1f83d9abfb41bd6b, Format(s))
	}
	return e.hash()
}

func (s *Interval) hash() uint64  { return hashLazy(s) }
func (s *Infinite) hash() uint64  { return hashLazy(s) }
func (s *Subset) hash() uint64    { return hashLazy(s) }
func (s *FuncSet) hash() uint64   { return hashLazy(s) }
func (s *RecordSet) hash() uint64 { return hashLazy(s) }
func (s *Product) hash() uint64   { return hashLazy(s) }
func (s *Cup) hash() uint64       { return hashLazy(s) }

// Len returns the number of elements of the interval.
func (s *Interval) Len() int64 {
	if s.Hi < s.Lo {
		return 0
	}
	return s.Hi - s.Lo + 1
}

func (s *Interval) Contains(v Value) (bool, error) {
	n, ok := v.(Int)
	if !ok {
		if v.Kind() == KindModel {
			return false, nil
		}
		return false, notMember(v, s, "integers")
	}
	return int64(n) >= s.Lo && int64(n) <= s.Hi, nil
}

// isModel reports whether v is a model value, which is in no set of
// integers, strings, functions or sets.
func isModel(v Value) bool { return v.Kind() == KindModel }

func (s *Interval) Enumerate() (*Set, error) { return s.enumerate(nil) }

func (s *Interval) enumerate(b Budget) (*Set, error) {
	n := s.Len()
	if n > MaxEnumerate {
		return nil, fmt.Errorf("%d..%d: %w", s.Lo, s.Hi, ErrTooLarge)
	}
	if err := spend(b, int(n)); err != nil {
		return nil, err
	}
	elems := make([]Value, n)
	for i := range elems {
		elems[i] = Int(s.Lo + int64(i))
	}
	return newSorted(elems), nil
}

func (s *Infinite) Contains(v Value) (bool, error) {
	if isModel(v) {
		return false, nil
	}
	switch s.Name {
	case "Nat":
		n, ok := v.(Int)
		if !ok {
			return false, notMember(v, s, "integers")
		}
		return n >= 0, nil
	case "Int":
		if _, ok := v.(Int); !ok {
			return false, notMember(v, s, "integers")
		}
		return true, nil
	case "STRING":
		if _, ok := v.(String); !ok {
			return false, notMember(v, s, "strings")
		}
		return true, nil
	case "Seq":
		f, ok := v.(*Func)
		if !ok {
			return false, notMember(v, s, "sequences")
		}
		if !f.seq {
			return false, nil
		}
		for _, x := range f.vals {
			if in, err := s.Elem.Contains(x); err != nil || !in {
				return false, err
			}
		}
		return true, nil
	}
	return false, fmt.Errorf("unknown infinite set %s", s.Name)
}

func (s *Infinite) Enumerate() (*Set, error) { return s.enumerate(nil) }

func (s *Infinite) enumerate(b Budget) (*Set, error) {
	return nil, fmt.Errorf("%s: %w", Format(s), ErrInfinite)
}

func (s *Subset) Contains(v Value) (bool, error) {
	x, ok := v.(SetValue)
	if !ok {
		if isModel(v) {
			return false, nil
		}
		return false, notMember(v, s, "sets")
	}
	xs, err := x.Enumerate()
	if err != nil {
		return false, err
	}
	return xs.SubsetOf(s.Base)
}

func (s *Subset) Enumerate() (*Set, error) { return s.enumerate(nil) }

func (s *Subset) enumerate(b Budget) (*Set, error) {
	base, err := EnumerateWithin(s.Base, b)
	if err != nil {
		return nil, err
	}
	n := len(base.elems)
	if n >= 24 {
		return nil, fmt.Errorf("SUBSET of a set of %d elements: %w", n, ErrTooLarge)
	}
	// Each subset is a set of n/2 elements on average.
	if err := spend(b, (1<<n)*(1+n/2)); err != nil {
		return nil, err
	}
	// The subsets are made in the order of canonical sets (by size, then
	// element by element), so that no sort follows: sorting 2^n sets took
	// longer than making them, and could not be interrupted. base is
	// sorted, so the combinations of its indices in lexicographic order
	// are the subsets of one size in order.
	out := make([]Value, 0, 1<<n)
	idx := make([]int, n)
	for k := 0; k <= n; k++ {
		for i := range k {
			idx[i] = i
		}
		for {
			if len(out)%spendEvery == spendEvery-1 {
				if err := spend(b, spendEvery); err != nil {
					return nil, err
				}
			}
			elems := make([]Value, k)
			for i, j := range idx[:k] {
				elems[i] = base.elems[j]
			}
			out = append(out, newSorted(elems))
			// The next combination: the rightmost index that can grow
			// grows, and those after it follow it.
			i := k - 1
			for i >= 0 && idx[i] == n-k+i {
				i--
			}
			if i < 0 {
				break
			}
			idx[i]++
			for j := i + 1; j < k; j++ {
				idx[j] = idx[j-1] + 1
			}
		}
	}
	return newSorted(out), nil
}

func (s *FuncSet) Contains(v Value) (bool, error) {
	f, ok := v.(*Func)
	if !ok {
		if isModel(v) {
			return false, nil
		}
		return false, notMember(v, s, "functions")
	}
	dom, err := s.Dom.Enumerate()
	if err != nil {
		return false, err
	}
	if len(dom.elems) != len(f.keys) {
		return false, nil
	}
	for i, k := range f.keys {
		if eq, err := EqualStrict(k, dom.elems[i]); err != nil || !eq {
			return false, err
		}
		if in, err := s.Rng.Contains(f.vals[i]); err != nil || !in {
			return false, err
		}
	}
	return true, nil
}

func (s *FuncSet) Enumerate() (*Set, error) { return s.enumerate(nil) }

func (s *FuncSet) enumerate(b Budget) (*Set, error) {
	dom, err := EnumerateWithin(s.Dom, b)
	if err != nil {
		return nil, err
	}
	rng, err := EnumerateWithin(s.Rng, b)
	if err != nil {
		return nil, err
	}
	sets := make([]*Set, len(dom.elems))
	for i := range sets {
		sets[i] = rng
	}
	var out []Value
	err = product(sets, b, func(vals []Value) {
		out = append(out, &Func{keys: dom.elems, vals: vals, seq: isOneToN(dom.elems)})
	})
	if err != nil {
		return nil, err
	}
	return NewSetOwned(out), nil
}

func (s *RecordSet) Contains(v Value) (bool, error) {
	f, ok := v.(*Func)
	if !ok {
		if isModel(v) {
			return false, nil
		}
		return false, notMember(v, s, "records")
	}
	if len(f.keys) != len(s.Names) {
		return false, nil
	}
	for i, name := range s.Names {
		x, ok := f.Field(name)
		if !ok {
			return false, nil
		}
		if in, err := s.Sets[i].Contains(x); err != nil || !in {
			return false, err
		}
	}
	return true, nil
}

func (s *RecordSet) Enumerate() (*Set, error) { return s.enumerate(nil) }

func (s *RecordSet) enumerate(b Budget) (*Set, error) {
	sets := make([]*Set, len(s.Sets))
	for i, x := range s.Sets {
		e, err := EnumerateWithin(x, b)
		if err != nil {
			return nil, err
		}
		sets[i] = e
	}
	keys := make([]Value, len(s.Names))
	for i, n := range s.Names {
		keys[i] = String(n)
	}
	var out []Value
	err := product(sets, b, func(vals []Value) { out = append(out, NewFunc(keys, vals)) })
	if err != nil {
		return nil, err
	}
	return NewSetOwned(out), nil
}

func (s *Product) Contains(v Value) (bool, error) {
	f, ok := v.(*Func)
	if !ok {
		if isModel(v) {
			return false, nil
		}
		return false, notMember(v, s, "tuples")
	}
	if !f.seq || len(f.vals) != len(s.Sets) {
		return false, nil
	}
	for i, x := range f.vals {
		if in, err := s.Sets[i].Contains(x); err != nil || !in {
			return false, err
		}
	}
	return true, nil
}

func (s *Product) Enumerate() (*Set, error) { return s.enumerate(nil) }

func (s *Product) enumerate(b Budget) (*Set, error) {
	sets := make([]*Set, len(s.Sets))
	for i, x := range s.Sets {
		e, err := EnumerateWithin(x, b)
		if err != nil {
			return nil, err
		}
		sets[i] = e
	}
	var out []Value
	err := product(sets, b, func(vals []Value) { out = append(out, NewTuple(vals...)) })
	if err != nil {
		return nil, err
	}
	return NewSetOwned(out), nil
}

func (s *Cup) Contains(v Value) (bool, error) {
	if in, err := s.A.Contains(v); err != nil || in {
		return in, err
	}
	return s.B.Contains(v)
}

func (s *Cup) Enumerate() (*Set, error) { return s.enumerate(nil) }

func (s *Cup) enumerate(b Budget) (*Set, error) {
	a, err := EnumerateWithin(s.A, b)
	if err != nil {
		return nil, err
	}
	bs, err := EnumerateWithin(s.B, b)
	if err != nil {
		return nil, err
	}
	return a.Union(bs), nil
}

// product calls yield with every tuple of the cartesian product of sets,
// each in a fresh slice, spending from b.
func product(sets []*Set, b Budget, yield func([]Value)) error {
	total := int64(1)
	for _, s := range sets {
		total *= int64(len(s.elems))
		if total > MaxEnumerate {
			return ErrTooLarge
		}
	}
	if total == 0 {
		return nil
	}
	if err := spend(b, int(total)*(1+len(sets))); err != nil {
		return err
	}
	idx := make([]int, len(sets))
	for n := 1; ; n++ {
		if n%spendEvery == 0 {
			if err := spend(b, spendEvery); err != nil {
				return err
			}
		}
		vals := make([]Value, len(sets))
		for i, s := range sets {
			vals[i] = s.elems[idx[i]]
		}
		yield(vals)
		i := len(sets) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(sets[i].elems) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return nil
		}
	}
}

// A Budget bounds what an enumeration builds: Spend is told, before it is
// built, how many values (set elements, tuple components) an enumeration
// is about to make, and again every few thousand as it goes; an error
// stops the enumeration with that error. The evaluator's budget stops an
// enumeration it was asked to interrupt, and one that would take the heap
// over its bound.
type Budget interface {
	Spend(n int) error
}

// spendEvery is how many values an enumeration builds between two calls
// of its budget.
const spendEvery = 4096

func spend(b Budget, n int) error {
	if b == nil {
		return nil
	}
	return b.Spend(n)
}

// EnumerateWithin is s.Enumerate, spending from b as it builds values
// (b nil: no bound).
func EnumerateWithin(s SetValue, b Budget) (*Set, error) {
	if l, ok := s.(interface{ enumerate(Budget) (*Set, error) }); ok && b != nil {
		return l.enumerate(b)
	}
	return s.Enumerate()
}
