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
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
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
	// byState maps a compiled state's own hash (model.State.Hash) to the
	// states with that hash (a chain through nextS), so that a successor
	// found before is given the values it was given then: no conversion
	// and no comparison of values, and the checker gets back the very
	// values it keeps, which compare at once.
	byState sync.Map
	// byVals maps the first element of the values handed out for a state
	// (a *value.Value: states are never modified, so the same backing
	// array means the same values) to its entry: the checker mostly hands
	// back what it was given, which then needs no fingerprint.
	byVals sync.Map
	// actions holds the checker's form of each action instance taken
	// (a model.Action to its *eval.Action), printed once: successors
	// share it, as the checker only reads it.
	actions sync.Map
}

// typedState is a compiled state with its values, in a chain of states
// of one fingerprint (next) and in one of one compiled hash (nextS).
// Chains only grow at their head, so reading one needs no lock.
type typedState struct {
	vals  eval.State
	s     *model.State
	next  *typedState
	nextS *typedState
}

// New returns Successors for a compiled configuration.
func New(c *model.Config) *Successors { return &Successors{c: c} }

// values returns the values of compiled state s: those given before for
// an equal state, else new ones, recorded in both maps.
func (x *Successors) values(s *model.State) eval.State {
	hs := s.Hash()
	var n *typedState
	for {
		var head *typedState
		if old, ok := x.byState.Load(hs); ok {
			head = old.(*typedState)
		}
		for t := head; t != nil; t = t.nextS {
			if t.s.Equal(s) {
				return t.vals
			}
		}
		if n == nil {
			var fresh bool
			if n, fresh = x.record(s); !fresh {
				// Recorded by another worker, which links it here.
				return n.vals
			}
		}
		// n is not yet in byState: its link is ours until it is.
		n.nextS = head
		if head == nil {
			if _, loaded := x.byState.LoadOrStore(hs, n); !loaded {
				return n.vals
			}
		} else if x.byState.CompareAndSwap(hs, head, n) {
			return n.vals
		}
	}
}

// record adds s with its values to the chain of their fingerprint and
// returns its entry, fresh, or the entry of an equal state already there.
func (x *Successors) record(s *model.State) (*typedState, bool) {
	v := eval.State(x.c.Values(s))
	h := value.HashTuple(v)
	n := &typedState{vals: v, s: s}
	if len(v) > 0 {
		x.byVals.Store(&v[0], n)
	}
	for {
		old, loaded := x.typed.LoadOrStore(h, n)
		if !loaded {
			return n, true
		}
		head := old.(*typedState)
		if t := findEntry(head, v); t != nil {
			return t, false
		}
		n.next = head
		if x.typed.CompareAndSwap(h, head, n) {
			return n, true
		}
	}
}

// find returns the compiled state of the chain whose values are v.
func find(chain *typedState, v eval.State) *model.State {
	if t := findEntry(chain, v); t != nil {
		return t.s
	}
	return nil
}

// findEntry returns the entry of the chain whose values are v.
func findEntry(chain *typedState, v eval.State) *typedState {
	for t := chain; t != nil; t = t.next {
		if sameValues(t.vals, v) {
			return t
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
		yield(x.values(&t2), x.action(a))
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

// action returns the checker's form of action instance a.
func (x *Successors) action(a model.Action) *eval.Action {
	if ea, ok := x.actions.Load(a); ok {
		return ea.(*eval.Action)
	}
	ea, _ := x.actions.LoadOrStore(a, &eval.Action{Name: model.Actions[a.ID].Name, Text: x.c.ActionString(a)})
	return ea.(*eval.Action)
}
