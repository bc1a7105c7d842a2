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
	h := uint64(0xbb67ae8584caa73b) ^ uint64(len(vals))
	for i, v := range vals {
		h = mix(h, Int(i+1).hash())
		h = mix(h, v.hash())
	}
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
