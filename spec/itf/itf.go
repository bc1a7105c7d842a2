// Package itf reads and writes behaviours of Room.tla's compiled model
// (spec/model) as traces in Apalache's Informal Trace Format, with
// roomspec's metadata, and follows the spec through given states: the
// one place where a Room trace is read or written (counterexamples of the
// property suite, captured schedules, replay's matched behaviours, the
// traces roomspec show draws) and where a behaviour is found through
// states (follow.go). The generic checker (tla/check) keeps its own
// reading of any spec's ITF, on the interpreter's values.
//
// A document is JSON: {"#meta": {...}, "states": [...], "vars": [...]};
// each state is an object of the spec's variables (spec/model's
// Config.WriteITF), its fields in name order, with {"#meta":{"index":i}};
// a lasso says the state it returns to ("loop": i).
package itf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/roomspec/roomspec/spec/model"
)

// ErrFormat is wrapped by errors about a document that is not a trace of
// the spec.
var ErrFormat = errors.New("ITF")

// Trace is a behaviour of the spec with its metadata.
type Trace struct {
	Meta   Meta
	States []model.State
	// Loop, for a lasso, is the index of the state it returns to after
	// its last.
	Loop *int
}

// Meta is a trace's "#meta" object. Fields are in name order (the order
// roomspec has always written them).
type Meta struct {
	// Capture says which captured room the trace was built from.
	Capture     *Capture `json:"capture,omitempty"`
	Description string   `json:"description,omitempty"`
	Format      string   `json:"format"`
	// Roomspec is the saved counterexample of the property suite.
	Roomspec *Case  `json:"roomspec,omitempty"`
	Source   string `json:"source,omitempty"`
}

// Case is a counterexample of the property suite: which implementation,
// variant and property, and the actions of the behaviour.
type Case struct {
	Impl     string   `json:"impl"`
	Variant  string   `json:"variant"`
	Property string   `json:"property"`
	Seed     int64    `json:"seed"`
	Failure  string   `json:"failure,omitempty"`
	Actions  []Action `json:"actions"`
}

// Action is one action of a saved case: its name, its parameters as
// element indices of their domains, and as the spec prints it (checked on
// load, so that a reordered domain cannot silently change the case).
type Action struct {
	Name   string `json:"name"`
	Params []int  `json:"params"`
	Text   string `json:"text"`
}

// Capture locates a trace's steps in a capture: per step, the frame
// number of the observed message (0 for an unobserved step) and, with an
// event log, its line number.
type Capture struct {
	Frames   []int  `json:"frames"`
	LogLines []int  `json:"log_lines,omitempty"`
	Path     string `json:"path"`
	// Reason is the room's verdict's reason, Verdict the verdict.
	Reason string `json:"reason,omitempty"`
	Room   int64  `json:"room"`
	// Variant is the configuration the room was judged against (roomspec
	// show follows the trace under it).
	Variant string `json:"variant,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	// Why says why the room is pinned, in SGLang's terms.
	Why string `json:"why,omitempty"`
}

// document is the JSON form, keys in name order.
type document struct {
	Meta   Meta              `json:"#meta"`
	Loop   *int              `json:"loop,omitempty"`
	States []json.RawMessage `json:"states"`
	Vars   []string          `json:"vars"`
}

// Marshal writes t, its states under c, as an indented ITF document.
func (t *Trace) Marshal(c *model.Config) ([]byte, error) {
	doc := document{Meta: t.Meta, Loop: t.Loop, Vars: model.Vars}
	if doc.Meta.Format == "" {
		doc.Meta.Format = "ITF"
	}
	for i := range t.States {
		var b strings.Builder
		c.WriteITF(&b, &t.States[i], i)
		doc.States = append(doc.States, json.RawMessage(b.String()))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // keep <<r, 1>> readable
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// ReadMeta reads only a document's metadata (e.g. to find the variant
// whose configuration Read needs) and how many states it has.
func ReadMeta(data []byte) (Meta, int, error) {
	var doc struct {
		Meta   Meta              `json:"#meta"`
		States []json.RawMessage `json:"states"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Meta{}, 0, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return doc.Meta, len(doc.States), nil
}

// Read reads a document whose states are states of the spec under c.
func Read(c *model.Config, data []byte) (*Trace, error) {
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	if doc.Vars != nil && !slices.Equal(doc.Vars, model.Vars) {
		return nil, fmt.Errorf("%w: the trace's variables %v are not the spec's %v", ErrFormat, doc.Vars, model.Vars)
	}
	t := &Trace{Meta: doc.Meta, Loop: doc.Loop}
	if l := doc.Loop; l != nil && (*l < 0 || *l >= len(doc.States)) {
		return nil, fmt.Errorf("%w: loop %d is not the index of a state (%d states)", ErrFormat, *l, len(doc.States))
	}
	for i, raw := range doc.States {
		s, err := c.ReadITFState(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: state %d: %w", ErrFormat, i, err)
		}
		t.States = append(t.States, s)
	}
	return t, nil
}
