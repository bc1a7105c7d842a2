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
// returns Go source. Files live in gen/cmd/gen and cmd/roomspec.
package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/format"
	"slices"
	"sort"
	"strings"

	"github.com/roomspec/roomspec/spec/tla"
	"github.com/roomspec/roomspec/spec/tla/cfg"
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
}

// Generate compiles in into Go source (gofmt-formatted).
func Generate(in Input) (src []byte, err error) {
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
		in: in, mod: m, file: file,
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

// classifyConstants fixes each constant's kind from the configurations:
// every configuration must give it a value of the same kind.
func (g *gen) classifyConstants() {
	if len(g.in.Configs) == 0 {
		g.fail(g.mod.At, "no configuration given: gen needs at least one .cfg to know the constants' kinds")
	}
	for _, name := range g.cnames {
		for _, c := range g.in.Configs {
			var def *cfg.ConstantDef
			for _, d := range c.Constants {
				if d.Name == name {
					def = d
				}
			}
			if def == nil {
				panic(&Error{File: c.File, Msg: fmt.Sprintf("constant %s is not given a value", name)})
			}
			if def.Value == nil || len(def.Args) > 0 || def.Module != "" {
				panic(&Error{File: c.File, Pos: def.Pos, Msg: fmt.Sprintf("constant %s: only plain values are %v", name, ErrUnsupported), Err: ErrUnsupported})
			}
			var k constKind
			v := def.Value
			switch v.Kind {
			case cfg.Int:
				k = cInt
			case cfg.Bool:
				k = cBool
			case cfg.Set:
				k = cModelSet
				allInt := len(v.Elem) > 0
				for _, e := range v.Elem {
					if e.Kind != cfg.Int {
						allInt = false
					}
					if e.Kind != cfg.ModelValue && e.Kind != cfg.Int {
						panic(&Error{File: c.File, Pos: e.Pos, Msg: fmt.Sprintf("constant %s: a set of %s is %v (model values or integers only)", name, e.Kind, ErrUnsupported), Err: ErrUnsupported})
					}
				}
				if allInt {
					k = cIntSet
				}
			default:
				panic(&Error{File: c.File, Pos: v.Pos, Msg: fmt.Sprintf("constant %s: a %s value is %v", name, v.Kind, ErrUnsupported), Err: ErrUnsupported})
			}
			if old, ok := g.consts[name]; ok && old != k {
				panic(&Error{File: c.File, Pos: def.Pos, Msg: fmt.Sprintf("constant %s has a different kind of value than in another configuration", name)})
			}
			g.consts[name] = k
		}
		switch g.consts[name] {
		case cModelSet:
			g.domainOfConst(name, dModel)
		case cIntSet:
			g.domainOfConst(name, dInts)
		}
	}
}

func (g *gen) domainOfConst(name string, k domKind) *domain {
	if d, ok := g.domains[name]; ok {
		return d
	}
	d := &domain{name: name, kind: k, goType: exported(name), field: exported(name)}
	g.domains[name] = d
	g.domList = append(g.domList, d)
	return d
}

// typeVars gives every variable its type from the conjuncts `v \in T` of
// TypeOK.
func (g *gen) typeVars() {
	def := g.defs["TypeOK"]
	if def == nil {
		g.fail(g.mod.At, "no TypeOK: gen derives the variables' Go types from a definition TypeOK == /\\ v \\in T /\\ ...")
	}
	var walk func(e tla.Expr)
	walk = func(e tla.Expr) {
		switch n := e.(type) {
		case *tla.Junction:
			if n.Op == tla.And {
				for _, it := range n.Items {
					walk(it)
				}
			}
		case *tla.OpApp:
			if n.Name == `/\` {
				for _, it := range n.Args {
					walk(it)
				}
				return
			}
			if n.Name == `\in` && len(n.Prefix) == 0 {
				if id, ok := n.Args[0].(*tla.Ident); ok {
					if v := g.varIdx[id.Name]; v != nil && v.t == nil {
						v.t = g.typeOfSet(n.Args[1], "")
						v.typeText = tla.Print(n.Args[1])
					}
				}
			}
		}
	}
	walk(def.Body)
	for _, v := range g.vars {
		if v.t == nil {
			g.fail(v.pos, "TypeOK has no conjunct %s \\in T that gives %s a type", v.name, v.name)
		}
	}
	g.varsOK = true
}

// typeOfSet returns the type of the elements of the set expression e, as
// written in TypeOK. hint names record types.
func (g *gen) typeOfSet(e tla.Expr, hint string) *typ {
	switch n := e.(type) {
	case *tla.Ident:
		switch n.Name {
		case "BOOLEAN":
			return boolT
		case "Nat", "Int":
			return intT
		}
		if k, ok := g.consts[n.Name]; ok {
			switch k {
			case cModelSet:
				return g.domains[n.Name].elemType()
			case cIntSet:
				return intT
			}
			g.fail(n.At, "%s is not a set", n.Name)
		}
		if d := g.defs[n.Name]; d != nil && len(d.Params) == 0 {
			if _, ok := d.Body.(*tla.Cross); ok {
				return g.domainOf(n).elemType()
			}
			return g.typeOfSet(d.Body, n.Name)
		}
	case *tla.SetEnum:
		if len(n.Elems) == 0 {
			g.unsupported(n.At, "the empty set as a type")
		}
		var t *typ
		for _, el := range n.Elems {
			var et *typ
			switch x := el.(type) {
			case *tla.Str:
				g.strs[x.Value] = true
				et = strT
			case *tla.Num:
				et = intT
			case *tla.Bool:
				et = boolT
			default:
				g.unsupported(el.Pos(), "a set of %T as a type (literals only)", el)
			}
			if t != nil && !sameType(t, et) {
				g.fail(el.Pos(), "a set mixes %s and %s", t, et)
			}
			t = et
		}
		return t
	case *tla.OpApp:
		if len(n.Prefix) > 0 {
			break
		}
		g.checkArity(n)
		switch n.Name {
		case `\cup`, `\cap`, `\`:
			a := g.typeOfSet(n.Args[0], hint)
			b := g.typeOfSet(n.Args[1], hint)
			if !sameType(a, b) {
				g.fail(n.At, "%s of sets of %s and %s", n.Name, a, b)
			}
			return a
		case "..":
			return intT
		case "SUBSET":
			et := g.typeOfSet(n.Args[0], "")
			g.needBitset(n.At, et)
			return &typ{kind: tSet, elem: et}
		case "Seq":
			return &typ{kind: tSeq, elem: g.typeOfSet(n.Args[0], hint)}
		}
	case *tla.FuncSet:
		d := g.domainOf(n.Dom)
		return &typ{kind: tFunc, dom: d, elem: g.typeOfSet(n.Rng, "")}
	case *tla.RecordSet:
		var fs []*field
		seen := map[string]bool{}
		for _, f := range n.Fields {
			if seen[f.Name] {
				g.fail(f.At, "record field %s given twice", f.Name)
			}
			seen[f.Name] = true
			fs = append(fs, &field{name: f.Name, goName: exported(f.Name), t: g.typeOfSet(f.Val, "")})
		}
		return g.recordType(fs, hint, n.At)
	case *tla.If:
		return g.typeOfSet(n.Then, hint)
	}
	g.unsupported(e.Pos(), "%s as a type in TypeOK", tla.Print(e))
	return nil
}

// needBitset records that sets of t are bitsets.
func (g *gen) needBitset(pos tla.Pos, t *typ) {
	switch t.kind {
	case tStr:
	case tElem:
		t.dom.inSet = true
	default:
		g.unsupported(pos, "a set of %s (sets hold model values, product elements or strings)", t)
	}
}

func (g *gen) recordType(fs []*field, hint string, pos tla.Pos) *typ {
	sort.Slice(fs, func(i, j int) bool { return fs[i].name < fs[j].name })
	t := &typ{kind: tRec, fields: fs}
	if old, ok := g.records[t.key()]; ok {
		return old
	}
	if hint == "" {
		hint = fmt.Sprintf("Record%d", len(g.recList)+1)
	}
	t.name = exported(hint)
	for _, r := range g.recList {
		if r.name == t.name {
			t.name = fmt.Sprintf("%s%d", t.name, len(g.recList)+1)
		}
	}
	g.records[t.key()] = t
	g.recList = append(g.recList, t)
	return t
}

// domainOf resolves e to a finite constant domain (function domains,
// quantifier ranges of actions).
func (g *gen) domainOf(e tla.Expr) *domain {
	id, ok := e.(*tla.Ident)
	if !ok {
		g.unsupported(e.Pos(), "%s as a function domain (name the set: a CONSTANT or a definition)", tla.Print(e))
	}
	if d, ok := g.domains[id.Name]; ok {
		return d
	}
	def := g.defs[id.Name]
	if def == nil || len(def.Params) > 0 {
		g.unsupported(id.At, "%s as a function domain", id.Name)
	}
	if g.refsVars(def.Body, map[string]bool{}) {
		g.unsupported(id.At, "%s as a function domain: it depends on variables", id.Name)
	}
	// A failure below (an unsupported expression) must leave no half-made
	// domain behind: liveness atoms are compiled on a best-effort basis.
	nDoms := len(g.domList)
	done := false
	defer func() {
		if !done {
			delete(g.domains, id.Name)
			g.domList = g.domList[:nDoms]
		}
	}()
	switch b := def.Body.(type) {
	case *tla.Cross:
		var comps []*domain
		for _, s := range b.Sets {
			comps = append(comps, g.domainOf(s))
		}
		d := &domain{name: id.Name, kind: dProduct, comps: comps, goType: exported(id.Name), field: exported(id.Name)}
		g.domains[id.Name] = d
		g.domList = append(g.domList, d)
		// Computed in LoadConfig once its components are.
		g.registerConstDef(id.Name, &typ{kind: tDomainSet, dom: d}, d)
		done = true
		return d
	}
	if g.isIntSetExpr(def.Body) {
		d := &domain{name: id.Name, kind: dInts, field: exported(id.Name)}
		g.domains[id.Name] = d
		g.domList = append(g.domList, d)
		g.registerConstDef(id.Name, &typ{kind: tIntSet, dom: d}, d)
		done = true
		return d
	}
	g.unsupported(id.At, "%s as a function domain (a constant set of model values, of integers, or a product of those)", id.Name)
	return nil
}

func (g *gen) isIntSetExpr(e tla.Expr) bool {
	switch n := e.(type) {
	case *tla.SetEnum:
		for _, el := range n.Elems {
			if _, ok := el.(*tla.Num); !ok {
				return false
			}
		}
		return len(n.Elems) > 0
	case *tla.If:
		return g.isIntSetExpr(n.Then) && g.isIntSetExpr(n.Else)
	case *tla.OpApp:
		if n.Name == ".." {
			return true
		}
		if n.Name == `\cup` || n.Name == `\cap` || n.Name == `\` {
			return g.isIntSetExpr(n.Args[0])
		}
	case *tla.Ident:
		if g.consts[n.Name] == cIntSet {
			return true
		}
		if d := g.defs[n.Name]; d != nil && len(d.Params) == 0 {
			return g.isIntSetExpr(d.Body)
		}
	}
	return false
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

func (g *gen) registerConstDef(name string, t *typ, d *domain) *constDef {
	if cd, ok := g.constDefs[name]; ok {
		return cd
	}
	def := g.defs[name]
	if g.constBusy[name] {
		g.unsupported(def.At, "recursive definition %s", name)
	}
	g.constBusy[name] = true
	defer delete(g.constBusy, name)
	cd := &constDef{name: name, goName: exported(name), dom: d}
	cx := &ctx{g: g}
	switch {
	case d != nil && d.kind == dProduct:
		var comps []string
		for _, c := range d.comps {
			comps = append(comps, g.domainValue(c))
		}
		cd.code = fmt.Sprintf("specrt.NewProduct(%q, %s)", name, strings.Join(comps, ", "))
		cd.t = t
	case d != nil && d.kind == dInts:
		cd.code = g.intSetExpr(cx, def.Body, name)
		cd.t = t
	default:
		code, ct := g.expr(cx, def.Body, nil)
		cd.code, cd.t = code, ct
	}
	g.constDefs[name] = cd
	g.constList = append(g.constList, cd)
	return cd
}

// domainValue is the Go expression of a domain's *Domain, registering a
// constant definition behind it if needed.
func (g *gen) domainValue(d *domain) string {
	if _, isConst := g.consts[d.name]; !isConst {
		if _, ok := g.constDefs[d.name]; !ok {
			g.domainOf(&tla.Ident{At: g.defs[d.name].At, Name: d.name})
		}
	}
	return "c." + d.field
}

// intSetExpr compiles a constant set of integers to a *Domain expression.
func (g *gen) intSetExpr(cx *ctx, e tla.Expr, name string) string {
	switch n := e.(type) {
	case *tla.SetEnum:
		var els []string
		for _, el := range n.Elems {
			c, _ := g.expr(cx, el, intT)
			els = append(els, c)
		}
		return fmt.Sprintf("specrt.NewInts(%q, %s)", name, strings.Join(els, ", "))
	case *tla.If:
		c, _ := g.expr(cx, n.Cond, boolT)
		return fmt.Sprintf("func() *specrt.Domain { if %s { return %s }; return %s }()", c, g.intSetExpr(cx, n.Then, name), g.intSetExpr(cx, n.Else, name))
	case *tla.OpApp:
		switch n.Name {
		case "..":
			a, _ := g.expr(cx, n.Args[0], intT)
			b, _ := g.expr(cx, n.Args[1], intT)
			return fmt.Sprintf("specrt.NewRange(%q, %s, %s)", name, a, b)
		case `\cup`, `\cap`, `\`:
			op := "specrt." + map[string]string{`\cup`: "UnionInts", `\cap`: "InterInts", `\`: "DiffInts"}[n.Name]
			return fmt.Sprintf("%s(%q, %s, %s)", op, name, g.intSetExpr(cx, n.Args[0], name), g.intSetExpr(cx, n.Args[1], name))
		}
	case *tla.Ident:
		if g.consts[n.Name] == cIntSet {
			return "c." + exported(n.Name)
		}
		if d := g.defs[n.Name]; d != nil {
			return g.domainValue(g.domainOf(n))
		}
	}
	g.unsupported(e.Pos(), "%s as a constant set of integers", tla.Print(e))
	return ""
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
