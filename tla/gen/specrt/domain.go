package specrt

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/tla/value"
)

// Domain is a finite constant set whose elements are numbered 0..Size()-1
// in the interpreter's canonical order: model values by name, integers
// ascending, tuples row-major over their components.
type Domain struct {
	Name    string
	Names   []string  // model values, sorted
	Ints    []int     // integers, sorted (a set of integers)
	Comps   []*Domain // components of a product
	size    int
	strides []int
	isInts  bool
	values  []value.Value // the elements as interpreter values
}

// NewModels returns the domain of a set of model values.
func NewModels(name string, names []string) *Domain {
	ns := slices.Clone(names)
	slices.Sort(ns)
	ns = slices.Compact(ns)
	d := &Domain{Name: name, Names: ns, size: len(ns)}
	for _, n := range ns {
		d.values = append(d.values, &value.Model{Name: n})
	}
	return d
}

// NewInts returns the domain of a set of integers.
func NewInts(name string, xs ...int) *Domain {
	is := slices.Clone(xs)
	slices.Sort(is)
	is = slices.Compact(is)
	d := &Domain{Name: name, Ints: is, size: len(is), isInts: true}
	for _, x := range is {
		d.values = append(d.values, value.Int(x))
	}
	return d
}

// NewRange returns the domain lo..hi.
func NewRange(name string, lo, hi int) *Domain {
	var xs []int
	for i := lo; i <= hi; i++ {
		xs = append(xs, i)
	}
	return NewInts(name, xs...)
}

// UnionInts is the union of two sets of integers.
func UnionInts(name string, a, b *Domain) *Domain {
	return NewInts(name, append(slices.Clone(a.Ints), b.Ints...)...)
}

// InterInts is the intersection of two sets of integers.
func InterInts(name string, a, b *Domain) *Domain {
	return NewInts(name, filterInts(a, b, true)...)
}

// DiffInts is the difference of two sets of integers.
func DiffInts(name string, a, b *Domain) *Domain {
	return NewInts(name, filterInts(a, b, false)...)
}

// filterInts returns the integers of a that are (in) or are not in b.
func filterInts(a, b *Domain, in bool) []int {
	var xs []int
	for _, x := range a.Ints {
		if (b.IntIndex(x) >= 0) == in {
			xs = append(xs, x)
		}
	}
	return xs
}

// NewProduct returns the domain comps[0] \X comps[1] \X ...
func NewProduct(name string, comps ...*Domain) *Domain {
	d := &Domain{Name: name, Comps: comps, size: 1, strides: make([]int, len(comps))}
	for i := len(comps) - 1; i >= 0; i-- {
		d.strides[i] = d.size
		d.size *= comps[i].size
	}
	for i := 0; i < d.size; i++ {
		es := make([]value.Value, len(comps))
		for k, c := range comps {
			es[k] = c.values[i/d.strides[k]%c.size]
		}
		d.values = append(d.values, value.NewTuple(es...))
	}
	return d
}

// Value returns element i as an interpreter value.
func (d *Domain) Value(i int) value.Value { return d.values[i] }

// IndexOf returns the index of the interpreter value v, or false when v
// is not an element.
func (d *Domain) IndexOf(v value.Value) (int, bool) {
	// Elements are in the interpreter's canonical order: search by it.
	i, ok := slices.BinarySearchFunc(d.values, v, value.Compare)
	return i, ok && value.Equal(d.values[i], v)
}

// Size is the number of elements.
func (d *Domain) Size() int { return d.size }

// All is the set of all elements as a bitset.
func (d *Domain) All() uint64 {
	if d.size > 64 {
		panic(fmt.Sprintf("model: %s has %d elements; sets hold at most 64", d.Name, d.size))
	}
	if d.size == 64 {
		return ^uint64(0)
	}
	return uint64(1)<<uint(d.size) - 1
}

// IntIndex returns the index of the integer v, or -1.
func (d *Domain) IntIndex(v int) int {
	i, ok := slices.BinarySearch(d.Ints, v)
	if !ok {
		return -1
	}
	return i
}

// IsSeq reports whether d is 1..n (or empty): the interpreter prints
// functions over such domains as tuples.
func (d *Domain) IsSeq() bool {
	if d.size == 0 {
		return true
	}
	if !d.isInts {
		return false
	}
	return d.Ints[0] == 1 && d.Ints[len(d.Ints)-1] == len(d.Ints)
}

// Index returns the index of the tuple whose component keys (element
// indices of model components, values of integer components) are keys.
func (d *Domain) Index(keys ...int) int {
	if len(keys) != len(d.Comps) {
		panic(fmt.Sprintf("model: a %d-tuple is not an element of %s", len(keys), d.Name))
	}
	idx := 0
	for i, k := range keys {
		c := d.Comps[i]
		p := k
		if c.isInts {
			p = c.IntIndex(k)
		}
		if p < 0 || p >= c.size {
			panic(fmt.Sprintf("model: component %d (%d) of a tuple is not in %s", i+1, k, c.Name))
		}
		idx += p * d.strides[i]
	}
	return idx
}

// Comp returns the key of component k of element i of a product.
func (d *Domain) Comp(i, k int) int {
	c := d.Comps[k]
	p := i / d.strides[k] % c.size
	if c.isInts {
		return c.Ints[p]
	}
	return p
}

// Format prints element i as the interpreter prints it.
func (d *Domain) Format(b *strings.Builder, i int) {
	switch {
	case d.Comps != nil:
		writeAll(b, "<<", ", ", ">>", upTo(len(d.Comps)), func(b *strings.Builder, k int) {
			d.Comps[k].Format(b, i/d.strides[k]%d.Comps[k].size)
		})
	case d.isInts:
		b.WriteString(strconv.Itoa(d.Ints[i]))
	default:
		b.WriteString(d.Names[i])
	}
}

// String returns element i as the interpreter prints it.
func (d *Domain) String(i int) string {
	var b strings.Builder
	d.Format(&b, i)
	return b.String()
}

// FormatSet prints the whole domain as a TLA+ set.
func (d *Domain) FormatSet(b *strings.Builder) { writeAll(b, "{", ", ", "}", upTo(d.size), d.Format) }

// Equal reports whether two domains have the same elements.
func (d *Domain) Equal(o *Domain) bool {
	if d.size != o.size || d.isInts != o.isInts || !slices.Equal(d.Names, o.Names) || !slices.Equal(d.Ints, o.Ints) || len(d.Comps) != len(o.Comps) {
		return false
	}
	for i := range d.Comps {
		if !d.Comps[i].Equal(o.Comps[i]) {
			return false
		}
	}
	return true
}
