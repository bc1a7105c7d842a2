// Package value holds the values of TLA+ as roomspec's evaluator computes
// them: booleans, integers, strings, model values, sets and functions
// (records and tuples are functions), plus lazily represented sets such as
// Nat, SUBSET S and [S -> T] that are only enumerated when they must be.
//
// Values are immutable once built. Every explicit value has one canonical
// representation (sets are sorted and deduplicated, functions are sorted by
// argument), so equality, ordering and fingerprints are structural.
package value

import (
	"errors"
	"fmt"
)

// Kind orders the kinds of values; values of different kinds compare by kind.
type Kind uint8

// The kinds of values. Lazy set kinds are only ever compared after being
// enumerated, so they share the set kind's place in the order.
const (
	KindBool Kind = iota
	KindInt
	KindString
	KindModel
	KindSet
	KindFunc
)

func (k Kind) String() string {
	switch k {
	case KindBool:
		return "boolean"
	case KindInt:
		return "integer"
	case KindString:
		return "string"
	case KindModel:
		return "model value"
	case KindSet:
		return "set"
	case KindFunc:
		return "function"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Value is a TLA+ value.
type Value interface {
	Kind() Kind
	// hash returns a fingerprint of the value; equal values hash equally.
	hash() uint64
}

// ErrInfinite is returned when an infinite set would have to be enumerated.
var ErrInfinite = errors.New("cannot enumerate an infinite set")

// ErrTooLarge is returned when enumerating a set would exceed MaxEnumerate.
var ErrTooLarge = errors.New("set too large to enumerate")

// MaxEnumerate bounds the size of any set the evaluator enumerates, so that
// a typo such as SUBSET (1..100) fails instead of exhausting memory.
const MaxEnumerate = 1 << 24

// Bool is a TLA+ boolean.
type Bool bool

// Int is a TLA+ integer. Arithmetic that overflows 64 bits is an error.
type Int int64

// String is a TLA+ string.
type String string

// Model is a model value: a constant declared in a .cfg file that is equal
// only to itself.
type Model struct {
	Name string
}

// The two boolean values, for convenience.
const (
	True  = Bool(true)
	False = Bool(false)
)

func (Bool) Kind() Kind   { return KindBool }
func (Int) Kind() Kind    { return KindInt }
func (String) Kind() Kind { return KindString }
func (*Model) Kind() Kind { return KindModel }

func (b Bool) hash() uint64 {
	if b {
		return mix(0x9e3779b97f4a7c15, 1)
	}
	return mix(0x9e3779b97f4a7c15, 2)
}
func (i Int) hash() uint64    { return mix(0x51afd7ed558ccd, uint64(i)) }
func (s String) hash() uint64 { return hashString(0xc4ceb9fe1a85ec53, string(s)) }
func (m *Model) hash() uint64 { return hashString(0x2545f4914f6cdd1d, m.Name) }

// Hash returns the fingerprint of v.
func Hash(v Value) uint64 { return v.hash() }

// HashTuple returns Hash(NewTuple(vals...)) without building the tuple:
// the fingerprint of a state is the fingerprint of its variables' tuple.
func HashTuple(vals []Value) uint64 {
	var acc uint64
	for i, v := range vals {
		acc += pairHash(Int(i+1).hash(), v.hash())
	}
	return funcHash(len(vals), acc)
}

// Sets and functions hash their elements (argument-value pairs)
// commutatively, by summing a strong mix of each: the hash of a value with
// its model values permuted can then be computed without sorting the
// permuted value (SymmetryHasher), which is what symmetry reduction needs.

func pairHash(k, v uint64) uint64 { return mix(keyHash(k), v) }

// keyHash is the part of pairHash that depends on the key only.
func keyHash(k uint64) uint64 { return mix(0x3c6ef372fe94f82b, k) }

func funcHash(n int, acc uint64) uint64 {
	h := mix(uint64(0xbb67ae8584caa73b)^uint64(n), acc)
	if h == 0 {
		h = 1
	}
	return h
}

func elemHash(e uint64) uint64 { return mix(0xa54ff53a5f1d36f1, e) }

func setHash(n int, acc uint64) uint64 {
	h := mix(uint64(0x6a09e667f3bcc908)^uint64(n), acc)
	if h == 0 {
		h = 1
	}
	return h
}

func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

func hashString(h uint64, s string) uint64 {
	const prime = 1099511628211
	f := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		f ^= uint64(s[i])
		f *= prime
	}
	return mix(h, f^uint64(len(s)))
}

// hasModels reports whether a model value occurs in v, remembering the
// answer in sets and functions (which are immutable).
func hasModels(v Value) bool {
	switch x := v.(type) {
	case *Model:
		return true
	case *Set:
		if x.models.Load() == 0 {
			m := uint32(1)
			for _, e := range x.elems {
				if hasModels(e) {
					m = 2
					break
				}
			}
			x.models.Store(m)
		}
		return x.models.Load() == 2
	case *Func:
		if x.models.Load() == 0 {
			m := uint32(1)
			for i := range x.keys {
				if hasModels(x.keys[i]) || hasModels(x.vals[i]) {
					m = 2
					break
				}
			}
			x.models.Store(m)
		}
		return x.models.Load() == 2
	case SetValue:
		return true // lazy sets: assume so
	}
	return false
}
