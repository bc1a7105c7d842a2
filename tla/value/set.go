package value

import (
	"slices"
	"sync/atomic"
)

// SetValue is implemented by every set, explicit or lazy.
type SetValue interface {
	Value
	// Contains reports whether v is an element; it never enumerates an
	// infinite set.
	Contains(v Value) (bool, error)
	// Enumerate returns the set as an explicit, canonical Set.
	Enumerate() (*Set, error)
}

// Set is an explicit finite set, sorted by Compare and free of duplicates.
type Set struct {
	elems []Value
	// h caches the hash (0: not yet computed) and models whether a model
	// value occurs in the set (0 unknown, 1 no, 2 yes), atomic as Func's.
	h      atomic.Uint64
	models atomic.Uint32
}

// EmptySet is the empty set.
var EmptySet = &Set{}

// NewSet returns the set of the given values; it sorts and deduplicates a
// copy of elems.
func NewSet(elems ...Value) *Set {
	if len(elems) == 0 {
		return EmptySet
	}
	return NewSetOwned(slices.Clone(elems))
}

// NewSetOwned is NewSet that takes ownership of elems (and reorders it).
func NewSetOwned(elems []Value) *Set {
	if len(elems) == 0 {
		return EmptySet
	}
	if !sortedUnique(elems) {
		slices.SortFunc(elems, Compare)
		elems = slices.CompactFunc(elems, Equal)
	}
	return &Set{elems: elems}
}

// newSorted wraps elems already sorted and unique.
func newSorted(elems []Value) *Set {
	if len(elems) == 0 {
		return EmptySet
	}
	return &Set{elems: elems}
}

func sortedUnique(elems []Value) bool {
	for i := 1; i < len(elems); i++ {
		if Compare(elems[i-1], elems[i]) >= 0 {
			return false
		}
	}
	return true
}

func (*Set) Kind() Kind { return KindSet }

func (s *Set) hash() uint64 {
	if h := s.h.Load(); h != 0 {
		return h
	}
	var acc uint64
	for _, e := range s.elems {
		acc += elemHash(e.hash())
	}
	h := setHash(len(s.elems), acc)
	s.h.Store(h)
	return h
}

// Len returns the number of elements.
func (s *Set) Len() int { return len(s.elems) }

// Elems returns the elements in canonical order; callers must not modify it.
func (s *Set) Elems() []Value { return s.elems }

// Contains reports whether v is in s; comparing v with an element of
// another kind is an error (see ErrIncomparable).
func (s *Set) Contains(v Value) (bool, error) { return s.hasStrict(v) }

// Has reports whether v is in s.
func (s *Set) Has(v Value) bool {
	_, found := search(s.elems, v)
	return found
}

// Enumerate returns s itself.
func (s *Set) Enumerate() (*Set, error) { return s, nil }

// Union returns s ∪ t.
func (s *Set) Union(t *Set) *Set {
	if len(t.elems) == 0 {
		return s
	}
	if len(s.elems) == 0 {
		return t
	}
	if len(t.elems) == 1 {
		// msgs \cup {m}: s itself (its hash kept) when m is already in.
		return s.Add(t.elems[0])
	}
	out := make([]Value, 0, len(s.elems)+len(t.elems))
	i, j := 0, 0
	for i < len(s.elems) && j < len(t.elems) {
		switch c := Compare(s.elems[i], t.elems[j]); {
		case c < 0:
			out = append(out, s.elems[i])
			i++
		case c > 0:
			out = append(out, t.elems[j])
			j++
		default:
			out = append(out, s.elems[i])
			i++
			j++
		}
	}
	out = append(out, s.elems[i:]...)
	out = append(out, t.elems[j:]...)
	return newSorted(out)
}

// Intersect returns s ∩ t.
func (s *Set) Intersect(t *Set) *Set {
	var out []Value
	i, j := 0, 0
	for i < len(s.elems) && j < len(t.elems) {
		switch c := Compare(s.elems[i], t.elems[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			out = append(out, s.elems[i])
			i++
			j++
		}
	}
	return newSorted(out)
}

// Minus returns s \ t.
func (s *Set) Minus(t *Set) *Set {
	var out []Value
	i, j := 0, 0
	for i < len(s.elems) {
		if j >= len(t.elems) {
			out = append(out, s.elems[i:]...)
			break
		}
		switch c := Compare(s.elems[i], t.elems[j]); {
		case c < 0:
			out = append(out, s.elems[i])
			i++
		case c > 0:
			j++
		default:
			i++
			j++
		}
	}
	if len(out) == len(s.elems) {
		return s
	}
	return newSorted(out)
}

// Add returns s ∪ {v}.
func (s *Set) Add(v Value) *Set {
	i, found := search(s.elems, v)
	if found {
		return s
	}
	out := make([]Value, 0, len(s.elems)+1)
	out = append(out, s.elems[:i]...)
	out = append(out, v)
	out = append(out, s.elems[i:]...)
	return &Set{elems: out}
}

// SubsetOf reports whether every element of s is in t.
func (s *Set) SubsetOf(t SetValue) (bool, error) {
	if ts, ok := t.(*Set); ok {
		if len(s.elems) > len(ts.elems) {
			return false, nil
		}
		for _, e := range s.elems {
			if in, err := ts.hasStrict(e); err != nil || !in {
				return false, err
			}
		}
		return true, nil
	}
	for _, e := range s.elems {
		ok, err := t.Contains(e)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}
