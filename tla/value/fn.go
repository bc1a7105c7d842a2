package value

import (
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Func is a function with a finite domain. Tuples and sequences are
// functions whose domain is 1..n, records are functions whose domain is a
// set of strings: all share this one representation, so that, as in TLA+,
// <<a, b>> equals [i \in 1..2 |-> ...] and a record equals the function
// with the same graph.
type Func struct {
	keys []Value // the domain, sorted by Compare
	vals []Value // vals[i] is the image of keys[i]
	seq  bool    // keys are exactly 1..len(keys), so lookups index directly
	// h caches the hash (0: not yet computed) and models whether a model
	// value occurs in the function (0 unknown, 1 no, 2 yes). Values are
	// shared by the checker's workers, which may fill a cache at the same
	// time: both are atomic (the same answer is written either way).
	h      atomic.Uint64
	models atomic.Uint32
}

// EmptyFunc is the function with the empty domain, also the empty tuple.
var EmptyFunc = &Func{seq: true}

// NewFunc returns the function mapping keys[i] to vals[i]. The slices are
// taken over. Keys must be distinct.
func NewFunc(keys, vals []Value) *Func {
	if len(keys) == 0 {
		return EmptyFunc
	}
	if !sortedUnique(keys) {
		idx := make([]int, len(keys))
		for i := range idx {
			idx[i] = i
		}
		slices.SortFunc(idx, func(a, b int) int { return Compare(keys[a], keys[b]) })
		k2 := make([]Value, len(keys))
		v2 := make([]Value, len(vals))
		for i, j := range idx {
			k2[i], v2[i] = keys[j], vals[j]
		}
		keys, vals = k2, v2
	}
	return &Func{keys: keys, vals: vals, seq: isOneToN(keys)}
}

// NewTuple returns the tuple (sequence) <<elems...>>, taking over elems.
func NewTuple(elems ...Value) *Func {
	if len(elems) == 0 {
		return EmptyFunc
	}
	return &Func{keys: oneTo(len(elems)), vals: elems, seq: true}
}

// oneTo returns the keys 1..n. Tuples are built at every step of a search
// (a message, an edge of a graph): up to len(sharedOneTo) they share one
// array of keys, which is never written, rather than each allocating its
// own; sharing also lets an encoder find their domain by the keys'
// address.
func oneTo(n int) []Value {
	if n <= len(sharedOneTo) {
		return sharedOneTo[:n:n]
	}
	return newOneTo(n)
}

var sharedOneTo = newOneTo(256)

// newOneTo allocates the keys 1..n.
func newOneTo(n int) []Value {
	keys := make([]Value, n)
	for i := range keys {
		keys[i] = Int(i + 1)
	}
	return keys
}

// RecordShape is the domain of the records a record constructor
// [f1 |-> e1, ...] builds, sorted once so that each record is built without
// sorting or converting names.
type RecordShape struct {
	keys  []Value // the field names, sorted, shared by every record built
	order []int   // order[i]: the position in the constructor of keys[i]
}

// NewRecordShape returns the shape of records with the given (distinct)
// field names, in constructor order.
func NewRecordShape(names []string) *RecordShape {
	sh := &RecordShape{keys: make([]Value, len(names)), order: make([]int, len(names))}
	for i := range names {
		sh.order[i] = i
	}
	slices.SortFunc(sh.order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
	for i, j := range sh.order {
		sh.keys[i] = String(names[j])
	}
	return sh
}

// Record returns the record with this shape whose fields have the values
// vals, in constructor order. It does not keep vals, which the caller may
// keep on its stack.
func (sh *RecordShape) Record(vals []Value) *Func {
	if len(vals) == 0 {
		return EmptyFunc
	}
	f := newFunc(len(vals))
	f.keys = sh.keys
	for i, j := range sh.order {
		f.vals[i] = vals[j]
	}
	return f
}

// withVals is a function allocated with its images, an array A of values.
type withVals[A any] struct {
	f Func
	a A
}

// newFuncOf allocates a function with its images, an array A of values.
func newFuncOf[A any]() *Func {
	p := new(withVals[A])
	// p.a is an array of values: its address is that of its first value.
	p.f.vals = unsafe.Slice((*Value)(unsafe.Pointer(&p.a)), unsafe.Sizeof(p.a)/unsafe.Sizeof(Value(nil)))
	return &p.f
}

// smallFuncs make the functions of up to 6 images.
var smallFuncs = [...]func() *Func{
	1: newFuncOf[[1]Value], 2: newFuncOf[[2]Value], 3: newFuncOf[[3]Value],
	4: newFuncOf[[4]Value], 5: newFuncOf[[5]Value], 6: newFuncOf[[6]Value],
}

// newFunc returns a function with n images to fill in, allocated with them
// for the small functions (records, mostly) that are built and updated at
// every step of a search: one allocation instead of two.
func newFunc(n int) *Func {
	if n > 0 && n < len(smallFuncs) {
		return smallFuncs[n]()
	}
	return &Func{vals: make([]Value, n)}
}

// NewRecord returns the record with the given fields; names need not be
// sorted.
func NewRecord(names []string, vals []Value) *Func {
	keys := make([]Value, len(names))
	for i, n := range names {
		keys[i] = String(n)
	}
	return NewFunc(keys, vals)
}

func isOneToN(keys []Value) bool {
	for i, k := range keys {
		if n, ok := k.(Int); !ok || int(n) != i+1 {
			return false
		}
	}
	return true
}

func (*Func) Kind() Kind { return KindFunc }

func (f *Func) hash() uint64 {
	if h := f.h.Load(); h != 0 {
		return h
	}
	var acc uint64
	for i := range f.keys {
		acc += pairHash(f.keys[i].hash(), f.vals[i].hash())
	}
	h := funcHash(len(f.keys), acc)
	f.h.Store(h)
	return h
}

// Len returns the size of the domain.
func (f *Func) Len() int { return len(f.keys) }

// IsSeq reports whether the domain is 1..n for some n >= 0.
func (f *Func) IsSeq() bool { return f.seq }

// IsRecord reports whether the domain is a non-empty set of strings.
func (f *Func) IsRecord() bool {
	if len(f.keys) == 0 {
		return false
	}
	for _, k := range f.keys {
		if _, ok := k.(String); !ok {
			return false
		}
	}
	return true
}

// Keys returns the domain in canonical order; callers must not modify it.
func (f *Func) Keys() []Value { return f.keys }

// Vals returns the images, parallel to Keys; callers must not modify it.
func (f *Func) Vals() []Value { return f.vals }

// Domain returns DOMAIN f.
func (f *Func) Domain() *Set { return newSorted(f.keys) }

// Apply returns f[x] and whether x is in the domain.
func (f *Func) Apply(x Value) (Value, bool) {
	if f.seq {
		if n, ok := x.(Int); ok && n >= 1 && int64(n) <= int64(len(f.vals)) {
			return f.vals[n-1], true
		}
		return nil, false
	}
	i, found := search(f.keys, x)
	if !found {
		return nil, false
	}
	return f.vals[i], true
}

// index returns the position of x in the domain, or -1.
func (f *Func) index(x Value) int {
	if f.seq {
		if n, ok := x.(Int); ok && n >= 1 && int64(n) <= int64(len(f.vals)) {
			return int(n - 1)
		}
		return -1
	}
	i, found := search(f.keys, x)
	if !found {
		return -1
	}
	return i
}

// Update returns [f EXCEPT ![x] = v] and whether x was in the domain (if
// not, f is returned unchanged, as TLC does).
func (f *Func) Update(x, v Value) (*Func, bool) {
	i := f.index(x)
	if i < 0 {
		return f, false
	}
	if Equal(f.vals[i], v) {
		return f, true
	}
	f2 := newFunc(len(f.vals))
	copy(f2.vals, f.vals)
	f2.vals[i] = v
	f2.keys, f2.seq = f.keys, f.seq
	return f2, true
}

// Field returns the value of record field name.
func (f *Func) Field(name string) (Value, bool) {
	// Strings sort after booleans and integers and before the rest, and
	// among themselves as Go strings: search without building a Value.
	lo, hi := 0, len(f.keys)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		k := f.keys[m]
		var c int
		if ks, ok := k.(String); ok {
			c = strings.Compare(string(ks), name)
		} else if k.Kind() < KindString {
			c = -1
		} else {
			c = 1
		}
		switch {
		case c == 0:
			return f.vals[m], true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return nil, false
}

// Append returns the sequence f with v appended; f must be a sequence.
func (f *Func) Append(v Value) *Func {
	vals := make([]Value, len(f.vals)+1)
	copy(vals, f.vals)
	vals[len(f.vals)] = v
	return NewTuple(vals...)
}

// Merge returns f @@ g: f's graph, plus g's for arguments not in DOMAIN f.
func (f *Func) Merge(g *Func) *Func {
	keys := slices.Clone(f.keys)
	vals := slices.Clone(f.vals)
	for i, k := range g.keys {
		if f.index(k) < 0 {
			keys = append(keys, k)
			vals = append(vals, g.vals[i])
		}
	}
	return NewFunc(keys, vals)
}
