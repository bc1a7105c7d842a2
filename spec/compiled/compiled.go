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
	// the compiled forms of the states with that fingerprint (a chain,
	// each with its values), so that Next can start from a state the
	// checker hands back: the values tell states whose fingerprints
	// collide apart.
	typed sync.Map
}

// typedState is a compiled state with its values, in a chain of states
// of one fingerprint. Chains only grow at their head, so reading one
// needs no lock.
type typedState struct {
	vals eval.State
	s    *model.State
	next *typedState
}

// New returns Successors for a compiled configuration.
func New(c *model.Config) *Successors { return &Successors{c: c} }

func (x *Successors) values(s *model.State) eval.State {
	v := eval.State(x.c.Values(s))
	h := value.HashTuple(v)
	n := &typedState{vals: v, s: s}
	for {
		old, loaded := x.typed.LoadOrStore(h, n)
		if !loaded {
			return v
		}
		head := old.(*typedState)
		if find(head, v) != nil {
			return v
		}
		n.next = head
		if x.typed.CompareAndSwap(h, head, n) {
			return v
		}
	}
}

// find returns the compiled state of the chain whose values are v.
func find(chain *typedState, v eval.State) *model.State {
	for t := chain; t != nil; t = t.next {
		if sameValues(t.vals, v) {
			return t.s
		}
	}
	return nil
}

func sameValues(a, b eval.State) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		// The checker hands back the values it was given: usually the
		// very same, which compares at once.
		if a[i] != b[i] && !value.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
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
	ts, err := x.typedState(s)
	if err != nil {
		return err
	}
	x.c.Next(ts, func(a model.Action, t *model.State) bool {
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
