package compiled

import (
	"errors"
	"fmt"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
)

// ErrNotABehaviour says a trace is not a behaviour of the compiled model
// (a state no action of it reaches).
var ErrNotABehaviour = errors.New("compiled model: not a behaviour")

// Behaviour returns the compiled model's actions along a trace the model
// checker found (initial state first), so that the very behaviour can be
// run on an implementation. Where two actions reach the same state, the
// one the checker named is taken. A step that repeats the state (a lasso
// closing on a stutter) has no action and is left out.
func Behaviour(c *model.Config, trace []check.Step) ([]model.Action, error) {
	if len(trace) == 0 {
		return nil, nil
	}
	var cur *model.State
	c.Inits(func(s *model.State) bool {
		if sameValues(c.Values(s), trace[0].State) {
			t := *s
			cur = &t
			return true
		}
		return false
	})
	if cur == nil {
		return nil, fmt.Errorf("%w: its first state is not an initial state", ErrNotABehaviour)
	}
	var seq []model.Action
	for i := 1; i < len(trace); i++ {
		want := trace[i].State
		if sameValues(c.Values(cur), want) {
			continue
		}
		named := ""
		if trace[i].Action != nil {
			named = trace[i].Action.Text
		}
		var found *model.State
		var act model.Action
		c.Next(cur, func(a model.Action, t *model.State) bool {
			if !sameValues(c.Values(t), want) {
				return false
			}
			if found == nil || c.ActionString(a) == named {
				s := *t // t is reused by Next
				found, act = &s, a
			}
			return c.ActionString(a) == named
		})
		if found == nil {
			return nil, fmt.Errorf("%w: no action reaches state %d", ErrNotABehaviour, i+1)
		}
		seq = append(seq, act)
		cur = found
	}
	return seq, nil
}
