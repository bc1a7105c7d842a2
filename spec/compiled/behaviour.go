package compiled

import (
	"github.com/roomspec/roomspec/spec/itf"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
)

// ErrNotABehaviour says a trace is not a behaviour of the compiled model
// (a state no action of it reaches).
var ErrNotABehaviour = itf.ErrNotBehaviour

// Behaviour returns the compiled model's actions along a trace the model
// checker found (initial state first), so that the very behaviour can be
// run on an implementation: the trace is followed as spec/itf follows
// any behaviour. Where two actions reach the same state, the one the
// checker named is taken. A step that repeats the state (a lasso closing
// on a stutter) has no action and is left out.
func Behaviour(c *model.Config, trace []check.Step) ([]model.Action, error) {
	if len(trace) == 0 {
		return nil, nil
	}
	f := itf.Follower{Stutters: true, Prefer: func(i int, a model.Action) bool {
		return trace[i].Action != nil && c.ActionString(a) == trace[i].Action.Text
	}}
	_, actions, err := f.Follow(c, len(trace), func(i int, s *model.State) bool { return sameValues(c.Values(s), trace[i].State) })
	if err != nil {
		return nil, err
	}
	return actions[1:], nil
}
