package specrt

import (
	"slices"
	"unsafe"
)

// Hashing and comparing read values through their Type: a value is
// reached by a pointer, a composite value's parts at their offsets, the
// elements of a slice of scalars by a loop over the slice as the Go type
// it is (every ElemKind type is an int, every StringKind one a uint8).
// These are the checker's inner loops: nothing here allocates.

// hashSeed starts every fingerprint (FNV-1a's offset basis).
const hashSeed = 0xcbf29ce484222325

// Hash is a fingerprint of *v: equal values hash equally. A record
// folds its fields in order (a state its variables), a function or
// sequence its length and then its elements.
func (t Type[V]) Hash(v *V) uint64 { return t.s.hash(hashSeed, unsafe.Pointer(v)) }

// Equal reports whether *a and *b are the same value.
func (t Type[V]) Equal(a, b *V) bool { return t.s.equal(unsafe.Pointer(a), unsafe.Pointer(b)) }

// sliceAt returns the data pointer and length of the slice at p, of any
// element type (every slice type has the layout of []byte's).
func sliceAt(p unsafe.Pointer) (unsafe.Pointer, int) {
	s := *(*[]byte)(p)
	return unsafe.Pointer(unsafe.SliceData(s)), len(s)
}

func hashBool(h uint64, b bool) uint64 {
	if b {
		return Mix(h, 1)
	}
	return Mix(h, 2)
}

func (s *shape) hash(h uint64, p unsafe.Pointer) uint64 {
	switch s.kind {
	case BoolKind:
		return hashBool(h, *(*bool)(p))
	case IntKind, ElemKind:
		return Mix(h, uint64(*(*int)(p)))
	case StringKind:
		return Mix(h, uint64(*(*uint8)(p)))
	case SetKind:
		return Mix(h, *(*uint64)(p))
	case FuncKind, SeqKind:
		data, n := sliceAt(p)
		h = Mix(h, uint64(n))
		switch s.elem.kind {
		case BoolKind:
			for _, x := range *(*[]bool)(p) {
				h = hashBool(h, x)
			}
		case IntKind, ElemKind:
			for _, x := range *(*[]int)(p) {
				h = Mix(h, uint64(x))
			}
		case StringKind:
			for _, x := range *(*[]uint8)(p) {
				h = Mix(h, uint64(x))
			}
		case SetKind:
			for _, x := range *(*[]uint64)(p) {
				h = Mix(h, x)
			}
		default:
			for i := range n {
				h = s.elem.hash(h, unsafe.Add(data, uintptr(i)*s.elem.size))
			}
		}
		return h
	case RecordKind:
		for i := range s.fields {
			f := &s.fields[i]
			h = f.t.hash(h, unsafe.Add(p, f.offset))
		}
		return h
	}
	panic("specrt: hash of " + s.kind.String())
}

func (s *shape) equal(p, q unsafe.Pointer) bool {
	switch s.kind {
	case BoolKind:
		return *(*bool)(p) == *(*bool)(q)
	case IntKind, ElemKind:
		return *(*int)(p) == *(*int)(q)
	case StringKind:
		return *(*uint8)(p) == *(*uint8)(q)
	case SetKind:
		return *(*uint64)(p) == *(*uint64)(q)
	case FuncKind, SeqKind:
		switch s.elem.kind {
		case BoolKind:
			return slices.Equal(*(*[]bool)(p), *(*[]bool)(q))
		case IntKind, ElemKind:
			return slices.Equal(*(*[]int)(p), *(*[]int)(q))
		case StringKind:
			return slices.Equal(*(*[]uint8)(p), *(*[]uint8)(q))
		case SetKind:
			return slices.Equal(*(*[]uint64)(p), *(*[]uint64)(q))
		}
		pd, n := sliceAt(p)
		qd, m := sliceAt(q)
		if n != m {
			return false
		}
		for i := range n {
			off := uintptr(i) * s.elem.size
			if !s.elem.equal(unsafe.Add(pd, off), unsafe.Add(qd, off)) {
				return false
			}
		}
		return true
	case RecordKind:
		for i := range s.fields {
			f := &s.fields[i]
			if !f.t.equal(unsafe.Add(p, f.offset), unsafe.Add(q, f.offset)) {
				return false
			}
		}
		return true
	}
	panic("specrt: equality of " + s.kind.String())
}
