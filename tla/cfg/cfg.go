// Package cfg reads TLC model configuration files (.cfg): which constants
// get which values, which definitions are the specification, invariants,
// properties and constraints, and whether to check for deadlock.
//
// The package is pure: Parse takes the file's bytes and never touches the
// file system. It follows TLC's reader (tlc2.tool.impl.ModelConfig): the
// file is a sequence of sections, each started by a keyword; singular and
// plural keywords are synonyms and list sections may repeat, adding to the
// same list; a single-name section (INIT, NEXT, SPECIFICATION, SYMMETRY,
// VIEW, ALIAS, CHECK_DEADLOCK) given twice is an error, as in TLC.
//
// Conflicts that TLC only detects when it starts checking (SPECIFICATION
// together with INIT or NEXT, INIT without NEXT, a constant assigned twice)
// are reported by Config.Validate, so that a caller can still inspect a
// configuration that is syntactically fine.
package cfg

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/tla"
)

// Config is a parsed configuration file.
type Config struct {
	File string

	// Constants are the CONSTANT(S) entries in file order.
	Constants []*ConstantDef

	// Init, Next and Specification are nil when absent.
	Init, Next, Specification *Name

	Invariants        []*Name
	Properties        []*Name
	Constraints       []*Name // CONSTRAINT(S): state constraints
	ActionConstraints []*Name // ACTION_CONSTRAINT(S)

	// Symmetry, View and Alias are nil when absent.
	Symmetry, View, Alias *Name

	// Postconditions are recorded so the checker can warn that it ignores
	// them; TLC evaluates them once after checking.
	Postconditions []*Name

	// CheckDeadlock is nil when the file does not say; TLC's default is to
	// check for deadlock (see DeadlockChecked).
	CheckDeadlock *bool
	// CheckDeadlockPos is where CHECK_DEADLOCK's value was written.
	CheckDeadlockPos tla.Pos
}

// DeadlockChecked reports whether the model checker should report
// deadlocks: true unless the file says CHECK_DEADLOCK FALSE.
func (c *Config) DeadlockChecked() bool { return c.CheckDeadlock == nil || *c.CheckDeadlock }

// Name is a reference to a definition of the specification (or, in a
// CONSTANT substitution, of a named module).
type Name struct {
	Pos  tla.Pos
	Name string
}

// ConstantDef is one CONSTANT(S) entry. Exactly one of Value and Subst is
// set:
//
//	N = 3                 Value
//	F(1, "a") = 2         Args and Value: F is an operator constant, given
//	                      a value at these arguments only
//	N = [M] 3             Module "M" and Value (the constant of module M)
//	Op <- Def             Subst
//	Op <- [M] Def         Module "M" and Subst
//
// Name is written `A!B!C` when the constant belongs to an instance.
type ConstantDef struct {
	Pos    tla.Pos
	Name   string
	Args   []*Value
	Module string
	Value  *Value
	Subst  *Name
}

// String renders d as it would be written in a configuration file.
func (d *ConstantDef) String() string {
	var b strings.Builder
	b.WriteString(d.Name)
	if len(d.Args) > 0 {
		b.WriteByte('(')
		for i, a := range d.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			a.write(&b)
		}
		b.WriteByte(')')
	}
	if d.Subst != nil {
		b.WriteString(" <- ")
	} else {
		b.WriteString(" = ")
	}
	if d.Module != "" {
		b.WriteString("[" + d.Module + "] ")
	}
	if d.Subst != nil {
		b.WriteString(d.Subst.Name)
	} else if d.Value != nil {
		d.Value.write(&b)
	}
	return b.String()
}

// Kind says what a Value is.
type Kind int

// Value kinds. A configuration value is a constant expression of TLC's
// restricted form; tuples, records and ranges cannot be written (TLC's
// reader has no syntax for them: define them in the spec and substitute
// with `<-`).
const (
	Int        Kind = iota + 1 // 3, -1
	String                     // "text"
	Bool                       // TRUE, FALSE
	ModelValue                 // a bare identifier: a value equal only to itself
	Set                        // {v1, v2}, possibly empty and nested
)

var kindNames = [...]string{Int: "integer", String: "string", Bool: "boolean", ModelValue: "model value", Set: "set"}

// String names k.
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Value is a constant value written in a configuration file.
type Value struct {
	Pos  tla.Pos
	Kind Kind
	Int  int64    // Kind Int
	Str  string   // Kind String (unescaped) or ModelValue (its name)
	Bool bool     // Kind Bool
	Elem []*Value // Kind Set, in the order written (duplicates kept)
}

// String renders v as TLA+.
func (v *Value) String() string {
	var b strings.Builder
	v.write(&b)
	return b.String()
}

func (v *Value) write(b *strings.Builder) {
	switch v.Kind {
	case Int:
		b.WriteString(strconv.FormatInt(v.Int, 10))
	case String:
		b.WriteString(tla.Quote(v.Str))
	case Bool:
		if v.Bool {
			b.WriteString("TRUE")
		} else {
			b.WriteString("FALSE")
		}
	case ModelValue:
		b.WriteString(v.Str)
	case Set:
		b.WriteByte('{')
		for i, e := range v.Elem {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b)
		}
		b.WriteByte('}')
	default:
		b.WriteString("?")
	}
}

// Validate reports the conflicts TLC rejects before checking: SPECIFICATION
// together with INIT or NEXT, INIT without NEXT (or NEXT without INIT), and a
// constant given a value or substitution twice. It returns nil or a
// tla.ErrorList in source order. A configuration with neither SPECIFICATION
// nor INIT is not an error here: TLC accepts it for a spec without
// variables, which only the checker knows.
func (c *Config) Validate() error {
	var errs tla.ErrorList
	add := func(pos tla.Pos, format string, args ...any) {
		errs = append(errs, &tla.Error{File: c.File, Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	if c.Specification != nil {
		for _, n := range []*Name{c.Init, c.Next} {
			if n != nil {
				add(n.Pos, "expected either SPECIFICATION or INIT/NEXT, found both (SPECIFICATION %s at %s)",
					c.Specification.Name, c.Specification.Pos)
			}
		}
	} else {
		if c.Init != nil && c.Next == nil {
			add(c.Init.Pos, "expected NEXT to go with INIT %s, found none", c.Init.Name)
		}
		if c.Next != nil && c.Init == nil {
			add(c.Next.Pos, "expected INIT to go with NEXT %s, found none", c.Next.Name)
		}
	}
	seen := map[string]*ConstantDef{}
	for _, d := range c.Constants {
		// Operator constants may be given values at several arguments;
		// only the same arguments twice is a conflict.
		key := d.Module + "\x00" + d.Name
		if len(d.Args) > 0 {
			var b strings.Builder
			for _, a := range d.Args {
				a.write(&b)
				b.WriteByte(0)
			}
			key += "\x00" + b.String()
		}
		if first, ok := seen[key]; ok {
			what := d.Name
			if d.Module != "" {
				what = "[" + d.Module + "] " + what
			}
			add(d.Pos, "expected constant %s to be given once, found a second definition (first at %s)", what, first.Pos)
			continue
		}
		seen[key] = d
	}
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i].Pos, errs[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return errs.Err()
}
