// Package check is roomspec's explicit-state model checker: breadth-first
// search over the reachable states of a TLA+ spec, with invariants,
// deadlock detection, state and action constraints, symmetry reduction and
// temporal properties checked on the state graph under the spec's
// fairness, as TLC does.
//
// The checker is pure: it takes loaded modules and a parsed configuration
// and returns a Result; reading files and printing live in cmd/roomspec.
package check

import (
	"errors"
	"fmt"
	"slices"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// Named is a formula with the name it has in the configuration.
type Named struct {
	Name    string
	Formula *eval.Formula
}

// Property is a temporal property to check. A property that is a
// conjunction is split as TLC splits it: state predicates (which must hold
// in every initial state), []P and [][A]_v are safety parts, checked during
// the search so that their counterexamples are shortest finite traces; the
// rest is checked on the state graph.
type Property struct {
	Name     string
	Temporal *eval.Temporal
	// Initially are predicates every initial state must satisfy.
	Initially []*eval.Formula
	// Always are the P of []P conjuncts; Steps the [A]_v of [][A]_v ones.
	Always, Steps []*eval.Formula
	// Liveness is what remains, or nil.
	Liveness *eval.Temporal
}

// splitProperty classifies the top-level conjuncts of a property.
func splitProperty(name string, t *eval.Temporal) Property {
	p := Property{Name: name, Temporal: t}
	var rest []*eval.Temporal
	var visit func(x *eval.Temporal)
	visit = func(x *eval.Temporal) {
		switch {
		case x.Op == eval.TAnd:
			for _, a := range x.Args {
				visit(a)
			}
		case x.Op == eval.TAtom && !x.Action:
			p.Initially = append(p.Initially, x.Atom)
		case x.Op == eval.TAlways && x.Args[0].Op == eval.TAtom && x.Args[0].Action:
			p.Steps = append(p.Steps, x.Args[0].Atom)
		case x.Op == eval.TAlways && x.Args[0].Op == eval.TAtom:
			p.Always = append(p.Always, x.Args[0].Atom)
		default:
			rest = append(rest, x)
		}
	}
	visit(t)
	switch len(rest) {
	case 0:
	case 1:
		p.Liveness = rest[0]
	default:
		p.Liveness = &eval.Temporal{Op: eval.TAnd, Args: rest, Pos: t.Pos}
	}
	return p
}

// Model is a spec together with what a configuration asks of it.
type Model struct {
	Spec *eval.Spec
	// Init is the initial predicate; Next the next-state action; Vars the
	// subscript of [Next]_vars (nil with INIT/NEXT, where every variable
	// counts). A configuration with neither SPECIFICATION nor INIT and
	// NEXT only checks the assumptions: Init and Next are nil and there
	// are no states.
	Init              []*eval.Formula
	Next, Vars        *eval.Formula
	Invariants        []Named
	Constraints       []Named
	ActionConstraints []Named
	Properties        []Property
	// Fairness are the WF/SF conjuncts of the specification.
	Fairness []*eval.Temporal
	// Assumed are the specification's other temporal conjuncts (such as
	// <>[][A]_v: from some point on, every step is an A step or
	// stutters). As TLC, the checker explores every state Init and Next
	// reach, and checks the liveness of a property P as Assumed => P: only
	// on the behaviours that satisfy them.
	Assumed []*eval.Temporal
	// Symmetry is a set of permutations of model values; nil if none.
	Symmetry *eval.Formula
	// View maps a state to the value that is fingerprinted; nil if none.
	View          *eval.Formula
	CheckDeadlock bool
	// Postconditions are evaluated once the search is over (TLCGet then
	// reads its final figures).
	Postconditions []Named
	// Warnings are things of the configuration that the checker ignores.
	Warnings []string
	// constants are the values the configuration gives constants.
	constants []value.Value
}

// ConstantValues returns the values the configuration gives constants, in
// configuration order.
func (m *Model) ConstantValues() []value.Value { return m.constants }

// ErrUnsupported marks a construct the checker does not handle.
var ErrUnsupported = errors.New("not supported")

// Build prepares a model from loaded modules and a configuration: every
// name resolved (tla.Resolve), every definition the configuration names
// found. Errors carry the configuration's or module's file:line:col. The
// assumptions are evaluated by Check, which can be interrupted.
func Build(mods *tla.Modules, conf *cfg.Config) (*Model, error) {
	var bindings []eval.Binding
	for _, c := range conf.Constants {
		b := eval.Binding{Name: c.Name, Module: c.Module, Pos: c.Pos, File: conf.File}
		switch {
		case len(c.Args) > 0:
			return nil, cfgErr(conf, c.Pos, "operator constant %s: giving a value at arguments is %v", c.Name, ErrUnsupported)
		case c.Subst != nil:
			b.Subst = c.Subst.Name
		default:
			b.Value = cfgValue(c.Value)
		}
		bindings = append(bindings, b)
	}
	info, err := tla.Resolve(mods)
	if err != nil {
		return nil, err
	}
	sp, err := eval.NewSpec(info, bindings)
	if err != nil {
		return nil, err
	}
	m := &Model{Spec: sp, CheckDeadlock: conf.DeadlockChecked()}
	for _, b := range bindings {
		if b.Value != nil {
			m.constants = append(m.constants, b.Value)
		}
	}
	def := func(n *cfg.Name, what string) (*eval.Formula, error) {
		f, err := sp.Formula(n.Name)
		if err != nil {
			return nil, cfgErr(conf, n.Pos, "%s %s: %v", what, n.Name, err)
		}
		return f, nil
	}
	switch {
	case conf.Specification != nil:
		if err := m.fromSpecification(conf, conf.Specification); err != nil {
			return nil, err
		}
	case conf.Init != nil && conf.Next != nil:
		init, err := def(conf.Init, "INIT")
		if err != nil {
			return nil, err
		}
		m.Init = []*eval.Formula{init}
		if m.Next, err = def(conf.Next, "NEXT"); err != nil {
			return nil, err
		}
	case conf.Init != nil || conf.Next != nil:
		return nil, cfgErr(conf, tla.Pos{}, "the configuration names INIT without NEXT or NEXT without INIT")
	default:
		// Neither SPECIFICATION nor INIT/NEXT: as TLC, only the
		// assumptions are checked (above), and there are no states.
		if len(conf.Invariants) > 0 || len(conf.Properties) > 0 {
			return nil, cfgErr(conf, tla.Pos{}, "the configuration has invariants or properties but neither SPECIFICATION nor INIT and NEXT")
		}
	}
	for _, n := range conf.Invariants {
		f, err := def(n, "INVARIANT")
		if err != nil {
			return nil, err
		}
		m.Invariants = append(m.Invariants, Named{n.Name, f})
	}
	for _, n := range conf.Constraints {
		f, err := def(n, "CONSTRAINT")
		if err != nil {
			return nil, err
		}
		m.Constraints = append(m.Constraints, Named{n.Name, f})
	}
	for _, n := range conf.ActionConstraints {
		f, err := def(n, "ACTION_CONSTRAINT")
		if err != nil {
			return nil, err
		}
		m.ActionConstraints = append(m.ActionConstraints, Named{n.Name, f})
	}
	for _, n := range conf.Properties {
		f, err := def(n, "PROPERTY")
		if err != nil {
			return nil, err
		}
		t, err := sp.Temporal(f)
		if err != nil {
			return nil, err
		}
		m.Properties = append(m.Properties, splitProperty(n.Name, t))
	}
	m.assume()
	if conf.Symmetry != nil {
		if m.Symmetry, err = def(conf.Symmetry, "SYMMETRY"); err != nil {
			return nil, err
		}
	}
	if conf.View != nil {
		if m.View, err = def(conf.View, "VIEW"); err != nil {
			return nil, err
		}
	}
	if conf.Alias != nil {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s:%s: ALIAS %s is ignored", conf.File, conf.Alias.Pos, conf.Alias.Name))
	}
	for _, n := range conf.Postconditions {
		f, err := def(n, "POSTCONDITION")
		if err != nil {
			return nil, err
		}
		m.Postconditions = append(m.Postconditions, Named{n.Name, f})
	}
	return m, nil
}

// fromSpecification splits Init /\ [][Next]_vars /\ Fairness.
func (m *Model) fromSpecification(conf *cfg.Config, n *cfg.Name) error {
	f, err := m.Spec.Formula(n.Name)
	if err != nil {
		return cfgErr(conf, n.Pos, "SPECIFICATION %s: %v", n.Name, err)
	}
	t, err := m.Spec.Temporal(f)
	if err != nil {
		return err
	}
	var conjuncts []*eval.Temporal
	var flatten func(t *eval.Temporal)
	flatten = func(t *eval.Temporal) {
		if t.Op == eval.TAnd {
			for _, a := range t.Args {
				flatten(a)
			}
			return
		}
		conjuncts = append(conjuncts, t)
	}
	flatten(t)
	for _, c := range conjuncts {
		switch {
		case c.Op == eval.TAtom && !c.Action:
			m.Init = append(m.Init, c.Atom)
		case c.Op == eval.TAlways && c.Args[0].Op == eval.TAtom && c.Args[0].Box != nil:
			if m.Next != nil {
				return specErr(m, c.Pos, "the specification has two [][Next]_vars conjuncts")
			}
			m.Next, m.Vars = c.Args[0].Box, c.Args[0].Sub
		case c.Op == eval.TWeakFair || c.Op == eval.TStrongFair:
			m.Fairness = append(m.Fairness, c)
		case isFairnessConjunction(c):
			m.Fairness = append(m.Fairness, c)
		case !hasActionBox(c):
			m.Assumed = append(m.Assumed, c)
		default:
			return specErr(m, c.Pos, "unsupported conjunct of the specification: %s (expected Init, [][Next]_vars, WF/SF, or a temporal formula without [][Next]_vars)", c)
		}
	}
	if len(m.Init) == 0 || m.Next == nil {
		return cfgErr(conf, n.Pos, "SPECIFICATION %s must have the form Init /\\ [][Next]_vars /\\ Fairness", n.Name)
	}
	return nil
}

// hasActionBox reports whether t is, or has below its top-level
// conjunctions, a conjunct [][A]_v, the form of a next-state relation
// (a second one, or one in a conjunct the checker cannot split).
func hasActionBox(t *eval.Temporal) bool {
	switch t.Op {
	case eval.TAnd:
		return slices.ContainsFunc(t.Args, hasActionBox)
	case eval.TAlways:
		return t.Args[0].Op == eval.TAtom && t.Args[0].Box != nil
	}
	return false
}

// assume makes the liveness of each property P into Assumed => P.
func (m *Model) assume() {
	if len(m.Assumed) == 0 {
		return
	}
	a := m.Assumed[0]
	if len(m.Assumed) > 1 {
		a = &eval.Temporal{Op: eval.TAnd, Args: m.Assumed, Pos: a.Pos}
	}
	for i := range m.Properties {
		p := &m.Properties[i]
		if p.Liveness == nil {
			continue
		}
		p.Liveness = &eval.Temporal{Op: eval.TOr, Pos: p.Liveness.Pos, Args: []*eval.Temporal{
			{Op: eval.TNot, Pos: a.Pos, Args: []*eval.Temporal{a}}, p.Liveness}}
	}
}

// isFairnessConjunction reports whether t is a conjunction (as from \A over a
// set) of fairness conditions.
func isFairnessConjunction(t *eval.Temporal) bool {
	if t.Op != eval.TAnd {
		return t.Op == eval.TWeakFair || t.Op == eval.TStrongFair
	}
	for _, a := range t.Args {
		if !isFairnessConjunction(a) {
			return false
		}
	}
	return true
}

func cfgErr(conf *cfg.Config, pos tla.Pos, format string, args ...any) error {
	return &tla.Error{File: conf.File, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func specErr(m *Model, pos tla.Pos, format string, args ...any) error {
	return &tla.Error{File: m.Spec.Module.File, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// cfgValue converts a configuration value to a TLA+ value.
func cfgValue(v *cfg.Value) value.Value {
	switch v.Kind {
	case cfg.Int:
		return value.Int(v.Int)
	case cfg.String:
		return value.String(v.Str)
	case cfg.Bool:
		return value.Bool(v.Bool)
	case cfg.ModelValue:
		return &value.Model{Name: v.Str}
	case cfg.Set:
		elems := make([]value.Value, len(v.Elem))
		for i, e := range v.Elem {
			elems[i] = cfgValue(e)
		}
		return value.NewSetOwned(elems)
	}
	return nil
}
