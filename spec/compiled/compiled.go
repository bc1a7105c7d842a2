// Package compiled lets the model checker explore the bundled Room.tla with
// its compiled form (package spec/model, generated from the spec) instead of
// the interpreter. States cross over as the interpreter's values, so the
// checker, its properties and its output are unchanged; only the
// computation of initial states and successors is compiled.
package compiled

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/spec/tla/eval"
	"github.com/roomspec/roomspec/spec/tla/value"
)

// Matches reports whether the compiled model was generated from exactly
// this spec text: only then may it stand in for the interpreter.
func Matches(specText []byte) bool {
	sum := sha256.Sum256(specText)
	return hex.EncodeToString(sum[:]) == model.SourceSHA256
}

// Successors computes states with a compiled model configuration. It
// implements check.Successors.
type Successors struct {
	c *model.Config
	// typed maps a state's fingerprint (value.HashTuple of its values) to
	// its compiled form, so that Next can start from a state the checker
	// hands back.
	typed sync.Map
}

// New returns Successors for a compiled configuration.
func New(c *model.Config) *Successors { return &Successors{c: c} }

func (x *Successors) values(s *model.State) eval.State {
	v := eval.State(x.c.Values(s))
	x.typed.Store(value.HashTuple(v), s)
	return v
}

// Init yields every initial state.
func (x *Successors) Init(yield func(eval.State)) (err error) {
	defer recoverPanic(&err)
	x.c.Inits(func(s *model.State) bool {
		t := *s
		yield(x.values(&t))
		return false // false: go on
	})
	return nil
}

// Next yields the successors of s with the actions that produce them.
func (x *Successors) Next(s eval.State, yield func(eval.State, *eval.Action)) (err error) {
	defer recoverPanic(&err)
	ts, ok := x.typed.Load(value.HashTuple(s))
	if !ok {
		return fmt.Errorf("compiled model: a state that the compiled model did not produce")
	}
	x.c.Next(ts.(*model.State), func(a model.Action, t *model.State) bool {
		t2 := *t // t is reused by Next
		yield(x.values(&t2), &eval.Action{Name: model.Actions[a.ID].Name, Text: x.c.ActionString(a)})
		return false // false: go on
	})
	return nil
}

// recoverPanic turns the compiled model's run-time errors (Head of an
// empty sequence, a CASE with no true arm, overflow), which it raises as
// panics, into an error.
func recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("compiled model: %v", r)
	}
}
