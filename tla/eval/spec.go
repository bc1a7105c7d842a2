package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// Lookup finds a non-standard module by name (a sibling .tla file or a
// submodule).
type Lookup func(name string) (*tla.Module, bool)

// Binding gives a constant of the root module a value, or replaces it (or
// any definition, built-in operators such as Nat included) by another
// definition of the root module (`<-` in a cfg). With Module set, the
// binding applies within that module only (`X <- [M] Y`, `X = [M] v`).
type Binding struct {
	Name   string
	Value  value.Value // nil when Subst is set
	Subst  string      // name of the replacing definition
	Module string      // the module the binding is scoped to, or ""
	Pos    tla.Pos     // where the binding was written, for messages
	File   string
}

// Spec is a root module with its constants bound: the thing a model
// checker explores.
type Spec struct {
	Module  *tla.Module
	Vars    []string // state variables, in declaration order
	root    *scope
	lookup  Lookup
	assumes []assume
	// Warnings lists things the evaluator accepted but ignores.
	Warnings []string
	// Print, if set, receives the output of TLC's Print and PrintT (by
	// default it is dropped). It may be called from several goroutines.
	Print func(string)
	// Checker, if set, is the model checker that TLCGet and TLCSet see
	// (tlc.go); regs are TLC's registers.
	Checker Checker
	regs    registers
	// ReadFile and Environ, if set, are how library operators read a file
	// (Json's JsonDeserialize, IOUtils' Deserialize) and the environment
	// (IOUtils' IOEnv), as TLC does: the checker's core does no I/O.
	ReadFile func(name string) ([]byte, error)
	Environ  func() []string
	// overrides are built-in operators replaced by the model; scoped are
	// the module-scoped bindings, by module name.
	overrides map[string]*entity
	scoped    map[string][]Binding
	// symbols are the operator symbols the spec's modules or its model
	// define or bind (nil when none): any other symbol is built in, found
	// without looking it up.
	symbols   map[string]bool
	rootScope *scope // the root scope, as soon as it is being built
	// built is set once NewSpec has bound the model's constants: the
	// names of the scopes built so far do not change after, and a name of
	// the syntax tree may keep what it stands for (scope.lookupAt).
	built bool
	// rng picks RandomElement's elements, from a fixed seed so that runs
	// are reproducible.
	rngMu sync.Mutex
	rng   *rand.Rand
}

// random returns a pseudo-random number in [0, n), the same sequence in
// every run.
func (sp *Spec) random(n int) int {
	sp.rngMu.Lock()
	defer sp.rngMu.Unlock()
	if sp.rng == nil {
		sp.rng = rand.New(rand.NewPCG(1, 2))
	}
	return sp.rng.IntN(n)
}

type assume struct {
	expr tla.Expr
	sc   *scope
}

// NewSpec binds the constants of root (and of the modules it extends) and
// prepares its definitions for evaluation.
func NewSpec(root *tla.Module, lookup Lookup, bindings []Binding) (_ *Spec, err error) {
	defer recoverError(&err)
	sp := &Spec{Module: root, lookup: lookup, overrides: map[string]*entity{}, scoped: map[string][]Binding{}}
	for _, b := range bindings {
		if b.Module != "" {
			if _, ok := sp.findModuleNamed(root, b.Module); !ok {
				return nil, buildErr(b.File, b.Pos, "the model binds %s in module %s, which is not part of the specification", b.Name, b.Module)
			}
			sp.scoped[b.Module] = append(sp.scoped[b.Module], b)
		}
	}
	sc, err := sp.buildScope(root, nil, nil, true)
	if err != nil {
		return nil, err
	}
	sp.root = sc
	sp.collectSymbols(root, map[*tla.Module]bool{})
	for _, b := range bindings {
		sp.addSymbol(b.Name)
	}
	for _, b := range bindings {
		if b.Module != "" {
			if b.Subst != "" && sc.names[b.Subst] == nil {
				return nil, buildErr(b.File, b.Pos, "%s <- [%s] %s: %s is not a definition of %s", b.Name, b.Module, b.Subst, b.Subst, root.Name)
			}
			continue
		}
		e := sc.names[b.Name]
		var target *entity
		if b.Subst != "" {
			target = sc.names[b.Subst]
			if target == nil || target.kind != entDef {
				return nil, buildErr(b.File, b.Pos, "%s <- %s: %s is not a definition of %s", b.Name, b.Subst, b.Subst, root.Name)
			}
		}
		switch {
		case e == nil && isBuiltinName(b.Name):
			// Nat <- NatOverride: TLC replaces the one definition of Nat,
			// so the override holds in every module.
			if target != nil {
				sp.overrides[b.Name] = &entity{kind: entDef, name: b.Name, def: target.def, pos: target.pos, file: target.file}
			} else {
				sp.overrides[b.Name] = &entity{kind: entConst, name: b.Name, val: b.Value, pos: b.Pos, file: b.File}
			}
		case e == nil:
			if m, ok := b.Value.(*value.Model); ok && m.Name == b.Name {
				// TLC accepts `r1 = r1` for a name the spec does not
				// declare: it only introduces the model value.
				sp.Warnings = append(sp.Warnings, fmt.Sprintf("%s:%s: %s is not a constant of %s; %s = %s only names a model value",
					b.File, b.Pos, b.Name, root.Name, b.Name, b.Name))
				continue
			}
			return nil, buildErr(b.File, b.Pos, "the model binds %s, which %s neither declares nor defines", b.Name, root.Name)
		case target != nil:
			sc.names[b.Name] = &entity{kind: entDef, name: b.Name, def: target.def, pos: target.pos, file: target.file}
		case e.kind == entUnbound || e.kind == entConst:
			sc.names[b.Name] = &entity{kind: entConst, name: b.Name, val: b.Value, pos: e.pos, file: e.file}
		case e.kind == entDef:
			// TLC lets a model override a definition by a value.
			sc.names[b.Name] = &entity{kind: entConst, name: b.Name, val: b.Value, pos: e.pos, file: e.file}
		default:
			return nil, buildErr(b.File, b.Pos, "the model cannot bind %s: it is a variable", b.Name)
		}
	}
	sp.built = true
	return sp, nil
}

// collectSymbols records the operator symbols that mod, and the modules
// it extends or instantiates, define or declare (a user-defined a \prec b,
// a parameter _+_, an instance's + <- Plus).
func (sp *Spec) collectSymbols(mod *tla.Module, seen map[*tla.Module]bool) {
	if seen[mod] {
		return
	}
	seen[mod] = true
	visit := func(name string) {
		if m, ok := sp.findModule(mod, name); ok {
			sp.collectSymbols(m, seen)
		}
	}
	for _, ext := range mod.Extends {
		visit(ext.Name)
	}
	tla.Inspect(mod, func(n tla.Node) bool {
		switch x := n.(type) {
		case *tla.OpDef:
			sp.addSymbol(x.Name)
		case *tla.Param:
			sp.addSymbol(x.Name)
		case *tla.Subst:
			sp.addSymbol(x.Name)
		case *tla.Instance:
			visit(x.Module)
		}
		return true
	})
}

func (sp *Spec) addSymbol(name string) {
	if isSymbol(name) {
		if sp.symbols == nil {
			sp.symbols = map[string]bool{}
		}
		sp.symbols[name] = true
	}
}

// isSymbol reports whether name is an operator symbol (=, \in, -.) rather
// than an identifier.
func isSymbol(name string) bool {
	if name == "" {
		return false
	}
	b := name[0]
	return !(b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z')
}

// isBuiltinName reports whether name is an operator of a standard module
// that the evaluator implements (Nat, Seq, Cardinality, ...).
func isBuiltinName(name string) bool {
	_, ok := builtinConstant(name)
	return ok || isBuiltinOp(name)
}

// findModuleNamed finds a module of the specification by name: the root,
// a submodule, or a module the loader found.
func (sp *Spec) findModuleNamed(root *tla.Module, name string) (*tla.Module, bool) {
	if root.Name == name {
		return root, true
	}
	return sp.findModule(root, name)
}

// unitScope returns the scope in which the definitions of module mod,
// merged into sc, are evaluated: one that names mod's file (for messages)
// and holds the bindings the model scopes to mod.
func (sp *Spec) unitScope(sc *scope, mod *tla.Module, cache map[*tla.Module]*scope) *scope {
	if us, ok := cache[mod]; ok {
		return us
	}
	us := &scope{names: sc.names, file: mod.File, module: sc.module, spec: sp, consts: sc.consts, domains: sc.domains}
	if bs := sp.scoped[mod.Name]; len(bs) > 0 {
		us = &scope{names: map[string]*entity{}, parent: sc, file: mod.File, module: sc.module, spec: sp, consts: sc.consts, domains: sc.domains}
		for _, b := range bs {
			if b.Subst != "" {
				// Resolved in the root module, where the model's
				// definitions are.
				us.names[b.Name] = &entity{kind: entSubst, name: b.Name, pos: b.Pos, file: b.File,
					subst: &subst{expr: &tla.Ident{At: b.Pos, Name: b.Subst}, sc: sp.rootScope}}
			} else {
				us.names[b.Name] = &entity{kind: entConst, name: b.Name, val: b.Value, pos: b.Pos, file: b.File}
			}
		}
	}
	cache[mod] = us
	return us
}

// flatten returns the units of mod preceded by those of the modules it
// extends, each module once, extended modules first.
func (sp *Spec) flatten(mod *tla.Module, seen map[string]bool, out *[]unitIn) error {
	if seen[mod.Name] {
		return nil
	}
	seen[mod.Name] = true
	for _, ext := range mod.Extends {
		if tla.StandardModules[ext.Name] {
			continue
		}
		m, ok := sp.findModule(mod, ext.Name)
		if !ok {
			return buildErr(mod.File, ext.At, "EXTENDS %s: no such module", ext.Name)
		}
		if err := sp.flatten(m, seen, out); err != nil {
			return err
		}
	}
	for _, u := range mod.Units {
		*out = append(*out, unitIn{u, mod})
	}
	return nil
}

type unitIn struct {
	unit tla.Unit
	mod  *tla.Module
}

func (sp *Spec) findModule(from *tla.Module, name string) (*tla.Module, bool) {
	for _, u := range from.Units {
		if m, ok := u.(*tla.Module); ok && m.Name == name {
			return m, true
		}
	}
	if sp.lookup == nil {
		return nil, false
	}
	return sp.lookup(name)
}

// buildScope builds the scope of mod. For the root module, constants are
// unbound and variables get indices; for an instance, constants and
// variables are replaced by substitutions (explicit, or implicit by name in
// the outer scope).
func (sp *Spec) buildScope(mod *tla.Module, inst *tla.Instance, outer *ctx, isRoot bool) (*scope, error) {
	sc := &scope{names: map[string]*entity{}, file: mod.File, module: mod.Name, spec: sp, consts: &sync.Map{}, domains: &sync.Map{}}
	if isRoot {
		sp.rootScope = sc
	}
	scopes := map[*tla.Module]*scope{}
	var units []unitIn
	if err := sp.flatten(mod, map[string]bool{}, &units); err != nil {
		return nil, err
	}
	explicit := map[string]*tla.Subst{}
	if inst != nil {
		for _, s := range inst.Subst {
			explicit[s.Name] = s
		}
	}
	declare := func(name string, pos tla.Pos, file string, isVar bool) {
		if isRoot {
			if isVar {
				sc.names[name] = &entity{kind: entVar, name: name, index: len(sp.Vars), pos: pos, file: file}
				sp.Vars = append(sp.Vars, name)
			} else {
				sc.names[name] = &entity{kind: entUnbound, name: name, pos: pos, file: file}
			}
			return
		}
		var e tla.Expr = &tla.Ident{At: inst.At, Name: name}
		if s, ok := explicit[name]; ok {
			e = s.Expr
		}
		sc.names[name] = &entity{kind: entSubst, name: name, pos: pos, file: file,
			subst: &subst{expr: e, sc: outer.sc, env: outer.env}}
	}
	for _, ui := range units {
		file := ui.mod.File
		usc := sp.unitScope(sc, ui.mod, scopes)
		switch u := ui.unit.(type) {
		case *tla.Constant:
			for _, p := range u.Names {
				declare(p.Name, p.At, file, false)
			}
		case *tla.Variable:
			for _, id := range u.Names {
				declare(id.Name, id.At, file, true)
			}
		case *tla.OpDef:
			d := &def{name: u.Name, params: u.Params, body: u.Body, sc: usc, file: file, pos: u.At, level: -1}
			if ui.mod.Library {
				d.native = natives[ui.mod.Name][u.Name]
			}
			sc.names[u.Name] = &entity{kind: entDef, name: u.Name, pos: u.At, file: file, def: d}
			if o := usc.names[u.Name]; usc.parent != nil && o != nil {
				// [M] X <- Y replaces M's definition of X wherever it is
				// used, also through an instance (N!X).
				sc.names[u.Name] = o
			}
		case *tla.FuncDef:
			sc.names[u.Name] = &entity{kind: entDef, name: u.Name, pos: u.At, file: file,
				def: &def{name: u.Name, fn: u, body: u.Body, sc: usc, file: file, pos: u.At, level: -1}}
		case *tla.Instance:
			m, ok := sp.findModule(ui.mod, u.Module)
			if !ok {
				if tla.StandardModules[u.Module] {
					continue // INSTANCE Naturals etc. adds nothing we lack
				}
				return nil, buildErr(file, u.ModuleAt, "INSTANCE %s: no such module", u.Module)
			}
			in := &instance{decl: u, outer: usc, module: m}
			if u.Name != "" {
				sc.names[u.Name] = &entity{kind: entInstance, name: u.Name, inst: in, pos: u.At, file: file}
				continue
			}
			isc, err := sp.buildScope(m, u, &ctx{sc: usc, frame: noStates}, false)
			if err != nil {
				return nil, err
			}
			for name, e := range isc.names {
				if e.kind == entDef || e.kind == entInstance {
					if _, clash := sc.names[name]; !clash {
						sc.names[name] = e
					}
				}
			}
		case *tla.Assume:
			if isRoot {
				sp.assumes = append(sp.assumes, assume{u.Body, usc})
			}
			if u.Name != "" {
				sc.names[u.Name] = &entity{kind: entDef, name: u.Name, pos: u.At, file: file,
					def: &def{name: u.Name, body: u.Body, sc: usc, file: file, pos: u.At, level: -1}}
			}
		case *tla.Theorem:
			// A named theorem can be referred to (Thm!: is its statement);
			// the checker never evaluates theorems otherwise.
			if u.Name != "" && u.Body != nil {
				sc.names[u.Name] = &entity{kind: entDef, name: u.Name, pos: u.At, file: file,
					def: &def{name: u.Name, body: u.Body, sc: usc, file: file, pos: u.At, level: -1}}
			}
		case *tla.Module:
			// Submodules are found by findModule when instantiated.
		}
	}
	return sc, nil
}

// scopeOf returns the scope of a named instance applied to args (evaluated
// in c).
func (in *instance) scopeOf(c *ctx, args []value.Value, at tla.Pos) *scope {
	if len(in.decl.Params) == 0 {
		if in.sc == nil {
			sc, err := in.outer.spec.buildScope(in.module, in.decl, &ctx{sc: in.outer, frame: noStates}, false)
			if err != nil {
				panic(err)
			}
			in.sc = sc
		}
		return in.sc
	}
	if len(args) != len(in.decl.Params) {
		c.fail(at, "instance %s takes %d arguments, got %d", in.decl.Name, len(in.decl.Params), len(args))
	}
	env := (*env)(nil)
	for i, p := range in.decl.Params {
		env = env.bind(p.Name, args[i])
	}
	sc, err := in.outer.spec.buildScope(in.module, in.decl, &ctx{sc: in.outer, env: env, frame: noStates}, false)
	if err != nil {
		panic(err)
	}
	return sc
}

// CheckAssumptions evaluates every ASSUME of the root module.
func (sp *Spec) CheckAssumptions() (err error) {
	defer recoverError(&err)
	for _, a := range sp.assumes {
		c := &ctx{sc: a.sc, frame: noStates}
		v := c.eval(a.expr)
		if b, ok := v.(value.Bool); !ok || !bool(b) {
			return &tla.Error{File: a.sc.file, Pos: a.expr.Pos(), Msg: "assumption is false: " + tla.Print(a.expr)}
		}
	}
	return nil
}

// VarIndex returns the index of variable name, or -1.
func (sp *Spec) VarIndex(name string) int { return slices.Index(sp.Vars, name) }

// Defined reports whether name is defined (or declared) in the root scope.
func (sp *Spec) Defined(name string) bool { return sp.root.names[name] != nil }

// Definition returns the body and position of a zero-parameter definition
// of the root scope.
func (sp *Spec) Definition(name string) (tla.Expr, error) {
	e := sp.root.names[name]
	if e == nil || e.kind != entDef {
		return nil, fmt.Errorf("%s is not defined in module %s", name, sp.Module.Name)
	}
	if len(e.def.params) > 0 {
		return nil, fmt.Errorf("%s takes %d arguments; a model needs a definition without arguments", name, len(e.def.params))
	}
	return e.def.body, nil
}
