package value

import (
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/tla/literal"
)

// Format prints v as TLA+ text, the way TLC prints values in traces:
// tuples as <<...>>, records as [f |-> ...], other functions as
// (k1 :> v1 @@ k2 :> v2).
func Format(v Value) string {
	var b strings.Builder
	write(&b, v)
	return b.String()
}

func write(b *strings.Builder, v Value) {
	switch x := v.(type) {
	case Bool:
		if x {
			b.WriteString("TRUE")
		} else {
			b.WriteString("FALSE")
		}
	case Int:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case String:
		b.WriteString(literal.Quote(string(x)))
	case *Model:
		b.WriteString(x.Name)
	case *Set:
		b.WriteByte('{')
		for i, e := range x.elems {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, e)
		}
		b.WriteByte('}')
	case *Func:
		switch {
		case x.seq:
			b.WriteString("<<")
			for i, e := range x.vals {
				if i > 0 {
					b.WriteString(", ")
				}
				write(b, e)
			}
			b.WriteString(">>")
		case x.IsRecord():
			b.WriteByte('[')
			for i, k := range x.keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(string(k.(String)))
				b.WriteString(" |-> ")
				write(b, x.vals[i])
			}
			b.WriteByte(']')
		default:
			b.WriteByte('(')
			for i, k := range x.keys {
				if i > 0 {
					b.WriteString(" @@ ")
				}
				write(b, k)
				b.WriteString(" :> ")
				write(b, x.vals[i])
			}
			b.WriteByte(')')
		}
	case *Interval:
		b.WriteString(strconv.FormatInt(x.Lo, 10) + ".." + strconv.FormatInt(x.Hi, 10))
	case *Infinite:
		if x.Name == "Seq" {
			b.WriteString("Seq(")
			write(b, x.Elem)
			b.WriteString(")")
		} else {
			b.WriteString(x.Name)
		}
	case *Filter:
		b.WriteString(x.Src)
	case *Subset:
		b.WriteString("SUBSET ")
		write(b, x.Base)
	case *FuncSet:
		b.WriteByte('[')
		write(b, x.Dom)
		b.WriteString(" -> ")
		write(b, x.Rng)
		b.WriteByte(']')
	case *RecordSet:
		b.WriteByte('[')
		for i, n := range x.Names {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(n + " : ")
			write(b, x.Sets[i])
		}
		b.WriteByte(']')
	case *Product:
		for i, s := range x.Sets {
			if i > 0 {
				b.WriteString(" \\X ")
			}
			write(b, s)
		}
	case *Diff:
		write(b, x.A)
		b.WriteString(" \\ ")
		write(b, x.B)
	case *Cap:
		write(b, x.A)
		b.WriteString(" \\cap ")
		write(b, x.B)
	case *Cup:
		write(b, x.A)
		b.WriteString(" \\cup ")
		write(b, x.B)
	default:
		b.WriteString("<?>")
	}
}
