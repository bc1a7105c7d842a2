// Package gen compiles a TLA+ specification (the subset spec/Room.tla uses)
// into a typed Go package: state types derived from TypeOK, Init, one
// method per action, a Next enumerator that names each successor's action
// as the interpreter does, the invariants and action properties of the
// model configurations, fingerprints and TLA+/ITF printing.
//
// Constants stay run-time values (a Config built from a .cfg), so one
// generated package serves every configuration of the spec. Whatever gen
// does not support is an error at the TLA+ source position; gen never
// emits code that means something else than the spec.
//
// # The subset
//
// Types come from TypeOK's conjuncts v \in T, where T is built from
// BOOLEAN, Nat, Int, a..b, sets of string literals (and their unions),
// CONSTANT sets of model values or integers, named products of those
// (Requests == Rooms \X Incarnations), SUBSET S, [D -> T], Seq(T) and
// record sets. All string literals share one enum type, Str, numbered in
// TLA+ order (so that sets of strings print and compare as the interpreter
// does); sets are 64-bit bitsets of element indices.
//
// Expressions: literals, constants and constant definitions (computed once
// per Config), variables and primed variables, operators with parameters
// (one Go method per list of argument types), LET of definitions without
// parameters, IF, CASE, bounded \A and \E, boolean and integer operators
// (\div and % as in TLA+), {x \in S : P} over a domain or a set, =, #,
// \in and \notin (also in type sets such as [D -> T] and Seq(R)), \cup,
// \cap, \, \subseteq, Cardinality, Len, Head, Tail, Append, \o, f[x],
// r.f, tuples as elements of a product
// domain or as sequences, records, [f EXCEPT ![x] = e, !.g = e] (one
// step per update) with @, [x \in D |-> e] over a named domain, UNCHANGED.
//
// Actions follow TLC: conjuncts in order, the first x' = e (or x' \in S)
// on a path assigns x', later ones test it; disjunctions, \E, IF and CASE
// branch; the successor must assign every variable. The first action
// definition entered below Next names the successor, as the interpreter
// does; guards below Next outside an action are rejected.
//
// Outside the subset (CHOOSE, {e : x \in S}, function definitions,
// RECURSIVE, INSTANCE, LAMBDA, ENABLED, operator arguments, unbounded
// quantifiers, sets of sets or of integers as values, ...) gen stops with
// an error at the construct's position. Where the interpreter reports an
// error at run time (Head of an empty sequence, no true CASE arm, a tuple
// outside its domain, 64-bit integer overflow) the generated code panics.
// One difference is left: operator arguments are evaluated when the
// operator is called (TLA+ substitutes them; this only matters for an
// argument that fails and is not used).
//
// The package is pure: Generate takes parsed modules and configurations and
// returns Go source. Files live in tla/gen/cmd/gen and cmd/roomspec.
package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/format"
	"slices"
	"strings"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
)

// ErrUnsupported marks a construct of the spec that gen cannot compile.
var ErrUnsupported = errors.New("not supported by gen")

// Error is a compile error at a position of the spec (or a cfg).
type Error struct {
	File string
	Pos  tla.Pos
	Msg  string
	Err  error // ErrUnsupported or nil
}

// resolveError is the error of a spec the resolver rejects: at its first
// error, the others wrapped.
func resolveError(err error) error {
	var first *tla.Error
	if !errors.As(err, &first) {
		return err
	}
	msg := first.Msg
	if l, ok := err.(tla.ErrorList); ok && len(l) > 1 {
		msg += fmt.Sprintf(" (and %d more errors)", len(l)-1)
	}
	return &Error{File: first.File, Pos: first.Pos, Msg: msg, Err: err}
}

// Error renders "file:line:col: msg".
func (e *Error) Error() string {
	return (&tla.Error{File: e.File, Pos: e.Pos, Msg: e.Msg}).Error()
}

// Unwrap returns the sentinel behind e.
func (e *Error) Unwrap() error { return e.Err }

// Input is what gen compiles.
type Input struct {
	Modules *tla.Modules
	// Source is the root module's text, hashed into the generated code.
	Source []byte
	// SourceName names the spec in the generated header, e.g. spec/Room.tla.
	SourceName string
	// Configs are the model configurations the package must serve: their
	// constants fix each constant's kind, their invariants and properties
	// become methods.
	Configs []*cfg.Config
	// Package is the Go package name (default "model").
	Package string
	// Info is what the resolver found in Modules (tla.Resolve); Generate
	// resolves them when it is nil.
	Info *tla.Info
}

// Generate compiles in into Go source (gofmt-formatted).
func Generate(in Input) (src []byte, err error) {
	if in.Info == nil {
		if in.Info, err = tla.Resolve(in.Modules); err != nil {
			return nil, resolveError(err)
		}
	}
	g := newGen(in)
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			src, err = nil, e
		}
	}()
	g.run()
	out := g.emit()
	formatted, ferr := format.Source(out)
	if ferr != nil {
		return out, fmt.Errorf("gen: generated code does not parse (a gen bug): %w", ferr)
	}
	return formatted, nil
}

type constKind int

const (
	cInt constKind = iota + 1
	cBool
	cModelSet
	cIntSet
)

// opInst is an operator compiled to a Go method.
type opInst struct {
	def    *tla.OpDef
	goName string
	params []*typ
	result *typ
	code   string
	busy   bool
	primed bool // the body reads primed variables: the method takes t too
}

// constDef is a constant-level definition computed once per Config.
type constDef struct {
	name, goName string
	t            *typ
	code         string // Go expression computing it (in LoadConfig)
	dom          *domain
}

type varInfo struct {
	name, goName string
	t            *typ
	pos          tla.Pos
	typeText     string // the set of its TypeOK conjunct, as TLA+
}

type gen struct {
	in     Input
	info   *tla.Info
	mod    *tla.Module
	file   string
	defs   map[string]*tla.OpDef
	consts map[string]constKind
	cnames []string // declared constants in order
	cpos   map[string]tla.Pos

	vars   []*varInfo
	varIdx map[string]*varInfo
	varsOK bool

	domains    map[string]*domain
	domList    []*domain
	strs       map[string]bool
	records    map[string]*typ
	recList    []*typ
	ops        map[string]*opInst // the first instance of each operator
	opInsts    map[string]*opInst // by name and argument types
	opBusy     map[string]bool
	opCount    map[string]int
	opList     []*opInst
	constDefs  map[string]*constDef
	constList  []*constDef
	constBusy  map[string]bool
	helpers    map[string]string
	helperList []string

	actions   []*actionInfo
	actByName map[string]*actionInfo
	initName  string
	nextName  string
	nextCode  string
	initCode  string
	initDet   bool
	props     []*propInfo
	tmp       int
	nondet    bool
	maxParams int
	// specName is the SPECIFICATION formula (empty with INIT/NEXT);
	// fairCode its fairness compiled (FairActions).
	specName   string
	fairCode   string
	wireFields []recordField
	logFields  []recordField
}

func newGen(in Input) *gen {
	if in.Package == "" {
		in.Package = "model"
	}
	m := in.Modules.Root
	file := m.File
	if in.SourceName != "" {
		file = in.SourceName
	}
	return &gen{
		in: in, info: in.Info, mod: m, file: file,
		defs: map[string]*tla.OpDef{}, consts: map[string]constKind{}, cpos: map[string]tla.Pos{},
		varIdx: map[string]*varInfo{}, domains: map[string]*domain{}, strs: map[string]bool{},
		records: map[string]*typ{}, ops: map[string]*opInst{}, opInsts: map[string]*opInst{}, opBusy: map[string]bool{}, opCount: map[string]int{}, constDefs: map[string]*constDef{},
		constBusy: map[string]bool{}, helpers: map[string]string{}, actByName: map[string]*actionInfo{},
	}
}

// fail aborts generation with an error at pos.
func (g *gen) fail(pos tla.Pos, format string, args ...any) {
	panic(&Error{File: g.file, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// unsupported aborts generation: the construct at pos is outside gen's subset.
func (g *gen) unsupported(pos tla.Pos, format string, args ...any) {
	panic(&Error{File: g.file, Pos: pos, Msg: fmt.Sprintf(format, args...) + ": " + ErrUnsupported.Error(), Err: ErrUnsupported})
}

func (g *gen) newTmp(prefix string) string {
	g.tmp++
	return fmt.Sprintf("%s%d", prefix, g.tmp)
}

func (g *gen) run() {
	for _, name := range g.in.Modules.Root.Extends {
		switch name.Name {
		case "Naturals", "Integers", "Sequences", "FiniteSets":
		default:
			g.unsupported(name.At, "EXTENDS %s", name.Name)
		}
	}
	for _, u := range g.mod.Units {
		switch u := u.(type) {
		case *tla.Constant:
			for _, p := range u.Names {
				if p.Arity > 0 {
					g.unsupported(p.At, "operator constant %s", p.Name)
				}
				g.cnames = append(g.cnames, p.Name)
				g.cpos[p.Name] = p.At
			}
		case *tla.Variable:
			for _, id := range u.Names {
				v := &varInfo{name: id.Name, goName: exported(id.Name), pos: id.At}
				g.vars = append(g.vars, v)
				g.varIdx[id.Name] = v
			}
		case *tla.OpDef:
			g.defs[u.Name] = u
		case *tla.FuncDef:
			g.unsupported(u.At, "function definition %s[...] == (write [x \\in S |-> ...])", u.Name)
		case *tla.Instance:
			g.unsupported(u.At, "INSTANCE")
		case *tla.Recursive:
			g.unsupported(u.At, "RECURSIVE")
		case *tla.Module:
			g.unsupported(u.At, "submodule %s", u.Name)
		case *tla.Assume, *tla.Theorem:
			// ASSUME and THEOREM say nothing about states.
		}
	}
	if len(g.in.Modules.Order) > 1 {
		g.unsupported(g.mod.At, "EXTENDS of user modules")
	}
	g.classifyConstants()
	g.typeVars()
	g.findInitNext()
	g.compileInit()
	g.compileNext()
	g.compileProperties()
	g.compileAnnotations()
	g.compileFairness()
}

// refsVars reports whether e refers to a state variable, directly or
// through definitions.
func (g *gen) refsVars(e tla.Expr, seen map[string]bool) bool {
	found := false
	tla.Inspect(e, func(n tla.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *tla.Ident:
			if g.varIdx[x.Name] != nil {
				found = true
			} else if d := g.defs[x.Name]; d != nil && !seen[x.Name] {
				seen[x.Name] = true
				found = g.refsVars(d.Body, seen)
			}
		case *tla.OpApp:
			if d := g.defs[x.Name]; d != nil && !seen[x.Name] {
				seen[x.Name] = true
				found = g.refsVars(d.Body, seen)
			}
		}
		return !found
	})
	return found
}

// primed reports whether e contains a prime or UNCHANGED, directly or
// through definitions: whether it is an action.
func (g *gen) primed(e tla.Expr, seen map[string]bool) bool {
	found := false
	tla.Inspect(e, func(n tla.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *tla.OpApp:
			if x.Name == "'" || x.Name == "UNCHANGED" {
				found = true
			} else if d := g.defs[x.Name]; d != nil && !seen[x.Name] {
				seen[x.Name] = true
				found = g.primed(d.Body, seen)
			}
		case *tla.Ident:
			if d := g.defs[x.Name]; d != nil && !seen[x.Name] {
				seen[x.Name] = true
				found = g.primed(d.Body, seen)
			}
		}
		return !found
	})
	return found
}

// findInitNext reads Init and Next from SPECIFICATION (Init /\ [][Next]_v
// /\ fairness) or INIT/NEXT of the configurations, which must agree.
func (g *gen) findInitNext() {
	for _, c := range g.in.Configs {
		var init, next string
		switch {
		case c.Specification != nil:
			def := g.defs[c.Specification.Name]
			if def == nil {
				panic(&Error{File: c.File, Pos: c.Specification.Pos, Msg: "SPECIFICATION " + c.Specification.Name + " is not defined"})
			}
			items := []tla.Expr{def.Body}
			if j, ok := def.Body.(*tla.Junction); ok && j.Op == tla.And {
				items = j.Items
			}
			for _, it := range items {
				switch x := it.(type) {
				case *tla.Ident:
					if init == "" {
						init = x.Name
					}
				case *tla.OpApp:
					if x.Name == "[]" {
						if box, ok := x.Args[0].(*tla.ActionBox); ok {
							if id, ok := box.Action.(*tla.Ident); ok {
								next = id.Name
							}
						}
					}
				}
			}
			if init == "" || next == "" {
				g.unsupported(def.At, "specification %s: gen reads Init /\\ [][Next]_vars /\\ fairness", c.Specification.Name)
			}
		case c.Init != nil && c.Next != nil:
			init, next = c.Init.Name, c.Next.Name
		default:
			panic(&Error{File: c.File, Msg: "the configuration names neither SPECIFICATION nor INIT and NEXT"})
		}
		if c.Specification != nil {
			if g.specName != "" && g.specName != c.Specification.Name {
				panic(&Error{File: c.File, Pos: c.Specification.Pos, Msg: fmt.Sprintf("configurations name different specifications (%s, %s)", g.specName, c.Specification.Name)})
			}
			g.specName = c.Specification.Name
		}
		if g.initName != "" && (g.initName != init || g.nextName != next) {
			panic(&Error{File: c.File, Msg: fmt.Sprintf("configurations disagree on the initial predicate and next-state relation (%s/%s vs %s/%s)", g.initName, g.nextName, init, next)})
		}
		g.initName, g.nextName = init, next
	}
	for _, n := range []string{g.initName, g.nextName} {
		if d := g.defs[n]; d == nil || len(d.Params) > 0 {
			g.fail(g.mod.At, "%s is not a definition without parameters", n)
		}
	}
}

// sourceHash is the SHA-256 of the spec text.
func (g *gen) sourceHash() string {
	h := sha256.Sum256(g.in.Source)
	return hex.EncodeToString(h[:])
}

// docOf renders the comment block above a definition as Go comment lines,
// dropping annotation lines.
func (g *gen) docOf(n tla.Node, goName string) string {
	var lines []string
	for _, c := range g.mod.Doc(n) {
		for _, l := range strings.Split(c.Text, "\n") {
			l = strings.TrimSpace(l)
			l = strings.TrimPrefix(l, `\*`)
			l = strings.TrimPrefix(l, "(*")
			l = strings.TrimSuffix(l, "*)")
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "@") {
				continue
			}
			lines = append(lines, l)
		}
	}
	var b bytes.Buffer
	if len(lines) == 0 {
		fmt.Fprintf(&b, "// %s is compiled from the spec's definition of the same name.\n", goName)
		return b.String()
	}
	fmt.Fprintf(&b, "// %s: ", goName)
	for i, l := range lines {
		if i > 0 {
			b.WriteString("// ")
		}
		b.WriteString(l + "\n")
	}
	return b.String()
}

func sortedStrs(m map[string]bool) []string {
	var out []string
	for s := range m {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}
