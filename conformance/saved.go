package conformance

import (
	"fmt"

	"github.com/roomspec/roomspec/spec/itf"
	"github.com/roomspec/roomspec/spec/model"
)

// Case is a saved counterexample: which implementation, variant and
// property, and the actions of the behaviour. It is stored as an ITF
// trace (package itf): the spec's states after each action, with the case
// in the trace's "#meta" under "roomspec".
type Case struct {
	Impl     string
	Variant  string
	Property string
	Seed     int64
	Failure  string
	Seq      []model.Action
}

// SaveITF returns the counterexample of a failed result as ITF JSON: the
// spec's states from the initial state through each step.
func SaveITF(r *Result) ([]byte, error) {
	if r.Holds || r.Config == nil {
		return nil, fmt.Errorf("conformance: no counterexample to save")
	}
	cs := Case{Impl: r.Impl, Variant: r.Variant, Property: r.Property, Seed: r.Seed, Failure: r.Failure, Seq: Actions(r.Steps)}
	t, err := cs.Trace(r.Config)
	if err != nil {
		return nil, err
	}
	return t.Marshal(r.Config)
}

// Trace returns cs as an ITF trace under c: the spec's states along its
// actions, with the case in the metadata.
func (cs Case) Trace(c *model.Config) (*itf.Trace, error) {
	init, trace, err := specTrace(c, cs.Seq)
	if err != nil {
		return nil, err
	}
	ic := &itf.Case{Impl: cs.Impl, Variant: cs.Variant, Property: cs.Property, Seed: cs.Seed, Failure: cs.Failure, Actions: []itf.Action{}}
	for _, a := range cs.Seq {
		n := len(model.Actions[a.ID].Params)
		ic.Actions = append(ic.Actions, itf.Action{Name: model.Actions[a.ID].Name, Params: append([]int{}, a.Params[:n]...), Text: c.ActionString(a)})
	}
	return &itf.Trace{
		Meta: itf.Meta{Format: "ITF", Source: model.SourceName, Roomspec: ic,
			Description: fmt.Sprintf("roomspec test: %s of %s (variant %s) fails", cs.Property, cs.Impl, cs.Variant)},
		States: append([]model.State{init}, trace...),
	}, nil
}

// LoadITF reads a case saved by SaveITF. It checks that the stored states
// are the spec's states along the stored actions under c (the variant's
// configuration, which the caller loads from the case's Variant: see
// DecodeCaseHeader).
func LoadITF(c *model.Config, data []byte) (Case, error) {
	t, err := itf.Read(c, data)
	if err != nil {
		return Case{}, fmt.Errorf("conformance: %w", err)
	}
	ic := t.Meta.Roomspec
	if ic == nil {
		return Case{}, fmt.Errorf("conformance: ITF: no roomspec case in the trace's #meta")
	}
	cs := Case{Impl: ic.Impl, Variant: ic.Variant, Property: ic.Property, Seed: ic.Seed, Failure: ic.Failure}
	for i, ia := range ic.Actions {
		id := -1
		for j, info := range model.Actions {
			if info.Name == ia.Name {
				id = j
			}
		}
		if id < 0 || len(ia.Params) != len(model.Actions[id].Params) {
			return cs, fmt.Errorf("conformance: ITF action %d: unknown action %s/%d", i+1, ia.Name, len(ia.Params))
		}
		a := model.Action{ID: model.ActionID(id)}
		copy(a.Params[:], ia.Params)
		for k, t := range model.Actions[id].ParamTypes {
			if d := c.Domain(t); d == nil || ia.Params[k] < 0 || ia.Params[k] >= d.Size() {
				return cs, fmt.Errorf("conformance: ITF action %d: %s parameter %d out of range", i+1, ia.Name, k+1)
			}
		}
		if got := c.ActionString(a); got != ia.Text {
			return cs, fmt.Errorf("conformance: ITF action %d: parameters %v print as %s, the file says %s", i+1, ia.Params, got, ia.Text)
		}
		cs.Seq = append(cs.Seq, a)
	}
	if len(t.States) != len(cs.Seq)+1 {
		return cs, fmt.Errorf("conformance: ITF: %d states for %d actions", len(t.States), len(cs.Seq))
	}
	// The stored states must be the spec's along the stored actions: the
	// behaviour through them, preferring the stored action at each step,
	// takes exactly those actions.
	f := itf.Follower{Prefer: func(i int, a model.Action) bool { return a == cs.Seq[i-1] }}
	_, actions, err := f.Follow(c, len(t.States), func(i int, s *model.State) bool { return s.Equal(&t.States[i]) })
	if err != nil {
		return cs, fmt.Errorf("conformance: ITF: %w", err)
	}
	for i, a := range cs.Seq {
		if actions[i+1] != a {
			return cs, fmt.Errorf("conformance: ITF: action %d, %s, does not lead from state %d to state %d", i+1, c.ActionString(a), i, i+1)
		}
	}
	return cs, nil
}

// DecodeCaseHeader reads only the case's names (to find its variant).
func DecodeCaseHeader(data []byte) (Case, error) {
	m, _, err := itf.ReadMeta(data)
	if err != nil || m.Roomspec == nil {
		return Case{}, fmt.Errorf("conformance: ITF: no roomspec case (%v)", err)
	}
	return Case{Impl: m.Roomspec.Impl, Variant: m.Roomspec.Variant, Property: m.Roomspec.Property, Seed: m.Roomspec.Seed, Failure: m.Roomspec.Failure}, nil
}

// Replay runs a saved case's actions on impl under c (the case's
// variant) and returns the property's result on exactly that sequence
// (no generation, no shrinking).
func Replay(impl Implementation, c *model.Config, cs Case, bound int) (*Result, error) {
	if c.Name != cs.Variant {
		named := *c
		named.Name = cs.Variant
		c = &named
	}
	return Target{Name: cs.Impl, Impl: impl, Config: c}.CheckSequence(cs.Property, cs.Seq, bound)
}

// CheckSequence evaluates property on one given behaviour seq of the spec
// (for callers that choose the sequence themselves, e.g. from a capture or
// a model checker's counterexample): no generation, no shrinking. seq must
// be a behaviour of the spec. The result has the steps taken whether the
// property holds or not: for refinement, SpecViolations then names the
// invariants and step properties violated on states the implementation
// reached in agreement with the spec.
func (t Target) CheckSequence(property Property, seq []model.Action, bound int) (*Result, error) {
	if property != Refinement && property != Liveness {
		return nil, fmt.Errorf("conformance: unknown property %q", property)
	}
	c := t.Config
	if _, _, err := specTrace(c, seq); err != nil {
		return nil, err
	}
	k := newChecker(c, t.Impl, bound)
	r := &Result{Impl: t.Name, Variant: c.Name, Property: property, Cases: 1, Config: c, Bound: k.bound, FailStep: -1, Shrunk: len(seq)}
	fails, err := k.evaluate(r, seq)
	if err != nil {
		return r, err
	}
	r.Holds = !fails
	return r, nil
}
