package specrt

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/roomspec/roomspec/tla/value"
)

// Codec is a Type bound to the domains of one configuration (a compiled
// spec's Config), which printing, converting and reading need: the
// elements of a domain are known only once the constants are.
type Codec[V any] struct {
	root   *node
	domain func(string) *Domain
}

// node is a shape with its domain, its element's and its fields' nodes.
type node struct {
	*shape
	dom    *Domain
	elem   *node
	parts  []part             // RecordKind: the fields
	record *value.RecordShape // RecordKind: its interpreter values' shape
}

// part is a field of a record bound to the domains.
type part struct {
	*node
	name   string
	offset uintptr
}

// at is the address of the field in the record at p.
func (f *part) at(p unsafe.Pointer) unsafe.Pointer { return unsafe.Add(p, f.offset) }

// Bind binds t to the domains domain returns by name (a compiled spec's
// Config.Domain). It fails when a domain t ranges over is not there.
func (t Type[V]) Bind(domain func(name string) *Domain) (*Codec[V], error) {
	n, err := bind(t.s, domain)
	if err != nil {
		return nil, err
	}
	return &Codec[V]{root: n, domain: domain}, nil
}

func bind(s *shape, domain func(string) *Domain) (*node, error) {
	n := &node{shape: s}
	if s.kind == ElemKind || s.kind == FuncKind {
		if n.dom = domain(s.domain); n.dom == nil {
			return nil, fmt.Errorf("specrt: no domain %s", s.domain)
		}
	}
	if s.elem != nil {
		e, err := bind(s.elem, domain)
		if err != nil {
			return nil, err
		}
		n.elem = e
	}
	if s.kind == RecordKind {
		names := make([]string, len(s.fields))
		for i, f := range s.fields {
			e, err := bind(f.t, domain)
			if err != nil {
				return nil, err
			}
			n.parts = append(n.parts, part{node: e, name: f.name, offset: f.offset})
			names[i] = f.name
		}
		n.record = value.NewRecordShape(names)
	}
	return n, nil
}

// Format prints *v as the interpreter prints its value.
func (c *Codec[V]) Format(b *strings.Builder, v *V) { c.root.format(b, unsafe.Pointer(v)) }

// ITF writes *v in the Informal Trace Format.
func (c *Codec[V]) ITF(b *strings.Builder, v *V) { c.root.itf(b, unsafe.Pointer(v)) }

// Value converts *v to the interpreter's value.
func (c *Codec[V]) Value(v *V) value.Value { return c.root.value(unsafe.Pointer(v)) }

// Read reads a value from data, JSON as the interpreter's state
// exchange writes it: ITF (itf), or plain JSON (elements of domains as
// indices, functions as lists in index order).
func (c *Codec[V]) Read(data []byte, itf bool) (V, error) {
	var v V
	x, err := parseJSON(data)
	if err != nil {
		return v, err
	}
	err = c.root.read(x, "value", itf, unsafe.Pointer(&v))
	return v, err
}

// The methods below treat V, whose Type must be a Record, as a state: one
// field per variable.

// FormatState prints the state *v as the interpreter does: a line
// "/\ var = value" per variable, in declaration order.
func (c *Codec[V]) FormatState(v *V) string {
	var b strings.Builder
	p := unsafe.Pointer(v)
	for i, f := range c.root.parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(`/\ ` + f.name + " = ")
		f.format(&b, f.at(p))
	}
	return b.String()
}

// WriteITFState writes the state *v as an ITF state object with its
// index, its variables in name order.
func (c *Codec[V]) WriteITFState(b *strings.Builder, v *V, index int) {
	p := unsafe.Pointer(v)
	b.WriteString(`{"#meta":{"index":` + strconv.Itoa(index) + `}`)
	for _, i := range c.root.byName {
		f := &c.root.parts[i]
		b.WriteByte(',')
		itfString(b, f.name)
		b.WriteByte(':')
		f.itf(b, f.at(p))
	}
	b.WriteByte('}')
}

// Values converts the state *v to the interpreter's values, one per
// variable in declaration order (an eval.State).
func (c *Codec[V]) Values(v *V) []value.Value {
	p := unsafe.Pointer(v)
	out := make([]value.Value, len(c.root.parts))
	for i, f := range c.root.parts {
		out[i] = f.value(f.at(p))
	}
	return out
}

// ReadState reads a state object: exactly one field per variable (and in
// ITF a "#meta" field, which is ignored). Errors name the path of the bad
// value (state.chan[1][0].type).
func (c *Codec[V]) ReadState(data []byte, itf bool) (V, error) {
	var v V
	names := make([]string, len(c.root.parts))
	for i, f := range c.root.parts {
		names[i] = f.name
	}
	m, err := readStateObject(data, itf, names)
	if err != nil {
		return v, err
	}
	p := unsafe.Pointer(&v)
	for _, f := range c.root.parts {
		if err := f.read(m[f.name], "state."+f.name, itf, f.at(p)); err != nil {
			return v, err
		}
	}
	return v, nil
}

// FormatAction prints an action as the interpreter's eval.Action does,
// Name(p1, p2), its parameters given as ints (an element's or a string's
// index, an integer, 0 or 1 for a boolean) of the types params.
func (c *Codec[V]) FormatAction(name string, params []AnyType, vals []int) string {
	var b strings.Builder
	b.WriteString(name)
	if len(params) == 0 {
		return b.String()
	}
	b.WriteByte('(')
	for i, t := range params {
		if i > 0 {
			b.WriteString(", ")
		}
		s := t.shape()
		switch s.kind {
		case BoolKind:
			formatBool(&b, vals[i] != 0)
		case IntKind:
			b.WriteString(strconv.Itoa(vals[i]))
		case StringKind:
			(&node{shape: s}).formatIndex(&b, vals[i])
		case ElemKind:
			c.domain(s.domain).Format(&b, vals[i])
		default:
			panic("specrt: an action parameter of type " + s.String())
		}
	}
	b.WriteByte(')')
	return b.String()
}
