package specrt

import (
	"fmt"
	"math"
)

// Bit is the bitset holding only element i.
func Bit(i int) uint64 {
	if i < 0 || i >= 64 {
		panic(fmt.Sprintf("model: element %d does not fit a 64-bit set", i))
	}
	return uint64(1) << uint(i)
}

// B2I is 1 for true and 0 for false (boolean action parameters).
func B2I(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Append returns a new sequence: s with e appended (s is not modified).
func Append[T any](s []T, e T) []T {
	r := make([]T, len(s)+1)
	copy(r, s)
	r[len(s)] = e
	return r
}

// Concat returns a new sequence a \o b.
func Concat[T any](a, b []T) []T {
	r := make([]T, 0, len(a)+len(b))
	return append(append(r, a...), b...)
}

// AddInt is a + b; it panics on 64-bit overflow, where the interpreter
// reports an error.
func AddInt(a, b int) int {
	r := a + b
	if (r > a) != (b > 0) {
		panic(fmt.Sprintf("model: %d + %d overflows", a, b))
	}
	return r
}

// SubInt is a - b, checked like AddInt.
func SubInt(a, b int) int {
	r := a - b
	if (r < a) != (b > 0) {
		panic(fmt.Sprintf("model: %d - %d overflows", a, b))
	}
	return r
}

// MulInt is a * b, checked like AddInt.
func MulInt(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	r := a * b
	if r/b != a || (a == -1 && b == math.MinInt) || (b == -1 && a == math.MinInt) {
		panic(fmt.Sprintf("model: %d * %d overflows", a, b))
	}
	return r
}

// FloorDiv is TLA+'s \div (rounds toward negative infinity).
func FloorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// FloorMod is TLA+'s % (the result has the sign of b > 0).
func FloorMod(a, b int) int {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// Mix folds x into the fingerprint h (the finalizer of MurmurHash3 over
// a boost::hash_combine step): what compiled states hash with.
func Mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}
