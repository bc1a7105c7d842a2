package value

import (
	"encoding/binary"
	"fmt"
	"sync"
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
// Values are written through Encoders, one for each goroutine that
// writes; a Codec is safe for concurrent use by them and by readers.
type Codec struct {
	mu      sync.RWMutex
	atoms   []Value
	atomIdx map[any]uint32 // a String or *Model, or a lazy set's lazyKey
	domains []domain
	domIdx  map[string]uint32
}

// lazyKey is the text of a lazy set, its key in the table of atoms.
type lazyKey string

type domain struct {
	keys []Value
	seq  bool
}

// NewCodec returns a codec with empty tables.
func NewCodec() *Codec {
	return &Codec{atomIdx: map[any]uint32{}, domIdx: map[string]uint32{}}
}

// Encoder writes values into the tables of a Codec. It is not safe for
// concurrent use: each goroutine that writes has its own.
type Encoder struct {
	c       *Codec
	scratch []byte
	// recent remembers the domain index of recently written domains by
	// their first key's address: records built by one constructor share
	// their keys, so most domains are found without being written out.
	recent [64]recentDomain
}

type recentDomain struct {
	first *Value
	n     int
	idx   uint32
}

// NewEncoder returns an encoder into c's tables.
func (c *Codec) NewEncoder() *Encoder { return &Encoder{c: c} }

// The tags that start each value's bytes.
const (
	tagFalse byte = iota
	tagTrue
	tagInt
	tagAtom
	tagSet
	tagFunc
)

// Append appends the bytes of the values vs to buf.
func (e *Encoder) Append(buf []byte, vs ...Value) []byte {
	// Most values hold only atoms and domains already in the tables:
	// they are written under the read lock, which writers share.
	start := len(buf)
	e.c.mu.RLock()
	ok := true
	for _, v := range vs {
		if buf, ok = e.append(buf, v, false); !ok {
			break
		}
	}
	e.c.mu.RUnlock()
	if ok {
		return buf
	}
	buf = buf[:start]
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	for _, v := range vs {
		buf, _ = e.append(buf, v, true)
	}
	return buf
}

// append appends the bytes of v to buf. It fails, unless add is set (and
// the write lock held), on an atom or domain not yet in the tables.
func (e *Encoder) append(buf []byte, v Value, add bool) ([]byte, bool) {
	ok := true
	switch x := v.(type) {
	case Bool:
		if x {
			return append(buf, tagTrue), true
		}
		return append(buf, tagFalse), true
	case Int:
		return binary.AppendVarint(append(buf, tagInt), int64(x)), true
	case *Set:
		buf = binary.AppendUvarint(append(buf, tagSet), uint64(len(x.elems)))
		for _, el := range x.elems {
			if buf, ok = e.append(buf, el, add); !ok {
				return buf, false
			}
		}
		return buf, true
	case *Func:
		i, ok := e.domainIndex(x, add)
		if !ok {
			return buf, false
		}
		buf = binary.AppendUvarint(append(buf, tagFunc), uint64(i))
		for _, el := range x.vals {
			if buf, ok = e.append(buf, el, add); !ok {
				return buf, false
			}
		}
		return buf, true
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
	i, found := e.c.atomIdx[key]
	if !found {
		if !add {
			return buf, false
		}
		i = uint32(len(e.c.atoms))
		e.c.atoms = append(e.c.atoms, v)
		e.c.atomIdx[key] = i
	}
	return binary.AppendUvarint(append(buf, tagAtom), uint64(i)), true
}

// domainIndex returns the index of f's domain in the table.
func (e *Encoder) domainIndex(f *Func, add bool) (uint32, bool) {
	if len(f.keys) == 0 {
		return e.domainOf(f, add)
	}
	// The slot holds the keys' address, so the keys cannot be collected
	// and their address reused for other keys while it does.
	first := &f.keys[0]
	// Tuples of different lengths share the address of their keys (oneTo):
	// the length picks the slot too.
	slot := &e.recent[((uintptr(unsafe.Pointer(first))>>4)+uintptr(len(f.keys)))%uintptr(len(e.recent))]
	if slot.first == first && slot.n == len(f.keys) {
		return slot.idx, true
	}
	i, ok := e.domainOf(f, add)
	if ok {
		*slot = recentDomain{first: first, n: len(f.keys), idx: i}
	}
	return i, ok
}

// domainOf looks f's domain up by its bytes.
func (e *Encoder) domainOf(f *Func, add bool) (uint32, bool) {
	// The scratch buffer is this call's until it returns: a key that is
	// itself a function makes a nested call, which takes a buffer of its
	// own.
	key := e.scratch[:0]
	e.scratch = nil
	defer func() { e.scratch = key[:0] }()
	ok := true
	for _, k := range f.keys {
		if key, ok = e.append(key, k, add); !ok {
			return 0, false
		}
	}
	i, found := e.c.domIdx[string(key)]
	if !found {
		if !add {
			return 0, false
		}
		i = uint32(len(e.c.domains))
		e.c.domains = append(e.c.domains, domain{keys: f.keys, seq: f.seq})
		e.c.domIdx[string(key)] = i
	}
	return i, true
}

// Read reads len(vs) values written by Append from buf into vs.
func (c *Codec) Read(buf []byte, vs []Value) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	for i := range vs {
		vs[i], buf = c.read(buf)
	}
}

// read reads the value at the start of buf and returns it with the rest
// of buf.
func (c *Codec) read(buf []byte) (Value, []byte) {
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
			elems[i], buf = c.read(buf)
		}
		return &Set{elems: elems}, buf
	case tagFunc:
		i, k := binary.Uvarint(buf)
		buf = buf[k:]
		d := c.domains[i]
		if len(d.keys) == 0 {
			return EmptyFunc, buf
		}
		f := newFunc(len(d.keys))
		f.keys, f.seq = d.keys, d.seq
		for j := range f.vals {
			f.vals[j], buf = c.read(buf)
		}
		return f, buf
	}
	panic(fmt.Sprintf("value: no value starts with byte %d", tag))
}
