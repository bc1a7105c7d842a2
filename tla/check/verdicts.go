package check

import (
	"fmt"

	"github.com/roomspec/roomspec/tla/eval"
)

// preChecked is what the worker that generated a successor found of the
// state predicates checkInvariants evaluates (the P of every []P property,
// then the invariants, in that order), when the successor was not yet
// seen: the first held of them hold, and failed, if set, says the next one
// does not (or that evaluating it failed with err). Workers evaluate them
// in parallel, so that the serial merge of a level only reads verdicts;
// the merge still decides, in generation order, which violation is the
// first.
type preChecked struct {
	held   int
	failed bool
	err    error
}

// precheck evaluates the state predicates of the new state t in order,
// stopping at the first that does not hold.
func (c *checker) precheck(t eval.State, pre *preChecked) {
	for _, p := range c.m.Properties {
		for _, f := range p.Always {
			ok, err := c.m.Spec.Holds(f, t)
			if err != nil || !ok {
				pre.failed, pre.err = true, err
				return
			}
			pre.held++
		}
	}
	for i := range c.m.Invariants {
		ok, err := c.invariantHolds(i, t)
		if err != nil || !ok {
			pre.failed, pre.err = true, err
			return
		}
		pre.held++
	}
}

// outcome returns the outcome of the k-th state predicate, known when
// precheck evaluated it.
func (pre *preChecked) outcome(k int) (ok, known bool, err error) {
	switch {
	case pre == nil:
		return false, false, nil
	case k < pre.held:
		return true, true, nil
	case k == pre.held && pre.failed:
		return false, true, pre.err
	}
	return false, false, nil
}

func (c *checker) invariantHolds(i int, s eval.State) (bool, error) {
	if c.invFns != nil && c.invFns[i] != nil {
		return c.invFns[i](s)
	}
	return c.m.Spec.Holds(c.m.Invariants[i].Formula, s)
}

// checkInvariants checks state id, using what precheck found of it when
// pre is not nil; it returns true when a predicate is violated (the result
// then holds the counterexample).
func (c *checker) checkInvariants(id int32, s eval.State, pre *preChecked) (bool, error) {
	k := 0 // the index of the next predicate in precheck's order
	for i, p := range c.m.Properties {
		for _, f := range p.Always {
			if done, err := c.checkSafety(len(c.m.Invariants)+i, p.Name, PartAlways, f, id, s, pre, k); done || err != nil {
				return done, err
			}
			k++
		}
		if c.nodes[id].parent >= 0 {
			continue
		}
		for _, f := range p.Initially {
			if done, err := c.checkSafety(len(c.m.Invariants)+i, p.Name, PartInitially, f, id, s, nil, 0); done || err != nil {
				return done, err
			}
		}
	}
	for i, inv := range c.m.Invariants {
		if c.opts.All && !c.res.Verdicts[i].Holds {
			continue // the first, shortest counterexample is kept
		}
		ok, known, err := pre.outcome(k + i)
		if !known {
			ok, err = c.invariantHolds(i, s)
		}
		if err != nil {
			return true, &inState{id, fmt.Errorf("evaluating invariant %s: %w", inv.Name, err)}
		}
		if !ok && c.opts.All {
			trace, err := c.trace(id)
			if err != nil {
				return true, err
			}
			c.res.Verdicts[i].Holds = false
			c.res.Verdicts[i].Trace = trace
			c.firstViolation(Invariant, inv.Name, trace, -1)
			continue
		}
		if !ok {
			c.res.Outcome = Invariant
			c.res.Violated = inv.Name
			c.res.Trace, err = c.trace(id)
			return true, err
		}
	}
	return false, nil
}

func hasLiveness(m *Model) bool {
	for _, p := range m.Properties {
		if p.Liveness != nil {
			return true
		}
	}
	return false
}

// checkSafety checks the state-level property []P in state id (P is the
// k-th predicate of pre, if pre is not nil), recording a violation; it
// returns true when the search must stop.
func (c *checker) checkSafety(verdict int, name string, part PropertyPart, f *eval.Formula, id int32, s eval.State, pre *preChecked, k int) (bool, error) {
	if c.opts.All && !c.res.Verdicts[verdict].Holds {
		return false, nil
	}
	ok, known, err := pre.outcome(k)
	if !known {
		ok, err = c.m.Spec.Holds(f, s)
	}
	if err != nil {
		return true, &inState{id, fmt.Errorf("evaluating property %s: %w", name, err)}
	}
	if ok {
		return false, nil
	}
	trace, err := c.trace(id)
	if err != nil {
		return true, err
	}
	return c.recordSafety(verdict, name, trace, part), nil
}

// recordSafety records a violated safety part of a property; it returns
// true when the search must stop.
func (c *checker) recordSafety(verdict int, name string, trace []Step, part PropertyPart) bool {
	if c.opts.All {
		c.res.Verdicts[verdict].Holds = false
		c.res.Verdicts[verdict].Trace = trace
		if c.res.Outcome == OK {
			c.res.Part = part
		}
		c.firstViolation(Violation, name, trace, -1)
		return false
	}
	c.res.Outcome, c.res.Violated, c.res.Trace, c.res.Part = Violation, name, trace, part
	return true
}

// checkSteps checks the action-level properties [][A]_v on the steps out of
// state id, in the order they were generated.
func (c *checker) checkSteps(id int32, list []succ) (bool, error) {
	for _, sc := range list {
		for k := range sc.broken {
			i := sc.broken[k]
			v := len(c.m.Invariants) + i
			if c.opts.All && !c.res.Verdicts[v].Holds {
				continue
			}
			trace, err := c.trace(id)
			if err != nil {
				return true, err
			}
			trace = append(trace, Step{Action: sc.action, State: sc.state})
			if c.recordSafety(v, c.m.Properties[i].Name, trace, PartStep) {
				return true, nil
			}
		}
	}
	return false, nil
}

// firstViolation records a violation as the result's outcome unless an
// earlier one already is.
func (c *checker) firstViolation(kind Outcome, name string, trace []Step, loop int) {
	if c.res.Outcome != OK {
		return
	}
	c.res.Outcome, c.res.Violated, c.res.Trace, c.res.LoopStart = kind, name, trace, loop
}
