package specrt

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// A compiled spec declares the shape of each of its value types as data,
// a Type, instead of generating code per type: specrt hashes, compares,
// prints (as TLA+ and as ITF), converts to interpreter values and reads
// (from ITF and plain JSON) any value from its Type, as protoimpl does a
// message from its descriptor. The Go representation follows the shape:
//
//	Kind        TLA+                          Go
//	BoolKind    BOOLEAN                       bool
//	IntKind     Int, Nat, a..b                int
//	StringKind  a string literal of the spec  an index into the spec's sorted literals (~uint8)
//	ElemKind    an element of a domain        its index in the Domain (~int)
//	SetKind     SUBSET of strings or elements a bitset of their indices (uint64)
//	FuncKind    [D -> T] over a domain D      []T, indexed by element index
//	SeqKind     Seq(T)                        []T
//	RecordKind  [f: T, g: U] (or a state)     a struct, one field per record field
//
// The constructors check the Go type against the shape where the Go type
// system does not (a record's fields): a mismatch is a generator bug, and
// panics when the package is initialised.

// Kind is the shape of a Type.
type Kind uint8

// The kinds of Types.
const (
	BoolKind Kind = iota + 1
	IntKind
	StringKind
	ElemKind
	SetKind
	FuncKind
	SeqKind
	RecordKind
)

var kindNames = [...]string{BoolKind: "bool", IntKind: "int", StringKind: "string", ElemKind: "elem",
	SetKind: "set", FuncKind: "func", SeqKind: "seq", RecordKind: "record"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// shape is the description behind a Type.
type shape struct {
	kind   Kind
	domain string    // ElemKind, FuncKind: the domain's name (Config.Domain)
	elem   *shape    // SetKind, FuncKind, SeqKind
	fields []fieldOf // RecordKind, in the order of the Go struct's fields
	// byName lists the fields' positions in name order (ITF writes
	// states' variables so).
	byName []int
	strs   []string // StringKind: the spec's literals, sorted
	goType reflect.Type
	size   uintptr
}

type fieldOf struct {
	name   string
	t      *shape
	offset uintptr
}

// Type describes how a compiled spec represents the values of one TLA+
// type as Go values of type V.
type Type[V any] struct{ s *shape }

// AnyType is a Type of any Go type: what lists of mixed types (a record's
// fields, an action's parameters) hold.
type AnyType interface {
	shape() *shape
	// String renders the shape as TLA+, e.g. [Rooms -> SUBSET Ranks].
	String() string
}

func (t Type[V]) shape() *shape { return t.s }

// String renders the shape as TLA+ (a domain by its name).
func (t Type[V]) String() string { return t.s.String() }

// Kind is the shape's kind.
func (t Type[V]) Kind() Kind { return t.s.kind }

// Field is a field of a record Type: its TLA+ name and its Type.
type Field struct {
	Name string
	Type AnyType
}

func leaf[V any](k Kind) *shape {
	gt := reflect.TypeFor[V]()
	return &shape{kind: k, goType: gt, size: gt.Size()}
}

var (
	// Bool is the Type of BOOLEAN.
	Bool = Type[bool]{leaf[bool](BoolKind)}
	// Int is the Type of integers.
	Int = Type[int]{leaf[int](IntKind)}
)

// Strings is the Type of the spec's string literals, names (sorted), as
// indices into names.
func Strings[S ~uint8](names []string) Type[S] {
	if !slices.IsSorted(names) {
		panic("specrt: Strings: the literals are not sorted")
	}
	s := leaf[S](StringKind)
	s.strs = names
	return Type[S]{s}
}

// Elem is the Type of the elements of the domain named domain, as their
// indices.
func Elem[E ~int](domain string) Type[E] {
	s := leaf[E](ElemKind)
	s.domain = domain
	return Type[E]{s}
}

// Set is the Type of the sets of elem's values (strings or elements of a
// domain): bitsets of their indices.
func Set[E ~int | ~uint8](elem Type[E]) Type[uint64] {
	if k := elem.s.kind; k != StringKind && k != ElemKind {
		panic(fmt.Sprintf("specrt: Set of %s: sets hold strings or elements of a domain", elem))
	}
	s := leaf[uint64](SetKind)
	s.elem = elem.s
	return Type[uint64]{s}
}

// Func is the Type of the functions from the domain named domain to
// elem's values: slices indexed by element index.
func Func[E any](domain string, elem Type[E]) Type[[]E] {
	s := leaf[[]E](FuncKind)
	s.domain, s.elem = domain, elem.s
	return Type[[]E]{s}
}

// Seq is the Type of the sequences of elem's values.
func Seq[E any](elem Type[E]) Type[[]E] {
	s := leaf[[]E](SeqKind)
	s.elem = elem.s
	return Type[[]E]{s}
}

// Record is the Type of the struct R whose fields are, in order, the
// fields given (a record's in TLA+ name order, a state's variables in
// declaration order). It panics when R's fields do not have the fields'
// Types.
func Record[R any](fields ...Field) Type[R] {
	gt := reflect.TypeFor[R]()
	if gt.Kind() != reflect.Struct || gt.NumField() != len(fields) {
		panic(fmt.Sprintf("specrt: Record[%s]: not a struct of %d fields", gt, len(fields)))
	}
	s := &shape{kind: RecordKind, goType: gt, size: gt.Size()}
	for i, f := range fields {
		sf := gt.Field(i)
		if f.Type == nil || f.Type.shape().goType != sf.Type {
			panic(fmt.Sprintf("specrt: Record[%s]: field %s (%s) is a %s, not the Go type of %v", gt, sf.Name, f.Name, sf.Type, f.Type))
		}
		s.fields = append(s.fields, fieldOf{name: f.Name, t: f.Type.shape(), offset: sf.Offset})
		s.byName = append(s.byName, i)
	}
	slices.SortStableFunc(s.byName, func(a, b int) int { return strings.Compare(fields[a].Name, fields[b].Name) })
	for i := 1; i < len(s.byName); i++ {
		if fields[s.byName[i-1]].Name == fields[s.byName[i]].Name {
			panic(fmt.Sprintf("specrt: Record[%s]: field %s given twice", gt, fields[s.byName[i]].Name))
		}
	}
	return Type[R]{s}
}

func (s *shape) String() string {
	var b strings.Builder
	s.write(&b)
	return b.String()
}

func (s *shape) write(b *strings.Builder) {
	switch s.kind {
	case BoolKind:
		b.WriteString("BOOLEAN")
	case IntKind:
		b.WriteString("Int")
	case StringKind:
		b.WriteString("STRING")
	case ElemKind:
		b.WriteString(s.domain)
	case SetKind:
		b.WriteString("SUBSET ")
		s.elem.write(b)
	case FuncKind:
		b.WriteString("[" + s.domain + " -> ")
		s.elem.write(b)
		b.WriteString("]")
	case SeqKind:
		b.WriteString("Seq(")
		s.elem.write(b)
		b.WriteString(")")
	case RecordKind:
		b.WriteString("[")
		for i, f := range s.fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.name + ": ")
			f.t.write(b)
		}
		b.WriteString("]")
	}
}
