package eval

import (
	"fmt"
	"slices"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// State is an assignment of values to a spec's variables, in the order of
// Spec.Vars.
type State []value.Value

// Formula is an expression together with the scope and bound names it is
// evaluated in: a definition of the spec, or a part of one (an action inside
// [A]_v, an atom of a temporal property under a quantifier).
type Formula struct {
	Expr tla.Expr
	Name string // for messages: the definition it came from, or its text
	e    expr   // Expr compiled
	sc   *scope
	env  *env
}

// File returns the source file the formula was written in.
func (f *Formula) File() string { return f.sc.file }

// String prints the formula as TLA+.
func (f *Formula) String() string { return tla.Print(f.Expr) }

// Formula returns the definition name (without parameters) of the root
// module as a formula.
func (sp *Spec) Formula(name string) (*Formula, error) {
	s := sp.info.Lookup(sp.Module, name)
	if s == nil {
		return nil, fmt.Errorf("%s is not defined in module %s", name, sp.Module.Name)
	}
	id := &tla.Ident{At: s.At, Name: name}
	b := sp.bound[s]
	switch {
	case b != nil && b.Subst == "":
		return &Formula{Expr: id, e: &lit{node{id}, b.Value}, Name: name, sc: sp.rootScope}, nil
	case b == nil && s.Kind != tla.SymDefinition:
		return nil, fmt.Errorf("%s is not a definition", name)
	case s.Arity() > 0:
		return nil, fmt.Errorf("%s takes %d arguments; the model needs a definition without arguments", name, s.Arity())
	}
	if _, isFn := s.Decl.(*tla.FuncDef); isFn && b == nil {
		return nil, fmt.Errorf("%s is a function, not a formula", name)
	}
	e, _ := (&compiler{t: sp.rootT, unit: sp.rootT.unitOf[sp.Module]}).use(id, tla.Use{Symbol: s}, nil)
	if ref, ok := e.(*defRef); ok && ref.d.fn == nil {
		return &Formula{Expr: ref.d.syntax, e: ref.d.body, Name: name, sc: (&ctx{sc: sp.rootScope}).scopeOf(ref.d, ref.at)}, nil
	}
	return &Formula{Expr: id, e: e, Name: name, sc: sp.rootScope}, nil
}

// ParseFormula parses src as an expression evaluated in the root scope
// (used by tests and for ad-hoc checks).
func (sp *Spec) ParseFormula(src string) (_ *Formula, err error) {
	defer recoverError(&err)
	e, err := tla.ParseExpr(src)
	if err != nil {
		return nil, err
	}
	info, err := sp.info.ResolveExpr(sp.Module, e, "expr")
	if err != nil {
		return nil, err
	}
	// Positions in e are in src, not in the module's file: errors name
	// "expr", as tla.ParseExpr's do. Definitions used by e keep their scope.
	ce, _ := (&compiler{t: sp.rootT, unit: sp.rootT.unitOf[sp.Module], uses: info}).expr(e)
	sc := *sp.rootScope
	sc.file = "expr"
	return &Formula{Expr: e, e: ce, Name: src, sc: &sc}, nil
}

func (f *Formula) ctx(s, t State) *ctx {
	// One allocation for the frame and its count of reads.
	fr := &struct {
		states
		reads int
	}{states: states{s: s, t: t}}
	fr.nextReads = &fr.reads
	return &ctx{sc: f.sc, env: f.env, states: &fr.states}
}

// Init calls yield with every state satisfying the conjunction of the
// initial predicates fs; the first `x = e` or `x \in S` of a conjunction
// assigns x.
func (sp *Spec) Init(fs []*Formula, yield func(State)) (err error) {
	defer recoverError(&err)
	target := make([]value.Value, len(sp.Vars))
	en := &enumerator{target: target}
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(fs) {
			if j := slices.Index(target, nil); j >= 0 {
				c := fs[0].ctx(target, nil)
				c.fail(pos(fs[0].e), "the initial predicate does not assign variable %s", sp.Vars[j])
			}
			yield(State(slices.Clone(target)))
			return false
		}
		c := fs[i].ctx(target, nil)
		c.partial = true
		return c.enum(fs[i].e, en, func() bool { return rec(i + 1) })
	}
	rec(0)
	return nil
}

// Next calls yield with every successor of s under the action f and the
// sub-action that produced it. Successors may repeat.
func (sp *Spec) Next(f *Formula, s State, yield func(State, *Action)) (err error) {
	defer recoverError(&err)
	f = f.unwrap()
	target := make([]value.Value, len(sp.Vars))
	c := f.ctx(s, target)
	en := &enumerator{target: target, primed: true}
	c.enum(f.e, en, func() bool {
		if i := slices.Index(target, nil); i >= 0 {
			if en.labelled {
				// Blame the action below the relation that made the
				// successor, where it is defined.
				panic(evalPanic{&tla.Error{File: en.labelCtx.sc.file, Pos: en.labelAt,
					Msg: fmt.Sprintf("a successor state is not completely specified: the action %s does not assign %s'", en.labelName, sp.Vars[i])}})
			}
			c.fail(pos(f.e), "a successor state is not completely specified: the action does not assign %s'", sp.Vars[i])
		}
		a := en.action()
		if a == nil {
			a = &Action{Name: f.Name}
		}
		yield(State(slices.Clone(target)), a)
		return false
	})
	return nil
}

// unwrap replaces a formula that is just the name of a definition without
// parameters (Next in [][Next]_vars) by the definition's body, so that
// actions are named after the definitions below it.
func (f *Formula) unwrap() *Formula {
	for {
		ref, ok := f.e.(*defRef)
		if !ok || ref.d.fn != nil || ref.d.native != nil {
			return f
		}
		c := &ctx{sc: f.sc, env: f.env}
		f = &Formula{Expr: ref.d.syntax, e: ref.d.body, Name: ref.d.name, sc: c.scopeOf(ref.d, ref.at)}
	}
}

// Eval evaluates a state-level formula in s (nil for a constant formula).
func (sp *Spec) Eval(f *Formula, s State) (v value.Value, err error) {
	defer recoverError(&err)
	return f.ctx(s, nil).eval(f.e), nil
}

// Holds evaluates a boolean state-level formula in s.
func (sp *Spec) Holds(f *Formula, s State) (b bool, err error) {
	defer recoverError(&err)
	return f.ctx(s, nil).bool(f.e), nil
}

// HoldsStep evaluates a boolean action-level formula on the step s -> t.
func (sp *Spec) HoldsStep(f *Formula, s, t State) (b bool, err error) {
	defer recoverError(&err)
	c := f.ctx(s, t)
	c.whole = true
	return c.bool(f.e), nil
}

// Enabled evaluates ENABLED f in s.
func (sp *Spec) Enabled(f *Formula, s State) (b bool, err error) {
	defer recoverError(&err)
	return f.ctx(s, nil).enabled(f.e), nil
}

// Format prints a state as a TLA+ conjunction, one variable per line.
func (sp *Spec) Format(s State) string {
	out := ""
	for i, name := range sp.Vars {
		if i > 0 {
			out += "\n"
		}
		out += "/\\ " + name + " = " + value.Format(s[i])
	}
	return out
}

// EnabledAngle evaluates ENABLED <<a>>_sub in s: whether some step from s
// satisfies a and changes sub. Variables a leaves unconstrained may take
// any value, so a step that leaves one unassigned counts as changing sub.
func (sp *Spec) EnabledAngle(a, sub *Formula, s State) (found bool, err error) {
	defer recoverError(&err)
	target := make([]value.Value, len(sp.Vars))
	c := a.ctx(s, target)
	en := &enumerator{target: target, primed: true, labelled: true}
	c.enum(a.e, en, func() bool {
		t := make(State, len(target))
		free := false
		for i, v := range target {
			if v == nil {
				free = true
				v = s[i]
			}
			t[i] = v
		}
		now := sub.ctx(s, nil).eval(sub.e)
		then := sub.ctx(t, nil).eval(sub.e)
		if free || !sub.ctx(s, nil).equal(now, then, pos(sub.e)) {
			found = true
			return true
		}
		return false
	})
	return found, nil
}

// SameAction reports whether f and g are the same action: after expanding
// names of definitions without parameters, the same expression in the same
// scope with no bound names. The checker uses it to recognize WF_v(Next)
// for the spec's own next-state relation, whose steps are exactly the
// edges of the explored graph.
func (f *Formula) SameAction(g *Formula) bool {
	a, b := f.unwrap(), g.unwrap()
	return a.e == b.e && a.sc == b.sc && a.env == nil && b.env == nil
}

// ActionCall reports whether f is an application Op(a1, ..., an) (or the
// name Op) of a definition of the root module whose arguments are
// constants in f's bindings (a fairness condition WF_v(Op(p)) under
// \A p \in S, say), and returns it as the action that names the successors
// it produces when Op is an action of the next-state relation.
func (sp *Spec) ActionCall(f *Formula) (a *Action, ok bool) {
	defer func() {
		if recover() != nil {
			a, ok = nil, false
		}
	}()
	// The name Op of a root-level definition without parameters is the
	// action itself (WF_vars(Op)): unwrap would expand it into its body, so
	// look at each name on the way before expanding it.
	for {
		ref, isRef := f.e.(*defRef)
		if !isRef || ref.d.fn != nil || ref.d.native != nil {
			break
		}
		if sp.isRootAction(ref.d, ref.at) {
			return &Action{Name: ref.d.name}, true
		}
		c := &ctx{sc: f.sc, env: f.env}
		f = &Formula{Expr: ref.d.syntax, e: ref.d.body, Name: ref.d.name, sc: c.scopeOf(ref.d, ref.at)}
	}
	var d *defn
	var w where
	var args []expr
	switch x := f.e.(type) {
	case *defRef:
		d, w = x.d, x.at
	case *callDef:
		if fx, ok := x.src().(*tla.OpApp); !ok || fx.Fix != tla.FixCall || len(fx.Prefix) > 0 {
			return nil, false
		}
		d, w, args = x.d, x.at, x.args
		for _, o := range x.ops {
			if o != nil {
				return nil, false
			}
		}
	default:
		return nil, false
	}
	if d.fn != nil || !sp.isRootAction(d, w) {
		return nil, false
	}
	a = &Action{Name: d.name}
	c := f.ctx(nil, nil)
	for _, x := range args {
		a.Params = append(a.Params, c.eval(x))
	}
	return a, true
}

// IsAllVars reports whether f is a tuple of every variable of the spec
// (through definitions without parameters, as vars == <<x, y>>), so that
// UNCHANGED f holds on a step exactly when the state does not change.
func (sp *Spec) IsAllVars(f *Formula) bool {
	f = f.unwrap()
	t, ok := f.e.(*tuple)
	if !ok || f.env != nil {
		return false
	}
	seen := make([]bool, len(sp.Vars))
	c := f.ctx(nil, nil)
	for _, e := range t.elems {
		idx, ok := c.varOf(e)
		if !ok {
			return false
		}
		seen[idx] = true
	}
	for _, s := range seen {
		if !s {
			return false
		}
	}
	return true
}

// isRootAction reports whether d, referred to at w, is a definition of the
// root module itself (not of an instance, not shadowed).
func (sp *Spec) isRootAction(d *defn, w where) bool {
	return w.here() && d.t == sp.rootT && d.sym != nil && sp.info.Lookup(sp.Module, d.name) == d.sym
}
