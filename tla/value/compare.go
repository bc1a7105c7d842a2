package value

import (
	"cmp"
	"strings"
)

// Compare is a total order on values: first by kind, then by content. Sets
// and functions compare by size first. It is the order of canonical sets;
// it agrees with TLC's order on integers and strings (so that CHOOSE picks
// the same element where it matters), not on every kind.
func Compare(a, b Value) int {
	// Values of one type, the usual case (the fields of two records, the
	// elements of a set), are compared without the general dispatch.
	switch x := a.(type) {
	case String:
		if y, ok := b.(String); ok {
			return strings.Compare(string(x), string(y))
		}
	case Int:
		if y, ok := b.(Int); ok {
			return cmp.Compare(x, y)
		}
	case *Model:
		if y, ok := b.(*Model); ok {
			return compareModels(x, y)
		}
	case *Func:
		if y, ok := b.(*Func); ok {
			return compareFuncs(x, y)
		}
	}
	if a == b {
		return 0
	}
	ka, kb := a.Kind(), b.Kind()
	if ka != kb {
		return cmp.Compare(ka, kb)
	}
	switch x := a.(type) {
	case Bool:
		y := b.(Bool)
		switch {
		case x == y:
			return 0
		case !bool(x):
			return -1
		}
		return 1
	case Int:
		return cmp.Compare(x, b.(Int))
	case String:
		return strings.Compare(string(x), string(b.(String)))
	case *Model:
		return compareModels(x, b.(*Model))
	case *Func:
		return compareFuncs(x, b.(*Func))
	}
	// Sets, explicit or lazy.
	sa, ea := explicit(a)
	sb, eb := explicit(b)
	if ea != nil || eb != nil {
		// Infinite sets are only ever compared with each other by name.
		return strings.Compare(Format(a), Format(b))
	}
	if sa == sb {
		return 0
	}
	if c := cmp.Compare(len(sa.elems), len(sb.elems)); c != 0 {
		return c
	}
	for i := range sa.elems {
		if c := Compare(sa.elems[i], sb.elems[i]); c != 0 {
			return c
		}
	}
	return 0
}

func explicit(v Value) (*Set, error) {
	if s, ok := v.(*Set); ok {
		return s, nil
	}
	return v.(SetValue).Enumerate()
}

// Equal reports whether a and b are the same value.
func Equal(a, b Value) bool {
	if a == b {
		return true
	}
	if a.Kind() != b.Kind() {
		return false
	}
	switch x := a.(type) {
	case Bool, Int, String:
		return a == b
	case *Model:
		return x.Name == b.(*Model).Name
	case *Func:
		y := b.(*Func)
		if len(x.keys) != len(y.keys) || hashesDiffer(x.h.Load(), y.h.Load()) {
			return false
		}
	case *Set:
		if y, ok := b.(*Set); ok {
			if len(x.elems) != len(y.elems) || hashesDiffer(x.h.Load(), y.h.Load()) {
				return false
			}
		}
	}
	return Compare(a, b) == 0
}

// sameKeys reports whether f and g share their domain slice (records of
// one constructor, a function and its EXCEPT), so that comparing them can
// skip the domain.
// search is slices.BinarySearchFunc(sorted, v, Compare), with Compare
// called directly: sets and domains are searched at every step of a
// model checker.
func search(sorted []Value, v Value) (int, bool) {
	i, j := 0, len(sorted)
	for i < j {
		h := int(uint(i+j) >> 1)
		if Compare(sorted[h], v) < 0 {
			i = h + 1
		} else {
			j = h
		}
	}
	return i, i < len(sorted) && Compare(sorted[i], v) == 0
}

func compareFuncs(x, y *Func) int {
	if x == y {
		return 0
	}
	if c := cmp.Compare(len(x.keys), len(y.keys)); c != 0 {
		return c
	}
	if !sameKeys(x, y) {
		for i := range x.keys {
			if c := Compare(x.keys[i], y.keys[i]); c != 0 {
				return c
			}
		}
	}
	for i := range x.vals {
		if c := Compare(x.vals[i], y.vals[i]); c != 0 {
			return c
		}
	}
	return 0
}

func compareModels(x, y *Model) int {
	if x == y {
		return 0
	}
	return strings.Compare(x.Name, y.Name)
}

// sameKeys reports, cheaply, that f and g have the same domain: the same
// keys, or both 1..n for one n (sequences, whose keys are not always
// shared).
func sameKeys(f, g *Func) bool {
	if len(f.keys) != len(g.keys) {
		return false
	}
	return f.seq && g.seq || len(f.keys) > 0 && &f.keys[0] == &g.keys[0]
}

// hashesDiffer reports whether two cached hashes (0: not computed) prove
// their values differ.
func hashesDiffer(a, b uint64) bool { return a != 0 && b != 0 && a != b }
