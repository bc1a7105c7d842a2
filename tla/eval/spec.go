package eval

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

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
	Module *tla.Module
	Vars   []string // state variables, in declaration order
	info   *tla.Info
	rootT  *template
	root   *context
	// rootScope is the root context's scope of the root module's file.
	rootScope *scope
	assumes   []assume
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
	// bound are the root names the model binds (unscoped); builtins the
	// built-in operators it replaces, in every module; scoped the bindings
	// of one module, by module name and name.
	bound    map[*tla.Symbol]*Binding
	builtins map[tla.Op]*Binding
	scoped   map[string]map[string]*Binding
	// scopedDefs are the definitions a scoped binding replaces wherever
	// they are used ([M] X <- Y, X defined in M).
	scopedDefs map[*tla.Symbol]*Binding
	// rng picks RandomElement's elements, from a fixed seed so that runs
	// are reproducible.
	rngMu sync.Mutex
	rng   *rand.Rand
	guard guard
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
	e    expr
	unit int
}

// NewSpec binds the constants of the resolved specification's root module
// (and of the modules it extends) and compiles its definitions for
// evaluation.
func NewSpec(info *tla.Info, bindings []Binding) (_ *Spec, err error) {
	defer recoverError(&err)
	root := info.Modules.Root
	ns := info.Namespace(root)
	sp := &Spec{Module: root, info: info, bound: map[*tla.Symbol]*Binding{}, builtins: map[tla.Op]*Binding{},
		scoped: map[string]map[string]*Binding{}, scopedDefs: map[*tla.Symbol]*Binding{}}
	for _, v := range ns.Variables {
		sp.Vars = append(sp.Vars, v.Name)
	}
	for i := range bindings {
		if err := sp.bind(&bindings[i]); err != nil {
			return nil, err
		}
	}
	sp.rootT = sp.newTemplate(ns, nil, nil, 0)
	sp.compileAll(sp.rootT)
	sp.root = newContext(sp.rootT, nil, nil)
	sp.rootScope = &sp.root.units[sp.rootT.unitOf[root]]
	return sp, nil
}

// bind records a binding of the model, or says why it cannot be.
func (sp *Spec) bind(b *Binding) error {
	root := sp.Module
	rootNames := func(name string) *tla.Symbol { return sp.info.Lookup(root, name) }
	if b.Subst != "" {
		if t := rootNames(b.Subst); t == nil || t.Kind != tla.SymDefinition || t.Local {
			if b.Module != "" {
				return buildErr(b.File, b.Pos, "%s <- [%s] %s: %s is not a definition of %s", b.Name, b.Module, b.Subst, b.Subst, root.Name)
			}
			return buildErr(b.File, b.Pos, "%s <- %s: %s is not a definition of %s", b.Name, b.Subst, b.Subst, root.Name)
		}
	}
	if b.Module != "" {
		m := sp.moduleNamed(b.Module)
		if m == nil {
			return buildErr(b.File, b.Pos, "the model binds %s in module %s, which is not part of the specification", b.Name, b.Module)
		}
		if sp.scoped[b.Module] == nil {
			sp.scoped[b.Module] = map[string]*Binding{}
		}
		sp.scoped[b.Module][b.Name] = b
		if s := sp.info.Lookup(m, b.Name); s != nil && s.Kind == tla.SymDefinition && s.Module == m && s.Via == nil {
			// [M] X <- Y replaces M's definition of X wherever it is
			// used, also through an instance (N!X).
			sp.scopedDefs[s] = b
		}
		return nil
	}
	s := rootNames(b.Name)
	switch {
	case s == nil:
		if m, ok := b.Value.(*value.Model); ok && m.Name == b.Name {
			// TLC accepts `r1 = r1` for a name the spec does not declare:
			// it only introduces the model value.
			sp.Warnings = append(sp.Warnings, fmt.Sprintf("%s:%s: %s is not a constant of %s; %s = %s only names a model value",
				b.File, b.Pos, b.Name, root.Name, b.Name, b.Name))
			return nil
		}
		if op, ok := builtinNamed(b.Name); ok {
			// Nat <- NatOverride: TLC replaces the one definition of Nat,
			// so the override holds in every module.
			sp.builtins[op] = b
			return nil
		}
		return buildErr(b.File, b.Pos, "the model binds %s, which %s neither declares nor defines", b.Name, root.Name)
	case s.Kind == tla.SymBuiltin:
		sp.builtins[s.Builtin.Op] = b
	case s.Kind == tla.SymVariable:
		return buildErr(b.File, b.Pos, "the model cannot bind %s: it is a variable", b.Name)
	case s.Kind == tla.SymInstance:
		return buildErr(b.File, b.Pos, "the model cannot bind %s: it is a module instance", b.Name)
	default:
		// A constant, or a definition (TLC lets a model override a
		// definition by a value or another definition).
		sp.bound[s] = b
	}
	return nil
}

// builtinNamed finds the built-in operator of a name, whatever module
// defines it.
func builtinNamed(name string) (tla.Op, bool) {
	for _, b := range tla.Builtins {
		if b.Name == name {
			return b.Op, true
		}
	}
	return tla.OpNone, false
}

// moduleNamed finds a module of the specification by name: the root, a
// module the loader found, or a submodule of one.
func (sp *Spec) moduleNamed(name string) *tla.Module {
	mods := sp.info.Modules
	if m := mods.ByName[name]; m != nil {
		return m
	}
	var found *tla.Module
	for _, m := range mods.Order {
		tla.Inspect(m, func(n tla.Node) bool {
			if sm, ok := n.(*tla.Module); ok && sm.Name == name && found == nil {
				found = sm
			}
			_, isMod := n.(*tla.Module)
			return found == nil && isMod
		})
	}
	return found
}

// newTemplate makes the template of a namespace: the root (inst nil) or
// the module an INSTANCE of parent, written in parent's unit instUnit,
// instantiates. Its definitions are compiled by compileAll.
func (sp *Spec) newTemplate(ns *tla.Namespace, inst *tla.Instance, parent *template, instUnit int) *template {
	t := &template{spec: sp, ns: ns, inst: inst, parent: parent, instUnit: instUnit,
		unitOf: map[*tla.Module]int{}, defs: map[*tla.Symbol]*defn{}, subOf: map[*tla.Instance]int{},
		namedOf: map[*tla.Instance]*namedInst{}, substs: map[*tla.Symbol]*substitution{}}
	for _, mu := range ns.Units {
		unit, ok := t.unitOf[mu.Module]
		if !ok {
			unit = len(t.units)
			t.unitOf[mu.Module] = unit
			t.units = append(t.units, mu.Module)
		}
		d := &defn{t: t, unit: unit}
		switch u := mu.Unit.(type) {
		case *tla.OpDef:
			d.name, d.at, d.params, d.syntax = u.Name, u.At, u.Params, u.Body
			if mu.Module.Library {
				d.native = natives[mu.Module.Name][u.Name]
			}
		case *tla.FuncDef:
			d.name, d.at, d.syntax = u.Name, u.At, u.Body
		case *tla.Assume:
			if inst == nil {
				sp.assumes = append(sp.assumes, assume{unit: unit})
			}
			if u.Name == "" {
				continue
			}
			d.name, d.at, d.syntax = u.Name, u.At, u.Body
		case *tla.Theorem:
			if u.Name == "" || u.Body == nil {
				continue
			}
			d.name, d.at, d.syntax = u.Name, u.At, u.Body
		case *tla.Instance:
			ins := sp.info.Instantiated(u)
			if ins == nil || ins.Module == nil {
				continue // a standard module brings no definitions to compile
			}
			st := sp.newTemplate(ins, u, t, unit)
			if u.Name == "" {
				t.subOf[u] = len(t.subs)
				t.subs = append(t.subs, st)
			} else {
				ni := &namedInst{t: st, idx: len(t.named), nparams: len(u.Params), decl: u}
				t.named = append(t.named, ni)
				t.namedOf[u] = ni
			}
			continue
		default:
			continue
		}
		d.sym = sp.info.Declared(mu.Unit)
		if d.sym != nil {
			t.defs[d.sym] = d
		}
	}
	return t
}

// compileAll compiles every definition and assumption of t and of its
// instances.
func (sp *Spec) compileAll(t *template) {
	for _, d := range sortedDefs(t) {
		compileDef(d)
	}
	if t.inst == nil {
		i := 0
		for _, mu := range t.ns.Units {
			if a, ok := mu.Unit.(*tla.Assume); ok {
				c := &compiler{t: t, unit: t.unitOf[mu.Module]}
				sp.assumes[i].e, _ = c.expr(a.Body)
				i++
			}
		}
	}
	for _, st := range t.subs {
		sp.compileAll(st)
	}
	for _, ni := range t.named {
		sp.compileAll(ni.t)
	}
}

// sortedDefs lists t's definitions in source order, so that compiling
// (and what it reports) does not depend on map order.
func sortedDefs(t *template) []*defn {
	defs := make([]*defn, 0, len(t.defs))
	for _, d := range t.defs {
		defs = append(defs, d)
	}
	slices.SortFunc(defs, func(a, b *defn) int {
		if a.unit != b.unit {
			return a.unit - b.unit
		}
		if a.at.Line != b.at.Line {
			return a.at.Line - b.at.Line
		}
		return a.at.Col - b.at.Col
	})
	return defs
}

// CheckAssumptions evaluates every ASSUME of the root module.
func (sp *Spec) CheckAssumptions() (err error) {
	defer recoverError(&err)
	for _, a := range sp.assumes {
		c := &ctx{sc: &sp.root.units[a.unit], states: noStates}
		v := c.eval(a.e)
		if b, ok := v.(value.Bool); !ok || !bool(b) {
			return &tla.Error{File: c.sc.file, Pos: pos(a.e), Msg: "assumption is false: " + tla.Print(a.e.src())}
		}
	}
	return nil
}

// VarIndex returns the index of variable name, or -1.
func (sp *Spec) VarIndex(name string) int { return slices.Index(sp.Vars, name) }

// Defined reports whether name is defined (or declared) in the root scope.
func (sp *Spec) Defined(name string) bool { return sp.info.Lookup(sp.Module, name) != nil }

// Definition returns the body of a zero-parameter definition of the root
// scope.
func (sp *Spec) Definition(name string) (tla.Expr, error) {
	s := sp.info.Lookup(sp.Module, name)
	if s == nil || s.Kind != tla.SymDefinition {
		return nil, fmt.Errorf("%s is not defined in module %s", name, sp.Module.Name)
	}
	if s.Arity() > 0 {
		return nil, fmt.Errorf("%s takes %d arguments; a model needs a definition without arguments", name, s.Arity())
	}
	d, _ := sp.rootT.locate(s)
	if d == nil {
		return nil, fmt.Errorf("%s is not defined in module %s", name, sp.Module.Name)
	}
	return d.syntax, nil
}

// buildErr reports a problem of the model's bindings.
func buildErr(file string, pos tla.Pos, format string, args ...any) error {
	return &tla.Error{File: file, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
