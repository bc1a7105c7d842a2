package itf

import (
	"errors"
	"fmt"

	"github.com/roomspec/roomspec/spec/model"
)

// ErrNotBehaviour says that states are not a behaviour of the spec under
// the configuration tried.
var ErrNotBehaviour = errors.New("not a behaviour of the spec")

// Follower finds the spec's behaviour through given states: from an
// initial state, each next one a successor of the one before.
type Follower struct {
	// Prefer chooses among the actions that reach state i from state
	// i-1: the first it accepts is taken, else the first found (nil: the
	// first found).
	Prefer func(i int, a model.Action) bool
	// Stutters lets a state repeat the one before (a lasso that closes on
	// a stutter): no action is taken, and the state is left out.
	Stutters bool
}

// Follow returns a behaviour of c whose i-th state is one at accepts,
// for i < n: its states and the action taken into each (actions[0], for
// the initial state, is unset). The error wraps ErrNotBehaviour and names
// the first state with no match.
func (f Follower) Follow(c *model.Config, n int, at func(i int, s *model.State) bool) (states []model.State, actions []model.Action, err error) {
	if n == 0 {
		return nil, nil, fmt.Errorf("%w: no states", ErrNotBehaviour)
	}
	c.Inits(func(s *model.State) bool {
		if at(0, s) {
			states = append(states, *s)
			return true
		}
		return false
	})
	if len(states) == 0 {
		return nil, nil, fmt.Errorf("%w: state 1 is not an initial state", ErrNotBehaviour)
	}
	actions = []model.Action{{}}
	for i := 1; i < n; i++ {
		cur := &states[len(states)-1]
		if f.Stutters && at(i, cur) {
			continue
		}
		a, t, ok := f.step(c, cur, func(t *model.State) bool { return at(i, t) }, i)
		if !ok {
			return nil, nil, fmt.Errorf("%w: no step leads from state %d to state %d", ErrNotBehaviour, i, i+1)
		}
		states, actions = append(states, t), append(actions, a)
	}
	return states, actions, nil
}

// step returns an action of c from s to a state to accepts (the one
// Prefer accepts for state i, if any), and that state.
func (f Follower) step(c *model.Config, s *model.State, to func(*model.State) bool, i int) (a model.Action, t model.State, ok bool) {
	c.Next(s, func(b model.Action, u *model.State) bool {
		if !to(u) {
			return false
		}
		preferred := f.Prefer != nil && f.Prefer(i, b)
		if !ok || preferred {
			a, t, ok = b, *u, true // *u: Next reuses u
		}
		return f.Prefer == nil || preferred
	})
	return a, t, ok
}

// Follow is Follower{}.Follow: every state a successor of the one before,
// the first action found taken.
func Follow(c *model.Config, n int, at func(i int, s *model.State) bool) ([]model.State, []model.Action, error) {
	return Follower{}.Follow(c, n, at)
}

// Step returns the action of c that leads from s to t (the first found),
// or ok false when none does.
func Step(c *model.Config, s, t *model.State) (a model.Action, ok bool) {
	a, _, ok = Follower{}.step(c, s, t.Equal, 0)
	return a, ok
}

// Follow follows the trace's states: its behaviour under c, the action
// taken into each state (the initial state's unset).
func (t *Trace) Follow(c *model.Config) ([]model.Action, error) {
	_, actions, err := Follow(c, len(t.States), func(i int, s *model.State) bool { return s.Equal(&t.States[i]) })
	return actions, err
}
