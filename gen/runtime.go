package gen

// runtimeSrc is the spec-independent support code written into every
// generated package, so that the package needs nothing but the cfg reader.
const runtimeSrc = `
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

// UnionInts, InterInts and DiffInts combine sets of integers.
func UnionInts(name string, a, b *Domain) *Domain {
	return NewInts(name, append(slices.Clone(a.Ints), b.Ints...)...)
}

// InterInts is the intersection of two sets of integers.
func InterInts(name string, a, b *Domain) *Domain {
	var xs []int
	for _, x := range a.Ints {
		if b.IntIndex(x) >= 0 {
			xs = append(xs, x)
		}
	}
	return NewInts(name, xs...)
}

// DiffInts is the difference of two sets of integers.
func DiffInts(name string, a, b *Domain) *Domain {
	var xs []int
	for _, x := range a.Ints {
		if b.IntIndex(x) < 0 {
			xs = append(xs, x)
		}
	}
	return NewInts(name, xs...)
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

// SetValue returns the whole domain as an interpreter set.
func (d *Domain) SetValue() value.Value { return value.NewSet(d.values...) }

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
		b.WriteString("<<")
		for k, c := range d.Comps {
			if k > 0 {
				b.WriteString(", ")
			}
			c.Format(b, i/d.strides[k]%c.size)
		}
		b.WriteString(">>")
	case d.isInts:
		b.WriteString(strconv.Itoa(d.Ints[i]))
	default:
		b.WriteString(d.Names[i])
	}
}

// FormatSet prints the whole domain as a TLA+ set.
func (d *Domain) FormatSet(b *strings.Builder) {
	b.WriteByte('{')
	for i := 0; i < d.size; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		d.Format(b, i)
	}
	b.WriteByte('}')
}

// ITF writes element i in the Informal Trace Format (model values as
// strings, integers as #bigint, tuples as #tup).
func (d *Domain) ITF(b *strings.Builder, i int) {
	switch {
	case d.Comps != nil:
		b.WriteString("{\"#tup\":[")
		for k, c := range d.Comps {
			if k > 0 {
				b.WriteByte(',')
			}
			c.ITF(b, i/d.strides[k]%c.size)
		}
		b.WriteString("]}")
	case d.isInts:
		fmt.Fprintf(b, "{\"#bigint\":\"%d\"}", d.Ints[i])
	default:
		b.WriteString(strconv.Quote(d.Names[i]))
	}
}

// ITFSet writes the whole domain as an ITF set.
func (d *Domain) ITFSet(b *strings.Builder) {
	b.WriteString("{\"#set\":[")
	for i := 0; i < d.size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		d.ITF(b, i)
	}
	b.WriteString("]}")
}

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

// ITF returns trace as an ITF JSON document.
func (c *Config) ITF(trace []State) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "{\"#meta\":{\"format\":\"ITF\",\"source\":%s,\"description\":\"generated by roomspec's compiled model\"},\"vars\":[", strconv.Quote(SourceName))
	for i, v := range Vars {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(v))
	}
	b.WriteString("],\"states\":[")
	for i := range trace {
		if i > 0 {
			b.WriteByte(',')
		}
		c.WriteITF(&b, &trace[i], i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

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

func mix(h, x uint64) uint64 {
	h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// quote returns s as a TLA+ string literal, as value.Quote does.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString("\\\"")
		case '\\':
			b.WriteString("\\\\")
		case '\n':
			b.WriteString("\\n")
		case '\t':
			b.WriteString("\\t")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func cfgInt(name string, v *cfg.Value) (int, error) {
	if v.Kind != cfg.Int {
		return 0, fmt.Errorf("model: constant %s: want an integer, got %s", name, v)
	}
	return int(v.Int), nil
}

func cfgBool(name string, v *cfg.Value) (bool, error) {
	if v.Kind != cfg.Bool {
		return false, fmt.Errorf("model: constant %s: want TRUE or FALSE, got %s", name, v)
	}
	return v.Bool, nil
}

func cfgModels(name string, v *cfg.Value) (*Domain, error) {
	if v.Kind != cfg.Set {
		return nil, fmt.Errorf("model: constant %s: want a set of model values, got %s", name, v)
	}
	var names []string
	for _, e := range v.Elem {
		if e.Kind != cfg.ModelValue {
			return nil, fmt.Errorf("model: constant %s: want a set of model values, got %s", name, v)
		}
		names = append(names, e.Str)
	}
	return NewModels(name, names), nil
}

func cfgInts(name string, v *cfg.Value) (*Domain, error) {
	if v.Kind != cfg.Set {
		return nil, fmt.Errorf("model: constant %s: want a set of integers, got %s", name, v)
	}
	var xs []int
	for _, e := range v.Elem {
		if e.Kind != cfg.Int {
			return nil, fmt.Errorf("model: constant %s: want a set of integers, got %s", name, v)
		}
		xs = append(xs, int(e.Int))
	}
	return NewInts(name, xs...), nil
}
`
