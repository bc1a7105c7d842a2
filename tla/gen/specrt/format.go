package specrt

import (
	"encoding/json"
	"iter"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/tla"
)

// The Format functions print values as the interpreter prints them
// (value.Format): compiled states print exactly as interpreted ones. The
// ITF functions write them in Apalache's Informal Trace Format. Elements
// of composite values are printed by the function given, which the
// compiled spec generates per type.

// FormatBool prints TRUE or FALSE.
func FormatBool(b *strings.Builder, v bool) {
	if v {
		b.WriteString("TRUE")
	} else {
		b.WriteString("FALSE")
	}
}

// FormatInt prints an integer.
func FormatInt(b *strings.Builder, v int) { b.WriteString(strconv.Itoa(v)) }

// FormatString prints a TLA+ string literal.
func FormatString(b *strings.Builder, s string) { b.WriteString(tla.Quote(s)) }

// FormatBits prints a bitset as the set of the elements whose bits are
// set, in index order (the canonical order by construction).
func FormatBits(b *strings.Builder, set uint64, elem func(*strings.Builder, int)) {
	writeAll(b, "{", ", ", "}", members(set), elem)
}

// FormatSeq prints a sequence as a tuple.
func FormatSeq[T any](b *strings.Builder, v []T, elem func(*strings.Builder, T)) {
	writeAll(b, "<<", ", ", ">>", slices.Values(v), elem)
}

// FormatFunc prints a function over d (v[i] is its value at element i):
// as a tuple when d is 1..n, else as (k1 :> v1 @@ k2 :> v2).
func FormatFunc[T any](b *strings.Builder, d *Domain, v []T, elem func(*strings.Builder, T)) {
	if d.IsSeq() {
		FormatSeq(b, v, elem)
		return
	}
	writeAll(b, "(", " @@ ", ")", upTo(len(v)), func(b *strings.Builder, i int) {
		d.Format(b, i)
		b.WriteString(" :> ")
		elem(b, v[i])
	})
}

// ITFBool writes true or false.
func ITFBool(b *strings.Builder, v bool) { b.WriteString(strconv.FormatBool(v)) }

// ITFInt writes an integer as {"#bigint":"n"}.
func ITFInt(b *strings.Builder, v int) {
	b.WriteString(`{"#bigint":"`)
	b.WriteString(strconv.Itoa(v))
	b.WriteString(`"}`)
}

// ITFString writes a JSON string.
func ITFString(b *strings.Builder, s string) {
	var w strings.Builder
	enc := json.NewEncoder(&w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.WriteString(strings.TrimSuffix(w.String(), "\n"))
}

// ITFBits writes a bitset as {"#set":[...]}.
func ITFBits(b *strings.Builder, set uint64, elem func(*strings.Builder, int)) {
	writeAll(b, `{"#set":[`, ",", "]}", members(set), elem)
}

// ITFSeq writes a sequence as a JSON list.
func ITFSeq[T any](b *strings.Builder, v []T, elem func(*strings.Builder, T)) {
	writeAll(b, "[", ",", "]", slices.Values(v), elem)
}

// ITFFunc writes a function over d as {"#map":[[k1,v1],...]}.
func ITFFunc[T any](b *strings.Builder, d *Domain, v []T, elem func(*strings.Builder, T)) {
	writeAll(b, `{"#map":[`, ",", "]}", upTo(len(v)), func(b *strings.Builder, i int) {
		b.WriteByte('[')
		d.ITF(b, i)
		b.WriteByte(',')
		elem(b, v[i])
		b.WriteByte(']')
	})
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
		ITFInt(b, d.Ints[i])
	default:
		ITFString(b, d.Names[i])
	}
}

// ITFSet writes the whole domain as an ITF set.
func (d *Domain) ITFSet(b *strings.Builder) { writeAll(b, `{"#set":[`, ",", "]}", upTo(d.size), d.ITF) }
