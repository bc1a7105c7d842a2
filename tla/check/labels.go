package check

import (
	"fmt"

	"github.com/roomspec/roomspec/tla/eval"
)

// ExactActions is implemented by a Successors (a compiled model) whose Next
// yields the successors of a state one instance of each action at a time,
// each named by its instance (Name(p1, ..., pn), as eval.Action prints it),
// for the actions it lists. For such an action A, <<A(p)>>_v holds on a step
// s -> t exactly when t is a successor A(p) yields from s and v changes,
// and ENABLED <<A(p)>>_v in s exactly when one of those successors changes
// v: the fairness conditions of liveness properties are then decided from
// the successors, without evaluating A.
type ExactActions interface {
	ExactActions() map[string]bool
}

// labelAtoms returns, for each atom <<A(p)>>_v or ENABLED <<A(p)>>_v whose
// A is an action the successors name exactly, the name of its instance
// ("" for the other atoms), or nil when there is none.
func (lv *liveness) labelAtoms(c *checker, exact bool) []string {
	ea, ok := c.succ.(ExactActions)
	if !ok || !exact {
		return nil
	}
	names := ea.ExactActions()
	labels := make([]string, len(lv.atoms.atoms))
	any := false
	for i, a := range lv.atoms.atoms {
		if !a.angle && !a.enabled {
			continue
		}
		call, ok := c.m.Spec.ActionCall(a.formula)
		if !ok || !names[call.Name] {
			continue
		}
		labels[i], any = call.String(), true
	}
	lv.allVars = make([]bool, len(labels))
	for i, l := range labels {
		if l != "" {
			lv.allVars[i] = c.m.Spec.IsAllVars(lv.atoms.atoms[i].sub)
		}
	}
	if !any {
		return nil
	}
	return labels
}

// evalLabelled sets the bits of the labelled atoms for state s and the
// steps out of it, from the successors and actions the search recorded.
func (lv *liveness) evalLabelled(c *checker, g *stateGraph, labels []string, s int32) error {
	st := c.g.states[s]
	succ := map[string][]int32{}
	for _, step := range c.g.steps[s] {
		succ[step.action] = append(succ[step.action], step.to)
	}
	for i, label := range labels {
		if label == "" {
			continue
		}
		a := lv.atoms.atoms[i]
		allVars := lv.allVars[i]
		changed := func(t int32) (bool, error) {
			if t == s {
				return false, nil
			}
			if allVars {
				return true, nil // distinct states differ in some variable
			}
			same, err := unchangedSub(c.m.Spec, a.sub, st, c.g.states[t])
			return !same, err
		}
		if a.enabled {
			for _, t := range succ[label] {
				ok, err := changed(t)
				if err != nil {
					return fmt.Errorf("evaluating %s: %w", a.text, err)
				}
				if ok {
					g.stateAtoms(s).set(i)
					break
				}
			}
			continue
		}
		// <<A(p)>>_v: never on the stuttering step; on an edge s -> t
		// when A(p) yields t and v changes.
		for e := g.off[s]; e < g.off[s+1]; e++ {
			t := g.adj[e]
			for _, u := range succ[label] {
				if u != t {
					continue
				}
				ok, err := changed(t)
				if err != nil {
					return fmt.Errorf("evaluating %s: %w", a.text, err)
				}
				if ok {
					bitset(g.ebits[int(e)*g.words : int(e+1)*g.words]).set(i)
				}
				break
			}
		}
	}
	return nil
}

// Predicates is implemented by a Successors (a compiled model) that
// evaluates some of the model's invariants and action properties
// ([][A]_v, named by the configuration) itself, on the states it produced.
// It must agree with the interpreter exactly.
type Predicates interface {
	Invariant(name string) (func(eval.State) (bool, error), bool)
	StepProperty(name string) (func(s, t eval.State) (bool, error), bool)
}
