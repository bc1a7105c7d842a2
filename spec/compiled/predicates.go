package compiled

import (
	"fmt"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// typedState returns the compiled form of a state the compiled model
// produced.
func (x *Successors) typedState(s eval.State) (*model.State, error) {
	// Usually the checker hands back the very values it was given.
	if len(s) > 0 {
		if n, ok := x.byVals.Load(&s[0]); ok && len(n.(*typedState).vals) == len(s) {
			return n.(*typedState).s, nil
		}
	}
	if chain, ok := x.typed.Load(value.HashTuple(s)); ok {
		if ts := find(chain.(*typedState), s); ts != nil {
			return ts, nil
		}
	}
	return nil, fmt.Errorf("compiled model: a state that the compiled model did not produce")
}

// Invariant returns the compiled invariant name, if the compiled model has
// it (check.Predicates).
func (x *Successors) Invariant(name string) (func(eval.State) (bool, error), bool) {
	f, ok := x.c.Invariant(name)
	if !ok {
		return nil, false
	}
	return func(s eval.State) (ok bool, err error) {
		defer recoverPanic(&err)
		ts, err := x.typedState(s)
		if err != nil {
			return false, err
		}
		return f(ts), nil
	}, true
}

// StepProperty returns the compiled action property [][A]_v name, if the
// compiled model has it (check.Predicates).
func (x *Successors) StepProperty(name string) (func(s, t eval.State) (bool, error), bool) {
	f, ok := x.c.StepProperty(name)
	if !ok {
		return nil, false
	}
	return func(s, t eval.State) (ok bool, err error) {
		defer recoverPanic(&err)
		ts, err := x.typedState(s)
		if err != nil {
			return false, err
		}
		tt, err := x.typedState(t)
		if err != nil {
			return false, err
		}
		return f(ts, tt), nil
	}, true
}
