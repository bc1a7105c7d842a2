package gen

import (
	"strings"
)

// kind is the shape of a generated Go type.
type kind int

const (
	tBool      kind = iota
	tInt            // TLA+ integer: Go int
	tStr            // a string literal of the module: the Str enum
	tElem           // an element of a finite constant domain: its index
	tSet            // a set of tElem or tStr values: a uint64 bitset
	tFunc           // [D -> T] over a domain: []T indexed by element index
	tSeq            // Seq(T): []T
	tRec            // a record: a struct
	tIntSet         // a constant set of integers: *Domain
	tDomainSet      // a constant model-value or product set as a value: *Domain
)

// typ is a Go type derived from the spec. Types are compared by key.
type typ struct {
	kind   kind
	dom    *domain  // tElem, tFunc, tDomainSet
	elem   *typ     // tSet, tFunc (range), tSeq
	fields []*field // tRec, sorted by name
	name   string   // tRec: Go type name
}

type field struct {
	name   string // TLA+ field name
	goName string
	t      *typ
}

var (
	boolT = &typ{kind: tBool}
	intT  = &typ{kind: tInt}
	strT  = &typ{kind: tStr}
)

func (t *typ) key() string {
	switch t.kind {
	case tBool:
		return "bool"
	case tInt:
		return "int"
	case tStr:
		return "str"
	case tElem:
		return "elem(" + t.dom.name + ")"
	case tSet:
		return "set(" + t.elem.key() + ")"
	case tFunc:
		return "func(" + t.dom.name + "," + t.elem.key() + ")"
	case tSeq:
		return "seq(" + t.elem.key() + ")"
	case tIntSet:
		return "intset"
	case tDomainSet:
		return "domset(" + t.dom.name + ")"
	case tRec:
		var b strings.Builder
		b.WriteString("rec{")
		for i, f := range t.fields {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f.name + ":" + f.t.key())
		}
		b.WriteString("}")
		return b.String()
	}
	return "?"
}

// String renders the type for messages.
func (t *typ) String() string { return t.key() }

// comparable reports whether Go's == compares values of t as TLA+ equality.
func (t *typ) comparable() bool {
	switch t.kind {
	case tFunc, tSeq, tIntSet, tDomainSet:
		return false
	case tRec:
		for _, f := range t.fields {
			if !f.t.comparable() {
				return false
			}
		}
	}
	return true
}

func sameType(a, b *typ) bool { return a.key() == b.key() }

// domKind distinguishes the finite constant sets that index functions.
type domKind int

const (
	dModel   domKind = iota // a CONSTANT bound to a set of model values
	dInts                   // a constant set of integers
	dProduct                // S1 \X S2 \X ... of domains
)

// domain is a finite constant set whose elements are numbered 0..n-1 in
// the order of the interpreter's canonical sets (model values by name,
// integers ascending, tuples row-major), so that printing a function in
// index order prints it as the interpreter does.
type domain struct {
	name   string // TLA+ name of the constant or definition
	kind   domKind
	comps  []*domain
	goType string // Go index type (dModel, dProduct)
	field  string // Config field holding the *Domain
	inSet  bool   // used as a set element type: must fit a bitset
}

// elemType is the Go type of the domain's elements.
func (d *domain) elemType() *typ {
	if d.kind == dInts {
		return intT
	}
	return &typ{kind: tElem, dom: d}
}

// goType renders t as Go.
func (g *gen) goType(t *typ) string {
	switch t.kind {
	case tBool:
		return "bool"
	case tInt:
		return "int"
	case tStr:
		return "Str"
	case tElem:
		return t.dom.goType
	case tSet:
		return "uint64"
	case tFunc, tSeq:
		return "[]" + g.goType(t.elem)
	case tRec:
		return t.name
	case tIntSet, tDomainSet:
		return "*specrt.Domain"
	}
	return "?"
}

// exported turns a TLA+ name into an exported Go name: request_status ->
// RequestStatus.
func exported(name string) string {
	var b strings.Builder
	up := true
	for _, r := range name {
		switch {
		case r == '_':
			up = true
		case up:
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || !(s[0] >= 'A' && s[0] <= 'Z') {
		s = "X" + s
	}
	return s
}
