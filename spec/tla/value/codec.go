package value

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// Codec writes explicit values as bytes and reads them back, for a model
// checker's queue of states: a state kept as bytes holds no pointer, so
// the garbage collector does not scan it at every cycle, as it must scan
// a queue of millions of values. Strings, model values and lazy sets are
// written as their index in a table of the codec (a lazy set is kept as it
// is), and so are the domains of functions: the records of one shape
// share their domain when read back, as they did when built.
//
// Writes (Append) must not run concurrently with anything else; reads
// (Read) may run concurrently with each other.
type Codec struct {
	atoms   []Value
	atomIdx map[any]uint32 // a String or *Model, or a lazy set's lazyKey
	domains []domain
	domIdx  map[string]uint32
	scratch []byte
	// recent remembers the domain index of recently written domains by
	// their first key's address: records built by one constructor share
	// their keys, so most domains are found without being written out.
	recent [64]recentDomain
}

// lazyKey is the text of a lazy set, its key in the table of atoms.
type lazyKey string

type domain struct {
	keys []Value
	seq  bool
}

type recentDomain struct {
	first *Value
	n     int
	idx   uint32
}

// NewCodec returns a codec with empty tables.
func NewCodec() *Codec {
	return &Codec{atomIdx: map[any]uint32{}, domIdx: map[string]uint32{}}
}

// The tags that start each value's bytes.
const (
	tagFalse byte = iota
	tagTrue
	tagInt
	tagAtom
	tagSet
	tagFunc
)

// Append appends the bytes of v to buf.
func (c *Codec) Append(buf []byte, v Value) []byte {
	switch x := v.(type) {
	case Bool:
		if x {
			return append(buf, tagTrue)
		}
		return append(buf, tagFalse)
	case Int:
		return binary.AppendVarint(append(buf, tagInt), int64(x))
	case *Set:
		buf = binary.AppendUvarint(append(buf, tagSet), uint64(len(x.elems)))
		for _, e := range x.elems {
			buf = c.Append(buf, e)
		}
		return buf
	case *Func:
		buf = binary.AppendUvarint(append(buf, tagFunc), uint64(c.domainIndex(x)))
		for _, e := range x.vals {
			buf = c.Append(buf, e)
		}
		return buf
	}
	// Strings, model values and lazy sets: by index. A lazy set is
	// looked up by its text, not by its address, so that the table does
	// not keep one for each state that holds one.
	var key any = v
	switch v.(type) {
	case String, *Model:
	default:
		key = lazyKey(Format(v))
	}
	i, ok := c.atomIdx[key]
	if !ok {
		i = uint32(len(c.atoms))
		c.atoms = append(c.atoms, v)
		c.atomIdx[key] = i
	}
	return binary.AppendUvarint(append(buf, tagAtom), uint64(i))
}

// domainIndex returns the index of f's domain in the table, adding it.
func (c *Codec) domainIndex(f *Func) uint32 {
	if len(f.keys) == 0 {
		return c.domainOf(f)
	}
	// The slot holds the keys' address, so the keys cannot be collected
	// and their address reused for other keys while it does.
	first := &f.keys[0]
	slot := &c.recent[(uintptr(unsafe.Pointer(first))>>4)%uintptr(len(c.recent))]
	if slot.first == first && slot.n == len(f.keys) {
		return slot.idx
	}
	i := c.domainOf(f)
	*slot = recentDomain{first: first, n: len(f.keys), idx: i}
	return i
}

// domainOf looks f's domain up by its bytes, adding it to the table.
func (c *Codec) domainOf(f *Func) uint32 {
	// The scratch buffer is this call's until it returns: a key that is
	// itself a function makes a nested call, which takes a buffer of its
	// own.
	key := c.scratch[:0]
	c.scratch = nil
	for _, k := range f.keys {
		key = c.Append(key, k)
	}
	i, ok := c.domIdx[string(key)]
	if !ok {
		i = uint32(len(c.domains))
		c.domains = append(c.domains, domain{keys: f.keys, seq: f.seq})
		c.domIdx[string(key)] = i
	}
	c.scratch = key[:0]
	return i
}

// Read reads a value written by Append from the start of buf and returns
// it with the rest of buf.
func (c *Codec) Read(buf []byte) (Value, []byte) {
	tag, buf := buf[0], buf[1:]
	switch tag {
	case tagFalse:
		return False, buf
	case tagTrue:
		return True, buf
	case tagInt:
		n, k := binary.Varint(buf)
		return Int(n), buf[k:]
	case tagAtom:
		i, k := binary.Uvarint(buf)
		return c.atoms[i], buf[k:]
	case tagSet:
		n, k := binary.Uvarint(buf)
		buf = buf[k:]
		if n == 0 {
			return EmptySet, buf
		}
		elems := make([]Value, n)
		for i := range elems {
			elems[i], buf = c.Read(buf)
		}
		return &Set{elems: elems}, buf
	case tagFunc:
		i, k := binary.Uvarint(buf)
		buf = buf[k:]
		d := c.domains[i]
		if len(d.keys) == 0 {
			return EmptyFunc, buf
		}
		vals := make([]Value, len(d.keys))
		for j := range vals {
			vals[j], buf = c.Read(buf)
		}
		return &Func{keys: d.keys, vals: vals, seq: d.seq}, buf
	}
	panic(fmt.Sprintf("value: no value starts with byte %d", tag))
}
