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
	e := sp.root.lookup(name)
	if e == nil {
		return nil, fmt.Errorf("%s is not defined in module %s", name, sp.Module.Name)
	}
	switch e.kind {
	case entDef:
		if len(e.def.params) > 0 {
			return nil, fmt.Errorf("%s takes %d arguments; the model needs a definition without arguments", name, len(e.def.params))
		}
		if e.def.fn != nil {
			return nil, fmt.Errorf("%s is a function, not a formula", name)
		}
		return &Formula{Expr: e.def.body, Name: name, sc: e.def.sc}, nil
	case entConst:
		return &Formula{Expr: &tla.Ident{At: e.pos, Name: name}, Name: name, sc: sp.root}, nil
	}
	return nil, fmt.Errorf("%s is not a definition", name)
}

// ParseFormula parses src as an expression evaluated in the root scope
// (used by tests and for ad-hoc checks).
func (sp *Spec) ParseFormula(src string) (*Formula, error) {
	e, err := tla.ParseExpr(src)
	if err != nil {
		return nil, err
	}
	// Positions in e are in src, not in the module's file: errors name
	// "expr", as tla.ParseExpr's do. Definitions used by e keep their scope.
	sc := *sp.root
	sc.file = "expr"
	return &Formula{Expr: e, Name: src, sc: &sc}, nil
}

func (f *Formula) ctx(s, t State) *ctx {
	// One allocation for the frame and its count of reads.
	fr := &struct {
		frame
		reads int
	}{frame: frame{s: s, t: t}}
	fr.nextReads = &fr.reads
	return &ctx{sc: f.sc, env: f.env, frame: &fr.frame}
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
				c.fail(fs[0].Expr.Pos(), "the initial predicate does not assign variable %s", sp.Vars[j])
			}
			yield(State(slices.Clone(target)))
			return false
		}
		c := fs[i].ctx(target, nil)
		c.partial = true
		return c.enum(fs[i].Expr, en, func() bool { return rec(i + 1) })
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
	c.enum(f.Expr, en, func() bool {
		if i := slices.Index(target, nil); i >= 0 {
			c.fail(f.Expr.Pos(), "a successor state is not completely specified: the action does not assign %s'", sp.Vars[i])
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
		id, ok := f.Expr.(*tla.Ident)
		if !ok || f.env.find(id.Name) != nil {
			return f
		}
		e := f.sc.lookup(id.Name)
		if e == nil || e.kind != entDef || e.def.fn != nil || len(e.def.params) > 0 {
			return f
		}
		f = &Formula{Expr: e.def.body, Name: id.Name, sc: e.def.sc}
	}
}

// Eval evaluates a state-level formula in s (nil for a constant formula).
func (sp *Spec) Eval(f *Formula, s State) (v value.Value, err error) {
	defer recoverError(&err)
	return f.ctx(s, nil).eval(f.Expr), nil
}

// Holds evaluates a boolean state-level formula in s.
func (sp *Spec) Holds(f *Formula, s State) (b bool, err error) {
	defer recoverError(&err)
	return f.ctx(s, nil).bool(f.Expr), nil
}

// HoldsStep evaluates a boolean action-level formula on the step s -> t.
func (sp *Spec) HoldsStep(f *Formula, s, t State) (b bool, err error) {
	defer recoverError(&err)
	return f.ctx(s, t).bool(f.Expr), nil
}

// Enabled evaluates ENABLED f in s.
func (sp *Spec) Enabled(f *Formula, s State) (b bool, err error) {
	defer recoverError(&err)
	return f.ctx(s, nil).enabled(f.Expr), nil
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
	c.enum(a.Expr, en, func() bool {
		t := make(State, len(target))
		free := false
		for i, v := range target {
			if v == nil {
				free = true
				v = s[i]
			}
			t[i] = v
		}
		now := sub.ctx(s, nil).eval(sub.Expr)
		then := sub.ctx(t, nil).eval(sub.Expr)
		if free || !sub.ctx(s, nil).equal(now, then, sub.Expr.Pos()) {
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
	return a.Expr == b.Expr && a.sc == b.sc && a.env == nil && b.env == nil
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
	// The name Op of a definition without parameters is the action itself:
	// unwrap would expand it into its body (and past it, the names it is
	// defined as), so look at each name on the way before expanding it.
	for {
		id, ok := f.Expr.(*tla.Ident)
		if !ok || f.env.find(id.Name) != nil {
			break
		}
		e := f.sc.lookup(id.Name)
		if e == nil || e.kind != entDef || e.def.fn != nil || len(e.def.params) > 0 {
			break
		}
		if sp.root.names[id.Name] == e {
			return &Action{Name: id.Name}, true
		}
		f = &Formula{Expr: e.def.body, Name: id.Name, sc: e.def.sc}
	}
	var name string
	var args []tla.Expr
	switch x := f.Expr.(type) {
	case *tla.Ident:
		name = x.Name
	case *tla.OpApp:
		if len(x.Prefix) > 0 || x.Fix != tla.FixCall {
			return nil, false
		}
		name, args = x.Name, x.Args
	default:
		return nil, false
	}
	if f.env.find(name) != nil {
		return nil, false
	}
	e := f.sc.lookup(name)
	if e == nil || e.kind != entDef || e.def.fn != nil || sp.root.names[name] != e || len(e.def.params) != len(args) {
		return nil, false
	}
	a = &Action{Name: name}
	c := f.ctx(nil, nil)
	for i, x := range args {
		if e.def.params[i].Arity > 0 {
			return nil, false
		}
		a.Params = append(a.Params, c.eval(x))
	}
	return a, true
}

// IsAllVars reports whether f is a tuple of every variable of the spec
// (through definitions without parameters, as vars == <<x, y>>), so that
// UNCHANGED f holds on a step exactly when the state does not change.
func (sp *Spec) IsAllVars(f *Formula) bool {
	f = f.unwrap()
	t, ok := f.Expr.(*tla.Tuple)
	if !ok || f.env != nil {
		return false
	}
	seen := make([]bool, len(sp.Vars))
	c := f.ctx(nil, nil)
	for _, e := range t.Elems {
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
