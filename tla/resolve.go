package tla

import (
	"fmt"
	"slices"
	"sort"
)

// Resolve binds every name of mods to what it means, once, as SANY does
// before TLC explores a state: a definition, a declared constant or
// variable, a parameter or a name bound inside an expression (by its
// binding group and slot), a module instance, or a built-in operator (by
// its Op). It checks what SANY checks: a name is declared before it is
// used (an operator used before its definition must be declared
// RECURSIVE); an application passes as many arguments as the operator
// takes, and an operator argument is an operator of the right arity; no
// name is declared twice, and a bound name, parameter or LET definition
// does not reuse a name already in scope; primes, UNCHANGED, ENABLED, [],
// <> and the other operators are applied to expressions of the levels they
// allow (constant, state, action, temporal). Built-in operators are those
// of the modules a module EXTENDS or INSTANCEs (see Builtins); theorems
// are not checked, since their proofs are skipped.
//
// The error, if any, is an ErrorList with every error found, each at its
// file, line and column; the Info is returned in any case, with the names
// that could be resolved.
func Resolve(mods *Modules) (*Info, error) {
	r := &resolver{
		info: &Info{
			Modules:   mods,
			uses:      map[Expr]Use{},
			spaces:    map[*Module]*Namespace{},
			substs:    map[*Instance][]*Substitution{},
			atBound:   map[*ExceptUpdate]bool{},
			groups:    map[Node]int{},
			instances: map[*Instance]*Namespace{},
			decls:     map[Node]*Symbol{},
		},
		imported: map[importKey]*Symbol{},
		standard: map[string]*Namespace{},
	}
	for _, m := range mods.Order {
		r.module(m, nil)
	}
	sortErrors(r.errs)
	return r.info, r.errs.Err()
}

// sortErrors puts errors in source order: files in the order of their
// first error, positions in a file in order.
func sortErrors(l ErrorList) {
	file := map[string]int{}
	for _, e := range l {
		if _, ok := file[e.File]; !ok {
			file[e.File] = len(file)
		}
	}
	slices.SortStableFunc(l, func(a, b *Error) int {
		if a.File != b.File {
			return file[a.File] - file[b.File]
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line - b.Pos.Line
		}
		return a.Pos.Col - b.Pos.Col
	})
}

// Info is what Resolve found: the meaning of every name of a
// specification. It is read-only once returned, and safe for concurrent
// use.
type Info struct {
	Modules *Modules
	uses    map[Expr]Use
	spaces  map[*Module]*Namespace
	substs  map[*Instance][]*Substitution
	atBound map[*ExceptUpdate]bool
	groups  map[Node]int
	// instances holds the namespace of the module each INSTANCE
	// instantiates.
	instances map[*Instance]*Namespace
	// decls maps each declaring node to its symbol.
	decls map[Node]*Symbol
	// parent, for the Info of an expression resolved later (ResolveExpr),
	// is the specification's.
	parent *Info
}

// ResolveExpr resolves an expression written apart from the modules (for
// tests and tools, or in a structured comment) as if it were at the end of
// module m, in file (for messages), and returns an Info that knows its
// names and in's. The names bound, if any, are in scope as bound names (of
// one binding group), like the parameters of the definition a comment
// annotates. in is not changed.
func (in *Info) ResolveExpr(m *Module, e Expr, file string, bound ...string) (*Info, error) {
	out := &Info{Modules: in.Modules, uses: map[Expr]Use{}, spaces: in.spaces, substs: in.substs,
		atBound: map[*ExceptUpdate]bool{}, groups: map[Node]int{}, instances: in.instances, decls: in.decls, parent: in}
	mm := *m
	mm.File = file
	r := &resolver{info: out, imported: map[importKey]*Symbol{}, standard: map[string]*Namespace{}, ns: in.spaces[m], mod: &mm}
	if r.ns == nil {
		return nil, fmt.Errorf("module %s was not resolved", m.Name)
	}
	if len(bound) > 0 {
		g := &group{}
		for i, name := range bound {
			g.syms = append(g.syms, &Symbol{Kind: SymBound, Name: name, Module: &mm, Local: true, Slot: i, defined: true})
		}
		r.groups = append(r.groups, g)
	}
	r.expr(e)
	sortErrors(r.errs)
	return out, r.errs.Err()
}

// Declared returns the symbol a declaring node declares (see Symbol.Decl):
// an *OpDef, *FuncDef, named *Assume or *Theorem, named *Instance, the
// *Param of a constant or parameter, the *Ident of a variable or bound
// name; nil for another node.
func (in *Info) Declared(decl Node) *Symbol { return in.decls[decl] }

// SymbolKind says what a name stands for.
type SymbolKind uint8

// Kinds of symbols.
const (
	SymConstant   SymbolKind = iota + 1 // a declared CONSTANT
	SymVariable                         // a declared VARIABLE
	SymDefinition                       // an operator or function definition (of a module or a LET), or a named ASSUME or THEOREM
	SymParameter                        // a parameter of an operator, a LAMBDA or an instance
	SymBound                            // a name bound by \A, \E, CHOOSE, a set or function constructor, or the @ of an EXCEPT update
	SymInstance                         // a named module instance, M == INSTANCE ...
	SymBuiltin                          // a built-in operator
)

var kindNames = [...]string{"", "constant", "variable", "definition", "parameter", "bound name", "module instance", "built-in operator"}

// String names the kind.
func (k SymbolKind) String() string { return kindNames[k] }

// Symbol is what a name stands for.
type Symbol struct {
	Kind SymbolKind
	Name string
	// Module is the module whose text declares the symbol (nil for a
	// built-in operator).
	Module *Module
	At     Pos
	// Decl is the declaring node: *OpDef, *FuncDef, *Assume or *Theorem for
	// a definition, *Param for a constant or a parameter, *Ident for a
	// variable or a bound name (nil for @), *Instance for an instance.
	Decl Node
	// Params has one entry per argument an application passes: 0 for an
	// ordinary argument, n for an operator argument taking n arguments.
	Params []int
	// Builtin describes a built-in operator.
	Builtin *Builtin
	// Local is set for a symbol bound inside an expression: a bound name,
	// a parameter, a LET definition or @. It lives in slot Slot of the
	// binding group of its binder (see Info.Group).
	Local bool
	Slot  int
	// Via, for a definition that an unnamed INSTANCE brings into a module,
	// is that INSTANCE, and Target the definition in the instantiated
	// module.
	Via    *Instance
	Target *Symbol
	// Recursive is set for an operator declared RECURSIVE.
	Recursive bool
	// Level is the level of a definition's body (of an application with
	// constant arguments); ParamMax is the highest level each argument may
	// have.
	Level    int
	ParamMax []int

	private  bool      // declared LOCAL: not brought by EXTENDS or INSTANCE
	defined  bool      // a RECURSIVE operator's definition has been read
	weight   []bool    // which arguments' levels raise an application's level
	outer    []*Symbol // parameters of enclosing definitions the level depends on
	maxLevel int       // a parameter's highest allowed level, while its definition is read
	subst    int       // an instance's highest level of a constant's substitution
}

// Arity is the number of arguments an application of s passes.
func (s *Symbol) Arity() int { return len(s.Params) }

// Use is what a name (an *Ident, an *OpApp or an *AtSign) stands for where
// it is written.
type Use struct {
	*Symbol
	// Up, for a local symbol, is the number of binding groups between the
	// use and the group of the symbol (0: the innermost).
	Up int
	// Path, for a module-qualified name M(a)!N!Op, lists the instances M
	// and N (the OpApp's Prefix holds their arguments).
	Path []*Symbol
	// Selector is set for a subexpression name Op!1!: (the OpApp's Prefix
	// and Name are the steps after Op, which is Symbol).
	Selector bool
}

// Use returns what e, an *Ident, *OpApp or *AtSign, stands for; ok is
// false for a name Resolve could not resolve (or a node it did not see).
func (in *Info) Use(e Expr) (u Use, ok bool) {
	if u, ok = in.uses[e]; !ok && in.parent != nil {
		return in.parent.Use(e)
	}
	return u, ok
}

// Namespace returns what module m declares and sees, nil for a module
// Resolve did not see.
func (in *Info) Namespace(m *Module) *Namespace { return in.spaces[m] }

// Lookup returns what name stands for at the end of module m, nil if
// nothing.
func (in *Info) Lookup(m *Module, name string) *Symbol {
	if ns := in.spaces[m]; ns != nil {
		return ns.lookup(name)
	}
	return nil
}

// Substitutions returns the substitutions of an INSTANCE of a user module:
// one per constant and variable of the instantiated module, written or
// implicit.
func (in *Info) Substitutions(inst *Instance) []*Substitution { return in.substs[inst] }

// Instantiated returns the namespace of the module an INSTANCE
// instantiates (nil if Resolve did not find it).
func (in *Info) Instantiated(inst *Instance) *Namespace { return in.instances[inst] }

// BindsAt reports whether the value of an EXCEPT update is evaluated in a
// binding group of its own holding @ (it is when the value uses @).
func (in *Info) BindsAt(u *ExceptUpdate) bool {
	return in.atBound[u] || in.parent != nil && in.parent.BindsAt(u)
}

// Group returns the number of slots of the binding group a binder opens:
// an *OpDef, *Lambda or *Instance (its parameters), a *Let (its
// definitions, in order, RECURSIVE declarations aside), a *Quant,
// *SetFilter, *SetMap, *FuncCons, *Choose or *FuncDef (its bound names, in
// order, tuple components one by one), an *ExceptUpdate (@, see BindsAt).
// A binder without names opens no group (0).
func (in *Info) Group(binder Node) int {
	if n, ok := in.groups[binder]; ok || in.parent == nil {
		return n
	}
	return in.parent.Group(binder)
}

// Substitution replaces a constant or variable of an instantiated module.
type Substitution struct {
	// Decl is the constant or variable of the instantiated module.
	Decl *Symbol
	// Expr replaces it: the expression written after WITH, or, for an
	// implicit substitution, an *Ident of the same name at the INSTANCE,
	// resolved there (Info.Use). An operator constant is replaced by an
	// operator: a name or a LAMBDA.
	Expr Expr
	// Implicit marks a substitution not written.
	Implicit bool
}

// Namespace is a module's view of names.
type Namespace struct {
	Module *Module
	// Constants and Variables are the declarations of the module and of
	// the modules it extends, in order (extended modules first).
	Constants, Variables []*Symbol
	// Units lists the units of the modules it extends, each module once,
	// then its own: what the module is made of.
	Units []ModuleUnit

	names    map[string]*Symbol // what the module sees at its end
	exported map[string]*Symbol // what EXTENDS and INSTANCE bring
	parent   *Namespace         // an enclosing module, for a submodule
}

// ModuleUnit is a unit and the module whose text holds it.
type ModuleUnit struct {
	Unit   Unit
	Module *Module
}

func (ns *Namespace) lookup(name string) *Symbol {
	for ; ns != nil; ns = ns.parent {
		if s := ns.names[name]; s != nil {
			return s
		}
	}
	return core[name]
}

// core holds the language's own operators, visible in every module.
var core = func() map[string]*Symbol {
	m := map[string]*Symbol{}
	for _, b := range builtinsOf[""] {
		m[b.Name] = builtinSymbol(b)
	}
	return m
}()

// builtinSymbols holds one symbol per built-in operator, shared by every
// resolution (and never written).
var builtinSymbols = func() (syms [numOps]*Symbol) {
	for _, b := range Builtins {
		syms[b.Op] = &Symbol{Kind: SymBuiltin, Name: b.Name, Params: b.Params, Builtin: b, Level: b.Level, defined: true}
	}
	return syms
}()

func builtinSymbol(b *Builtin) *Symbol { return builtinSymbols[b.Op] }

// resolver is the state of one Resolve.
type resolver struct {
	info     *Info
	errs     ErrorList
	imported map[importKey]*Symbol
	standard map[string]*Namespace

	// While a module is read:
	ns      *Namespace
	mod     *Module
	subs    []*Module // submodules read so far, visible to INSTANCE
	groups  []*group  // binding groups in scope, innermost last
	lenient bool      // reading a theorem: errors are not reported
	// defining is the operator whose body is being read.
	defining *OpDef
}

type importKey struct {
	via    *Instance
	target *Symbol
}

// group is a binding group: the names one binder binds.
type group struct {
	syms []*Symbol
	at   bool // the group of @
}

func (r *resolver) errorf(pos Pos, format string, args ...any) {
	if r.lenient {
		return
	}
	r.errs = append(r.errs, &Error{File: r.mod.File, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// where renders a symbol's declaration for messages.
func where(s *Symbol) string {
	switch {
	case s.Kind == SymBuiltin && s.Builtin.Module == "":
		return "a built-in operator"
	case s.Kind == SymBuiltin:
		return "an operator of the standard module " + s.Builtin.Module
	case s.Via != nil:
		return fmt.Sprintf("brought by the INSTANCE of %s at %s", s.Via.Module, s.Via.At)
	case s.Module != nil:
		return fmt.Sprintf("declared at %s:%s", s.Module.File, s.At)
	}
	return "declared elsewhere"
}

// module resolves m; parent is the namespace of the enclosing module of a
// submodule.
func (r *resolver) module(m *Module, parent *Namespace) *Namespace {
	if ns := r.info.spaces[m]; ns != nil {
		return ns
	}
	ns := &Namespace{Module: m, names: map[string]*Symbol{}, exported: map[string]*Symbol{}, parent: parent}
	r.info.spaces[m] = ns
	savedNS, savedMod, savedSubs, savedGroups, savedLenient, savedDef := r.ns, r.mod, r.subs, r.groups, r.lenient, r.defining
	r.ns, r.mod, r.subs, r.groups, r.lenient, r.defining = ns, m, nil, nil, false, nil
	seenUnits := map[*Module]bool{}
	for _, ext := range m.Extends {
		en := r.namespaceOf(ext.Name, ext.At)
		if en == nil {
			continue
		}
		for _, name := range sortedNames(en.exported) {
			r.declareAt(en.exported[name], ext.At, true)
		}
		ns.Constants = appendNew(ns.Constants, en.Constants...)
		ns.Variables = appendNew(ns.Variables, en.Variables...)
		for _, u := range en.Units {
			if !seenUnits[u.Module] {
				ns.Units = append(ns.Units, u)
			}
		}
		for _, u := range en.Units {
			seenUnits[u.Module] = true
		}
	}
	for _, u := range m.Units {
		ns.Units = append(ns.Units, ModuleUnit{u, m})
		r.unit(u)
	}
	r.ns, r.mod, r.subs, r.groups, r.lenient, r.defining = savedNS, savedMod, savedSubs, savedGroups, savedLenient, savedDef
	return ns
}

func appendNew(list []*Symbol, syms ...*Symbol) []*Symbol {
	for _, s := range syms {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

func sortedNames(m map[string]*Symbol) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// namespaceOf finds the module name EXTENDS or INSTANCE refers to from the
// current module: a standard module, a submodule read so far (of this
// module or an enclosing one), or a module of the specification.
func (r *resolver) namespaceOf(name string, at Pos) *Namespace {
	if StandardModules[name] {
		return r.standardNamespace(name)
	}
	for i := len(r.subs) - 1; i >= 0; i-- {
		if r.subs[i].Name == name {
			return r.info.spaces[r.subs[i]]
		}
	}
	for p := r.ns.parent; p != nil; p = p.parent {
		for _, u := range p.Module.Units {
			if sm, ok := u.(*Module); ok && sm.Name == name && r.info.spaces[sm] != nil {
				return r.info.spaces[sm]
			}
		}
	}
	if m := r.info.Modules.ByName[name]; m != nil {
		return r.module(m, nil)
	}
	r.errorf(at, "no module %s", name)
	return nil
}

// standardNamespace is the namespace of a standard module: its built-in
// operators and those of the standard modules it extends.
func (r *resolver) standardNamespace(name string) *Namespace {
	if ns := r.standard[name]; ns != nil {
		return ns
	}
	ns := &Namespace{names: map[string]*Symbol{}, exported: map[string]*Symbol{}}
	var add func(string)
	add = func(mod string) {
		for _, ext := range standardExtends[mod] {
			add(ext)
		}
		for _, b := range builtinsOf[mod] {
			s := builtinSymbol(b)
			ns.names[b.Name], ns.exported[b.Name] = s, s
		}
	}
	add(name)
	r.standard[name] = ns
	return ns
}

// declareAt makes s visible in the current module under its name (and
// exports it unless private); a name already taken by another symbol is
// an error at pos.
func (r *resolver) declareAt(s *Symbol, pos Pos, export bool) {
	if old := r.visible(s.Name); old != nil && old != s {
		if old.Kind == SymBuiltin || old.Module != r.mod || old.Via != nil || s.Via != nil {
			r.errorf(pos, "%s is defined twice: here and %s", s.Name, where(old))
		} else {
			r.errorf(pos, "%s is defined twice: here and at %s", s.Name, old.At)
		}
		return
	}
	if s.Decl != nil && s.Via == nil {
		r.info.decls[s.Decl] = s
	}
	r.ns.names[s.Name] = s
	if export && !s.private {
		r.ns.exported[s.Name] = s
	}
}

// visible returns what name stands for at this point of the current
// module, ignoring bound names.
func (r *resolver) visible(name string) *Symbol { return r.ns.lookup(name) }

// unit resolves one unit of the current module.
func (r *resolver) unit(u Unit) {
	switch u := u.(type) {
	case *Constant:
		for _, p := range u.Names {
			s := &Symbol{Kind: SymConstant, Name: p.Name, Module: r.mod, At: p.At, Decl: p, Params: args(p.Arity), defined: true}
			r.declareAt(s, p.At, true)
			r.ns.Constants = append(r.ns.Constants, s)
		}
	case *Variable:
		for _, id := range u.Names {
			s := &Symbol{Kind: SymVariable, Name: id.Name, Module: r.mod, At: id.At, Decl: id, Level: StateLevel, defined: true}
			r.declareAt(s, id.At, true)
			r.ns.Variables = append(r.ns.Variables, s)
		}
	case *Recursive:
		for _, p := range u.Ops {
			s := &Symbol{Kind: SymDefinition, Name: p.Name, Module: r.mod, At: p.At, Params: args(p.Arity), Recursive: true}
			r.declareAt(s, p.At, true)
		}
	case *OpDef:
		s := r.opDef(u, u.Local)
		if s != nil {
			r.declareAt(s, u.At, true)
		}
	case *FuncDef:
		s := &Symbol{Kind: SymDefinition, Name: u.Name, Module: r.mod, At: u.At, Decl: u, private: u.Local}
		r.declareAt(s, u.At, true)
		r.funcDef(u, s)
	case *Instance:
		r.instance(u)
	case *Assume:
		r.expr(u.Body)
		if u.Name != "" {
			r.declareAt(&Symbol{Kind: SymDefinition, Name: u.Name, Module: r.mod, At: u.At, Decl: u, defined: true}, u.At, true)
		}
	case *Theorem:
		if u.Body != nil {
			r.lenient = true
			r.expr(u.Body)
			r.lenient = false
		}
		if u.Name != "" && u.Body != nil {
			r.declareAt(&Symbol{Kind: SymDefinition, Name: u.Name, Module: r.mod, At: u.At, Decl: u, defined: true}, u.At, true)
		}
	case *Module:
		r.module(u, r.ns)
		r.subs = append(r.subs, u)
	}
}

// opDef resolves an operator definition and returns its symbol, to be
// declared by the caller (nil when it completes a RECURSIVE declaration,
// which is already visible). local says it is LOCAL or in a LET.
func (r *resolver) opDef(d *OpDef, private bool) *Symbol {
	s := &Symbol{Kind: SymDefinition, Name: d.Name, Module: r.mod, At: d.At, Decl: d, private: private}
	declared := false
	old := r.visible(d.Name)
	if len(r.groups) > 0 {
		old = nil
		for _, o := range r.groups[len(r.groups)-1].syms {
			if o.Name == d.Name {
				old = o
			}
		}
	}
	if old != nil && old.Recursive && !old.defined && old.Module == r.mod {
		if old.Arity() != len(d.Params) {
			r.errorf(d.At, "%s is declared RECURSIVE with %d arguments at %s, defined with %d", d.Name, old.Arity(), old.At, len(d.Params))
		}
		s, declared = old, true
		s.At, s.Decl, s.private = d.At, d, private
		r.info.decls[d] = s
	}
	s.Params = make([]int, len(d.Params))
	for i, p := range d.Params {
		s.Params[i] = p.Arity
	}
	var params []*Symbol
	if len(d.Params) > 0 {
		params = r.push(d, len(d.Params))
		for i, p := range d.Params {
			params[i] = r.bind(&Symbol{Kind: SymParameter, Name: p.Name, Module: r.mod, At: p.At, Decl: p, Params: args(p.Arity)}, i)
		}
	}
	saved := r.defining
	r.defining = d
	l := r.expr(d.Body)
	r.defining = saved
	if len(d.Params) > 0 {
		r.pop()
	}
	r.setLevel(s, l, params)
	s.defined = true
	if declared {
		return nil
	}
	return s
}

// setLevel records the level of a definition from the level of its body.
func (r *resolver) setLevel(s *Symbol, l level, params []*Symbol) {
	s.Level = l.c
	s.ParamMax = make([]int, len(params))
	s.weight = make([]bool, len(params))
	s.outer = s.outer[:0]
	for i, p := range params {
		s.ParamMax[i] = p.maxLevel
	}
	for _, p := range l.ps {
		if i := slices.Index(params, p); i >= 0 {
			s.weight[i] = true
		} else {
			s.outer = append(s.outer, p)
		}
	}
}

// funcDef resolves f[x \in S] == e, whose body may refer to f.
func (r *resolver) funcDef(d *FuncDef, s *Symbol) {
	l := r.bounds(d, d.Bounds, func() level { return r.expr(d.Body) })
	r.setLevel(s, l, nil)
	s.defined = true
}

// instance resolves an INSTANCE: its substitutions, and what it brings.
func (r *resolver) instance(u *Instance) {
	mns := r.namespaceOf(u.Module, u.ModuleAt)
	if mns == nil {
		return
	}
	r.info.instances[u] = mns
	subst := 0
	if mns.Module != nil {
		subst = r.substitutions(u, mns)
	}
	if u.Name != "" {
		r.declareAt(&Symbol{Kind: SymInstance, Name: u.Name, Module: r.mod, At: u.At, Decl: u,
			Params: args(len(u.Params)), private: u.Local, defined: true, subst: subst}, u.At, true)
		return
	}
	for _, name := range sortedNames(mns.exported) {
		t := mns.exported[name]
		switch t.Kind {
		case SymConstant, SymVariable:
			continue // replaced by the substitutions
		case SymBuiltin:
			r.declareAt(t, u.At, !u.Local)
			continue
		}
		k := importKey{u, t}
		s := r.imported[k]
		if s == nil {
			s = &Symbol{Kind: t.Kind, Name: t.Name, Module: t.Module, At: t.At, Decl: t.Decl, Params: t.Params,
				Via: u, Target: t, Level: max(t.Level, subst), ParamMax: t.ParamMax, weight: t.weight,
				private: u.Local, defined: true, subst: max(t.subst, subst)}
			r.imported[k] = s
		}
		r.declareAt(s, u.At, !u.Local)
	}
}

// substitutions resolves the WITH clause of u, and the implicit
// substitutions of the constants and variables it does not name; it
// returns the highest level of a constant's substitution.
func (r *resolver) substitutions(u *Instance, mns *Namespace) int {
	if len(u.Params) > 0 {
		r.push(u, len(u.Params))
		for i, p := range u.Params {
			r.bind(&Symbol{Kind: SymParameter, Name: p.Name, Module: r.mod, At: p.At, Decl: p}, i)
		}
		defer r.pop()
	}
	decls := append(append([]*Symbol(nil), mns.Constants...), mns.Variables...)
	find := func(name string) *Symbol {
		for _, d := range decls {
			if d.Name == name {
				return d
			}
		}
		return nil
	}
	written := map[string]bool{}
	var out []*Substitution
	subst := 0
	for _, s := range u.Subst {
		d := find(s.Name)
		if d == nil {
			r.errorf(s.At, "module %s has no constant or variable %s to substitute", u.Module, s.Name)
			r.expr(s.Expr)
			continue
		}
		if written[s.Name] {
			r.errorf(s.At, "%s is substituted twice", s.Name)
			continue
		}
		written[s.Name] = true
		var l level
		if d.Arity() > 0 {
			l = r.opArg(s.Expr, d.Arity())
		} else {
			l = r.expr(s.Expr)
		}
		if d.Kind == SymConstant {
			subst = max(subst, l.c)
		}
		out = append(out, &Substitution{Decl: d, Expr: s.Expr})
	}
	for _, d := range decls {
		if written[d.Name] {
			continue
		}
		id := &Ident{At: u.At, Name: d.Name}
		s, up := r.lookup(d.Name)
		switch {
		case s == nil:
			r.errorf(u.At, "INSTANCE %s: nothing here is named %s, so its %s %s (%s:%s) must be substituted: WITH %s <- ...",
				u.Module, d.Name, d.Kind, d.Name, d.Module.File, d.At, d.Name)
			continue
		case s.Arity() != d.Arity():
			r.errorf(u.At, "INSTANCE %s: %s takes %d argument(s) here and %d in %s", u.Module, d.Name, s.Arity(), d.Arity(), u.Module)
			continue
		}
		r.info.uses[id] = Use{Symbol: s, Up: up}
		if d.Kind == SymConstant {
			subst = max(subst, r.apply(s, id, nil, nil).c)
		}
		out = append(out, &Substitution{Decl: d, Expr: id, Implicit: true})
	}
	r.info.substs[u] = out
	return subst
}

// push opens a binding group of n slots for binder and returns its
// symbols, to be filled with bind.
func (r *resolver) push(binder Node, n int) []*Symbol {
	r.info.groups[binder] = n
	g := &group{syms: make([]*Symbol, 0, n)}
	r.groups = append(r.groups, g)
	return make([]*Symbol, n)
}

func (r *resolver) pop() { r.groups = r.groups[:len(r.groups)-1] }

// bind declares s in slot i of the innermost group; a name already in
// scope is an error.
func (r *resolver) bind(s *Symbol, i int) *Symbol {
	s.Local, s.Slot = true, i
	if !s.Recursive {
		s.defined = true
	}
	if s.maxLevel == 0 {
		s.maxLevel = TemporalLevel
	}
	if old, _ := r.lookup(s.Name); old != nil {
		r.errorf(s.At, "%s is already %s: a name cannot be declared again where it is visible", s.Name, describeDecl(old))
	}
	g := r.groups[len(r.groups)-1]
	g.syms = append(g.syms, s)
	if s.Decl != nil {
		r.info.decls[s.Decl] = s
	}
	return s
}

// describeDecl says what a symbol in scope is, for the message about a
// name declared again.
func describeDecl(s *Symbol) string {
	switch {
	case s.Local:
		return fmt.Sprintf("a %s bound at %s", s.Kind, s.At)
	case s.Kind == SymBuiltin:
		return where(s)
	case s.Via != nil:
		return fmt.Sprintf("a %s %s", s.Kind, where(s))
	}
	return fmt.Sprintf("a %s declared at %s:%s", s.Kind, s.Module.File, s.At)
}

// lookup finds what name stands for at this point: bound names, innermost
// first, then the module's names. up counts the groups between.
func (r *resolver) lookup(name string) (s *Symbol, up int) {
	for i := len(r.groups) - 1; i >= 0; i-- {
		for _, s := range r.groups[i].syms {
			if s.Name == name {
				return s, len(r.groups) - 1 - i
			}
		}
	}
	return r.visible(name), 0
}

// lookupLocal is lookup without the count.
func (r *resolver) lookupLocal(name string) *Symbol {
	s, _ := r.lookup(name)
	return s
}
