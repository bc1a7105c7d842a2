package specrt

import (
	"encoding/json"
	"iter"
	"math/bits"
	"strconv"
	"strings"
	"unsafe"

	"github.com/roomspec/roomspec/tla/literal"
	"github.com/roomspec/roomspec/tla/value"
)

// Values print as the interpreter prints them (value.Format), so that
// compiled states print exactly as interpreted ones, and as Apalache's
// Informal Trace Format; they convert to the interpreter's values.

// format prints the value at p as TLA+.
func (n *node) format(b *strings.Builder, p unsafe.Pointer) {
	switch n.kind {
	case BoolKind:
		formatBool(b, *(*bool)(p))
	case IntKind:
		b.WriteString(strconv.Itoa(*(*int)(p)))
	case StringKind, ElemKind:
		n.formatIndex(b, n.indexAt(p))
	case SetKind:
		writeAll(b, "{", ", ", "}", members(*(*uint64)(p)), n.elem.formatIndex)
	case SeqKind:
		n.formatSeq(b, p)
	case FuncKind:
		if n.dom.IsSeq() {
			n.formatSeq(b, p)
			return
		}
		data, size := sliceAt(p)
		writeAll(b, "(", " @@ ", ")", upTo(size), func(b *strings.Builder, i int) {
			n.dom.Format(b, i)
			b.WriteString(" :> ")
			n.elem.format(b, n.elemAt(data, i))
		})
	case RecordKind:
		writeAll(b, "[", ", ", "]", upTo(len(n.parts)), func(b *strings.Builder, i int) {
			f := &n.parts[i]
			b.WriteString(f.name)
			b.WriteString(" |-> ")
			f.format(b, f.at(p))
		})
	}
}

func (n *node) formatSeq(b *strings.Builder, p unsafe.Pointer) {
	data, size := sliceAt(p)
	writeAll(b, "<<", ", ", ">>", upTo(size), func(b *strings.Builder, i int) { n.elem.format(b, n.elemAt(data, i)) })
}

// formatIndex prints the string or domain element of index i.
func (n *node) formatIndex(b *strings.Builder, i int) {
	if n.kind == StringKind {
		b.WriteString(literal.Quote(n.str(i)))
		return
	}
	n.dom.Format(b, i)
}

// indexAt reads the index at p of a string or a domain element.
func (n *node) indexAt(p unsafe.Pointer) int {
	if n.kind == StringKind {
		return int(*(*uint8)(p))
	}
	return *(*int)(p)
}

// str is the text of string i (as the compiled spec's Str.String prints
// one outside its literals).
func (n *node) str(i int) string {
	if i >= 0 && i < len(n.strs) {
		return n.strs[i]
	}
	return "Str(" + strconv.Itoa(i) + ")"
}

// elemAt is the address of element i of a slice of n's elements.
func (n *node) elemAt(data unsafe.Pointer, i int) unsafe.Pointer {
	return unsafe.Add(data, uintptr(i)*n.elem.size)
}

func formatBool(b *strings.Builder, v bool) {
	if v {
		b.WriteString("TRUE")
	} else {
		b.WriteString("FALSE")
	}
}

// itf writes the value at p as ITF.
func (n *node) itf(b *strings.Builder, p unsafe.Pointer) {
	switch n.kind {
	case BoolKind:
		b.WriteString(strconv.FormatBool(*(*bool)(p)))
	case IntKind:
		itfInt(b, *(*int)(p))
	case StringKind, ElemKind:
		n.itfIndex(b, n.indexAt(p))
	case SetKind:
		writeAll(b, `{"#set":[`, ",", "]}", members(*(*uint64)(p)), n.elem.itfIndex)
	case SeqKind:
		data, size := sliceAt(p)
		writeAll(b, "[", ",", "]", upTo(size), func(b *strings.Builder, i int) { n.elem.itf(b, n.elemAt(data, i)) })
	case FuncKind:
		data, size := sliceAt(p)
		writeAll(b, `{"#map":[`, ",", "]}", upTo(size), func(b *strings.Builder, i int) {
			b.WriteByte('[')
			n.dom.ITF(b, i)
			b.WriteByte(',')
			n.elem.itf(b, n.elemAt(data, i))
			b.WriteByte(']')
		})
	case RecordKind:
		writeAll(b, "{", ",", "}", upTo(len(n.parts)), func(b *strings.Builder, i int) {
			f := &n.parts[i]
			itfString(b, f.name)
			b.WriteByte(':')
			f.itf(b, f.at(p))
		})
	}
}

func (n *node) itfIndex(b *strings.Builder, i int) {
	if n.kind == StringKind {
		itfString(b, n.str(i))
		return
	}
	n.dom.ITF(b, i)
}

// itfInt writes an integer as {"#bigint":"n"}.
func itfInt(b *strings.Builder, v int) {
	b.WriteString(`{"#bigint":"`)
	b.WriteString(strconv.Itoa(v))
	b.WriteString(`"}`)
}

// itfString writes a JSON string.
func itfString(b *strings.Builder, s string) {
	var w strings.Builder
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.WriteString(strings.TrimSuffix(w.String(), "\n"))
}

// value converts the value at p to the interpreter's.
func (n *node) value(p unsafe.Pointer) value.Value {
	switch n.kind {
	case BoolKind:
		return value.Bool(*(*bool)(p))
	case IntKind:
		return value.Int(*(*int)(p))
	case StringKind, ElemKind:
		return n.indexValue(n.indexAt(p))
	case SetKind:
		set := *(*uint64)(p)
		es := make([]value.Value, 0, bits.OnesCount64(set))
		for i := range members(set) {
			es = append(es, n.elem.indexValue(i))
		}
		return value.NewSetOwned(es)
	case SeqKind:
		data, size := sliceAt(p)
		es := make([]value.Value, size)
		for i := range es {
			es[i] = n.elem.value(n.elemAt(data, i))
		}
		return value.NewTuple(es...)
	case FuncKind:
		data, size := sliceAt(p)
		ks := make([]value.Value, size)
		es := make([]value.Value, size)
		for i := range es {
			ks[i] = n.dom.Value(i)
			es[i] = n.elem.value(n.elemAt(data, i))
		}
		return value.NewFunc(ks, es)
	case RecordKind:
		var buf [8]value.Value
		vals := buf[:0]
		for i := range n.parts {
			f := &n.parts[i]
			vals = append(vals, f.value(f.at(p)))
		}
		return n.record.Record(vals)
	}
	panic("specrt: converting a " + n.kind.String())
}

func (n *node) indexValue(i int) value.Value {
	if n.kind == StringKind {
		return value.String(n.str(i))
	}
	return n.dom.Value(i)
}

// writeAll writes open, the items (each by elem) separated by sep, and
// close: the shape of every composite value in both notations.
func writeAll[T any](b *strings.Builder, open, sep, close string, items iter.Seq[T], elem func(*strings.Builder, T)) {
	b.WriteString(open)
	first := true
	for x := range items {
		if !first {
			b.WriteString(sep)
		}
		first = false
		elem(b, x)
	}
	b.WriteString(close)
}

// members yields the indices of the bits set in set, in order.
func members(set uint64) iter.Seq[int] {
	return func(yield func(int) bool) {
		for bs := set; bs != 0; bs &= bs - 1 {
			if !yield(bits.TrailingZeros64(bs)) {
				return
			}
		}
	}
}

// upTo yields 0..n-1.
func upTo(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := range n {
			if !yield(i) {
				return
			}
		}
	}
}

// ITF writes element i in the Informal Trace Format (model values as
// strings, integers as #bigint, tuples as #tup).
func (d *Domain) ITF(b *strings.Builder, i int) {
	switch {
	case d.Comps != nil:
		writeAll(b, `{"#tup":[`, ",", "]}", upTo(len(d.Comps)), func(b *strings.Builder, k int) {
			d.Comps[k].ITF(b, i/d.strides[k]%d.Comps[k].size)
		})
	case d.isInts:
		itfInt(b, d.Ints[i])
	default:
		itfString(b, d.Names[i])
	}
}
