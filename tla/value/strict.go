package value

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
)

// ErrIncomparable is wrapped by the errors of EqualStrict, CompareStrict and
// the membership tests of sets when they meet two values that TLA+ does not
// say are equal or different (an integer and a string, say). TLC stops with
// an error there; a checker that answered FALSE would prove things the spec
// does not say.
var ErrIncomparable = errors.New("values of different kinds cannot be compared")

// IncomparableError names the two values that could not be compared.
type IncomparableError struct{ A, B Value }

func (e *IncomparableError) Error() string {
	return fmt.Sprintf("cannot compare %s with %s, a value of another kind", Format(e.A), Format(e.B))
}

// Unwrap returns ErrIncomparable.
func (e *IncomparableError) Unwrap() error { return ErrIncomparable }

// comparable reports whether values of kinds a and b can be compared: the
// same kind, or a model value, which differs from every other value.
func comparableKinds(a, b Kind) bool { return a == b || a == KindModel || b == KindModel }

// CompareStrict is Compare that fails, as TLC does, where it would order
// two values of different kinds, at any depth (model values aside). Only
// the pairs the comparison actually reaches are checked.
func CompareStrict(a, b Value) (int, error) {
	// Values of one type: see Compare.
	switch x := a.(type) {
	case String:
		if y, ok := b.(String); ok {
			return strings.Compare(string(x), string(y)), nil
		}
	case Int:
		if y, ok := b.(Int); ok {
			return cmp.Compare(x, y), nil
		}
	case *Model:
		if y, ok := b.(*Model); ok {
			return compareModels(x, y), nil
		}
	case *Func:
		if y, ok := b.(*Func); ok {
			return compareFuncsStrict(x, y)
		}
	}
	if a == b {
		return 0, nil
	}
	ka, kb := a.Kind(), b.Kind()
	if ka != kb {
		if !comparableKinds(ka, kb) {
			return 0, &IncomparableError{a, b}
		}
		return cmp.Compare(ka, kb), nil
	}
	switch x := a.(type) {
	case *Func:
		return compareFuncsStrict(x, b.(*Func))
	case Bool, Int, String, *Model:
		return Compare(a, b), nil
	}
	sa, ea := explicit(a)
	sb, eb := explicit(b)
	if ea != nil || eb != nil {
		return strings.Compare(Format(a), Format(b)), nil
	}
	if c := cmp.Compare(len(sa.elems), len(sb.elems)); c != 0 {
		return c, nil
	}
	for i := range sa.elems {
		if c, err := CompareStrict(sa.elems[i], sb.elems[i]); c != 0 || err != nil {
			return c, err
		}
	}
	return 0, nil
}

func compareFuncsStrict(x, y *Func) (int, error) {
	if x == y {
		return 0, nil
	}
	if c := cmp.Compare(len(x.keys), len(y.keys)); c != 0 {
		return c, nil
	}
	// Functions with different domains differ (a tuple is not a record);
	// images at the same argument must be comparable.
	if !sameKeys(x, y) {
		for i := range x.keys {
			if c := Compare(x.keys[i], y.keys[i]); c != 0 {
				return c, nil
			}
		}
	}
	for i := range x.vals {
		if c, err := CompareStrict(x.vals[i], y.vals[i]); c != 0 || err != nil {
			return c, err
		}
	}
	return 0, nil
}

// EqualStrict is Equal that fails where CompareStrict does.
func EqualStrict(a, b Value) (bool, error) {
	if a == b {
		return true, nil
	}
	ka, kb := a.Kind(), b.Kind()
	if ka != kb {
		if !comparableKinds(ka, kb) {
			return false, &IncomparableError{a, b}
		}
		return false, nil
	}
	switch x := a.(type) {
	case Bool, Int, String:
		return a == b, nil
	case *Model:
		return x.Name == b.(*Model).Name, nil
	}
	c, err := CompareStrict(a, b)
	return c == 0 && err == nil, err
}

// hasStrict is Has with CompareStrict.
// It compares v with the elements search would, so that it fails where
// a comparison on that path does.
func (s *Set) hasStrict(v Value) (bool, error) {
	i, j := 0, len(s.elems)
	for i < j {
		h := int(uint(i+j) >> 1)
		c, err := CompareStrict(s.elems[h], v)
		if err != nil {
			return false, err
		}
		if c < 0 {
			i = h + 1
		} else {
			j = h
		}
	}
	if i == len(s.elems) {
		return false, nil
	}
	c, err := CompareStrict(s.elems[i], v)
	return c == 0 && err == nil, err
}

// notMember is the error of a membership test of a value that is not of
// the kind a set's elements are: TLC stops there rather than answer FALSE.
func notMember(v Value, s SetValue, what string) error {
	return fmt.Errorf("cannot test whether %s is in %s, a set of %s: %w", Format(v), Format(s), what, ErrIncomparable)
}
