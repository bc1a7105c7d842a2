package conformance

import (
	"errors"
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/spec/model"
)

// DefaultBound is the default limit on fair round-robin rounds when the
// liveness property lets the implementation's threads run. Every bundled
// configuration quiesces in far fewer (Result.MaxRounds reports how many).
const DefaultBound = 64

// checker evaluates the properties on whole sequences of actions; the
// gopter commands, the minimizer and the ITF replay share it.
type checker struct {
	c     *model.Config
	impl  Implementation
	bound int
	invs  []string // state invariants of the configuration
	props []string // step properties [][A]_v of the configuration
}

func newChecker(c *model.Config, impl Implementation, bound int) *checker {
	if bound <= 0 {
		bound = DefaultBound
	}
	k := &checker{c: c, impl: impl, bound: bound}
	for _, name := range c.Invariants {
		if _, ok := c.Invariant(name); ok {
			k.invs = append(k.invs, name)
		}
	}
	for _, name := range c.Properties {
		if _, ok := c.StepProperty(name); ok {
			k.props = append(k.props, name)
		} else if _, ok := c.Invariant(name); ok {
			k.invs = append(k.invs, name)
		}
	}
	return k
}

// judge compares an observed step with the spec's: a refinement failure
// message ("" if none), and the names of invariants or step properties
// the spec itself violates at this step.
func (k *checker) judge(prevObs, obs, spec *model.State) (string, []string) {
	if !obs.Equal(spec) {
		return "implementation state differs from the spec's successor: " + diffVars(k.c, spec, obs), nil
	}
	var specViol []string
	for _, name := range k.invs {
		inv, _ := k.c.Invariant(name)
		if !inv(obs) {
			specViol = append(specViol, name)
		}
	}
	if prevObs != nil {
		for _, name := range k.props {
			p, _ := k.c.StepProperty(name)
			if !p(prevObs, obs) {
				specViol = append(specViol, name)
			}
		}
	}
	return "", specViol
}

// refusalText is the failure message of a step the implementation did
// not take (ErrRefused's own text already says so).
func refusalText(err error) string {
	if errors.Is(err, ErrRefused) {
		return err.Error()
	}
	return "implementation refused the step: " + err.Error()
}

// refine replays seq on the implementation in lockstep with the spec. It
// returns the steps taken, the index of the failing step (-1: the initial
// state, len(steps): none), and the failure message.
//
// seq may end in one action the spec does not enable there (every other
// is a step of the spec): the implementation must refuse it, or take it
// without changing its state; taking it otherwise fails refinement.
func (k *checker) refine(seq []model.Action) (steps []Step, failAt int, msg string, specViol []string, err error) {
	var disabled *model.Action
	init, _, err := specTrace(k.c, seq)
	if err != nil && len(seq) > 0 {
		if init, _, err = specTrace(k.c, seq[:len(seq)-1]); err == nil {
			disabled, seq = &seq[len(seq)-1], seq[:len(seq)-1]
		}
	}
	if err != nil {
		return nil, 0, "", nil, err
	}
	defer func() {
		if disabled == nil || err != nil || msg != "" {
			return
		}
		var st Step
		st, msg, err = k.refuses(*disabled, steps, init)
		if msg != "" {
			steps = append(steps, st)
			failAt = len(steps) - 1
		}
	}()
	if err := k.impl.Reset(k.c); err != nil {
		return nil, 0, "", nil, fmt.Errorf("reset: %w", err)
	}
	obs, err := k.impl.Observe()
	if err != nil {
		return nil, 0, "", nil, fmt.Errorf("observe: %w", err)
	}
	if m, _ := k.judge(nil, &obs, &init); m != "" {
		return nil, -1, "initial state: " + m, nil, nil
	}
	spec := init
	for i, a := range seq {
		prev := obs
		var implErr, refusal string
		if aerr := k.impl.Apply(a); aerr != nil {
			implErr, refusal = aerr.Error(), refusalText(aerr)
		}
		obs, err = k.impl.Observe()
		if err != nil {
			return steps, i, "", nil, fmt.Errorf("observe after step %d: %w", i+1, err)
		}
		next, ok := successor(k.c, &spec, a, &obs)
		if !ok {
			// The implementation resolved an earlier nondeterministic
			// step otherwise than the sequence assumed.
			return steps, i, "", nil, fmt.Errorf("step %d %s: %w", i+1, k.c.ActionString(a), ErrInvalidSequence)
		}
		spec = next
		steps = append(steps, Step{Action: a, Spec: spec, Impl: obs, ImplErr: implErr})
		if implErr != "" {
			return steps, i, refusal, specViol, nil
		}
		m, sv := k.judge(&prev, &obs, &spec)
		specViol = append(specViol, sv...)
		if m != "" {
			return steps, i, m, specViol, nil
		}
	}
	return steps, len(steps), "", specViol, nil
}

// refuses asks the implementation, after steps, for a, which the spec
// does not enable there: a failure message if its state changes, whether
// it took a (a step the spec does not have) or refused it (a refusal
// changes nothing; the SGLang harness refuses a scheduler pass that
// moved no request only after running it, and a pass that released a
// request wrongly as a real-effect finding).
func (k *checker) refuses(a model.Action, steps []Step, init model.State) (Step, string, error) {
	spec := init
	if len(steps) > 0 {
		spec = steps[len(steps)-1].Spec
	}
	before, err := k.impl.Observe()
	if err != nil {
		return Step{}, "", fmt.Errorf("observe: %w", err)
	}
	aerr := k.impl.Apply(a)
	obs, err := k.impl.Observe()
	if err != nil {
		return Step{}, "", fmt.Errorf("observe after %s: %w", k.c.ActionString(a), err)
	}
	if obs.Equal(&before) {
		return Step{}, "", nil
	}
	if aerr != nil {
		return Step{Action: a, Spec: spec, Impl: obs, ImplErr: aerr.Error()}, fmt.Sprintf("the implementation refused %s, which the spec does not enable here, and its state changed (%v): %s",
			k.c.ActionString(a), aerr, diffVars(k.c, &spec, &obs)), nil
	}
	return Step{Action: a, Spec: spec, Impl: obs}, fmt.Sprintf("the implementation took %s, which the spec does not enable here (it must refuse it or change nothing): %s",
		k.c.ActionString(a), diffVars(k.c, &spec, &obs)), nil
}

// successor is the spec's successor of s under a: where a has several
// there (a nondeterministic action), the one equal to obs, the
// implementation's state, if any (the implementation says which step it
// took), else the first, as Step gives it.
func successor(c *model.Config, s *model.State, a model.Action, obs *model.State) (model.State, bool) {
	if model.Actions[a.ID].Deterministic {
		return c.Step(s, a)
	}
	var out model.State
	found := false
	c.Next(s, func(b model.Action, t *model.State) bool {
		if b != a {
			return false
		}
		if !found || t.Equal(obs) {
			out, found = *t, true // t is reused by Next; its slices are not
		}
		return t.Equal(obs)
	})
	return out, found
}

// quiesce runs the implementation's own actions under a fair round-robin
// until a whole round changes nothing, at most bound rounds. spec is the
// spec state the implementation started from (for the step table). It
// returns the steps that changed something and the rounds taken.
func (k *checker) quiesce(impl Implementation, obs, spec model.State) ([]Step, model.State, int, error) {
	var steps []Step
	fair := k.c.FairActions(nil)
	for round := 1; round <= k.bound; round++ {
		changed := false
		for _, a := range fair {
			if impl.Apply(a) != nil {
				continue
			}
			o, err := impl.Observe()
			if err != nil {
				return steps, obs, round, err
			}
			if o.Equal(&obs) {
				continue
			}
			changed = true
			st := Step{Action: a, Impl: o, Spec: spec}
			if t, ok := k.c.Step(&spec, a); ok {
				st.Spec, spec = t, t
			} else {
				st.ImplErr = "not enabled in the spec"
			}
			steps = append(steps, st)
			obs = o
		}
		if !changed {
			return steps, obs, round, nil
		}
	}
	return steps, obs, k.bound + 1, nil
}

// pinned lists the aborted requests that are not terminated in s
// (AbortedRoomsTerminate) or, where decode waits for ABORT_ACKs, whose
// pages a decode rank still holds (AbortsAcked: "<<r, 1>> (not ACKed)").
func pinned(c *model.Config, s *model.State) []string {
	var out []string
	for q := range c.Requests.Size() {
		if !s.Aborted[q] {
			continue
		}
		var b strings.Builder
		c.Requests.Format(&b, q)
		if !c.Terminated(s, model.Requests(q)) {
			out = append(out, b.String())
		} else if c.AbortAckSent && !c.Acked(s, model.Requests(q)) {
			out = append(out, b.String()+" (not ACKed)")
		}
	}
	return out
}

// live applies seq to the implementation, lets it quiesce, and reports
// the aborted requests left unterminated.
func (k *checker) live(seq []model.Action) (steps, quiet []Step, pin []string, rounds int, err error) {
	_, trace, err := specTrace(k.c, seq)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if err := k.impl.Reset(k.c); err != nil {
		return nil, nil, nil, 0, fmt.Errorf("reset: %w", err)
	}
	spec := k.c.Init()
	var refused []string
	for i, a := range seq {
		st := Step{Action: a, Spec: trace[i]}
		if aerr := k.impl.Apply(a); aerr != nil {
			st.ImplErr = aerr.Error()
			// A step the spec takes and the implementation cannot is a
			// failure of liveness too (the case that found it failed so).
			refused = append(refused, fmt.Sprintf("(the implementation refused step %d, %s: %s)", i+1, k.c.ActionString(a), aerr))
		}
		if st.Impl, err = k.impl.Observe(); err != nil {
			return steps, nil, nil, 0, err
		}
		steps = append(steps, st)
		spec = trace[i]
	}
	obs, err := k.impl.Observe()
	if err != nil {
		return steps, nil, nil, 0, err
	}
	quiet, obs, rounds, err = k.quiesce(k.impl, obs, spec)
	if err != nil {
		return steps, quiet, nil, rounds, err
	}
	pin = append(refused, pinned(k.c, &obs)...)
	if rounds > k.bound && len(pin) == 0 {
		pin = []string{fmt.Sprintf("(no quiescence within %d rounds)", k.bound)}
	}
	return steps, quiet, pin, rounds, nil
}
