package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/roomspec/roomspec/spec/model"
)

// Case is a saved counterexample: which implementation, variant and
// property, and the actions of the behaviour. It is stored as an ITF trace
// (the spec's states after each action) with the case in the trace's
// "#meta" under "roomspec".
type Case struct {
	Impl     string         `json:"impl"`
	Variant  string         `json:"variant"`
	Property string         `json:"property"`
	Seed     int64          `json:"seed"`
	Failure  string         `json:"failure,omitempty"`
	Actions  []ITFAction    `json:"actions"`
	Seq      []model.Action `json:"-"`
}

// ITFAction is one action of a saved case: its name, its parameters as
// element indices of their domains, and as the spec prints it (checked on
// load, so a reordered domain cannot silently change the case).
type ITFAction struct {
	Name   string `json:"name"`
	Params []int  `json:"params"`
	Text   string `json:"text"`
}

// SaveITF returns the counterexample of a failed result as ITF JSON: the
// spec's states from the initial state through each step.
func SaveITF(r *Result) ([]byte, error) {
	if r.Holds || r.Config == nil {
		return nil, fmt.Errorf("conformance: no counterexample to save")
	}
	cs := Case{Impl: r.Impl, Variant: r.Variant, Property: r.Property, Seed: r.Seed, Failure: r.Failure}
	cs.Seq = Actions(r.Steps)
	return EncodeCase(r.Config, cs)
}

// EncodeCase writes cs (its Seq) as ITF JSON under c.
func EncodeCase(c *model.Config, cs Case) ([]byte, error) {
	init, trace, err := specTrace(c, cs.Seq)
	if err != nil {
		return nil, err
	}
	cs.Actions = nil
	for _, a := range cs.Seq {
		n := len(model.Actions[a.ID].Params)
		cs.Actions = append(cs.Actions, ITFAction{Name: model.Actions[a.ID].Name, Params: append([]int{}, a.Params[:n]...), Text: c.ActionString(a)})
	}
	doc := map[string]any{}
	if err := json.Unmarshal(c.ITF(append([]model.State{init}, trace...)), &doc); err != nil {
		return nil, fmt.Errorf("conformance: ITF of the spec: %w", err)
	}
	meta, _ := doc["#meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["description"] = fmt.Sprintf("roomspec test: %s of %s (variant %s) fails", cs.Property, cs.Impl, cs.Variant)
	meta["roomspec"] = cs
	doc["#meta"] = meta
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <<r, 1>> readable
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// LoadITF reads a case saved by SaveITF. It checks that the stored states
// are the spec's states along the stored actions under c (the variant's
// configuration, which the caller loads from the case's Variant: see
// DecodeCaseHeader).
func LoadITF(c *model.Config, data []byte) (Case, error) {
	var doc struct {
		Meta struct {
			Roomspec Case `json:"roomspec"`
		} `json:"#meta"`
		States []any `json:"states"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Case{}, fmt.Errorf("conformance: ITF: %w", err)
	}
	cs := doc.Meta.Roomspec
	for i, ia := range cs.Actions {
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
			if d := domainOf(c, t); d == nil || ia.Params[k] < 0 || ia.Params[k] >= d.Size() {
				return cs, fmt.Errorf("conformance: ITF action %d: %s parameter %d out of range", i+1, ia.Name, k+1)
			}
		}
		if got := c.ActionString(a); got != ia.Text {
			return cs, fmt.Errorf("conformance: ITF action %d: parameters %v print as %s, the file says %s", i+1, ia.Params, got, ia.Text)
		}
		cs.Seq = append(cs.Seq, a)
	}
	again, err := EncodeCase(c, cs)
	if err != nil {
		return cs, fmt.Errorf("conformance: ITF: the actions are not a behaviour of the spec: %w", err)
	}
	var want struct {
		States []any `json:"states"`
	}
	if err := json.Unmarshal(again, &want); err != nil {
		return cs, err
	}
	if !reflect.DeepEqual(doc.States, want.States) {
		return cs, fmt.Errorf("conformance: ITF: the stored states are not the spec's states along the actions")
	}
	return cs, nil
}

// DecodeCaseHeader reads only the case's names (to find its variant).
func DecodeCaseHeader(data []byte) (Case, error) {
	var doc struct {
		Meta struct {
			Roomspec Case `json:"roomspec"`
		} `json:"#meta"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Case{}, fmt.Errorf("conformance: ITF: %w", err)
	}
	return doc.Meta.Roomspec, nil
}

// Replay runs a saved case's actions on impl and returns the property's
// result on exactly that sequence (no generation, no shrinking).
func Replay(impl Implementation, c *model.Config, cs Case, bound int) (*Result, error) {
	return CheckSequence(impl, cs.Impl, cs.Variant, c, cs.Property, cs.Seq, bound)
}

// CheckSequence evaluates property on one given behaviour seq of the spec
// (for callers that choose the sequence themselves, e.g. from a capture):
// no generation, no shrinking. seq must be a behaviour of the spec.
func CheckSequence(impl Implementation, name, variant string, c *model.Config, property string, seq []model.Action, bound int) (*Result, error) {
	if property != Refinement && property != Liveness {
		return nil, fmt.Errorf("conformance: unknown property %q", property)
	}
	if _, _, err := specTrace(c, seq); err != nil {
		return nil, err
	}
	cs := Case{Impl: name, Variant: variant, Property: property, Seq: seq}
	k := newChecker(c, impl, bound)
	r := &Result{Impl: cs.Impl, Variant: cs.Variant, Property: cs.Property, Seed: cs.Seed, Cases: 1, Config: c, Bound: k.bound, FailStep: -1}
	if !k.failsFunc(cs.Property)(cs.Seq) {
		r.Holds = true
		return r, nil
	}
	if err := k.explain(r, cs.Seq); err != nil {
		return r, err
	}
	r.Shrunk = len(cs.Seq)
	return r, nil
}
