// Package conformance drives an implementation of the room lifecycle step
// by step in lockstep with the spec (spec/Room.tla compiled into
// spec/model) and checks two properties:
//
//   - refinement: after every step the implementation's state, mapped onto
//     the spec's variables (Implementation.Observe), equals the spec's
//     successor state, and the configuration's invariants and step
//     properties hold on the observed states;
//   - liveness: the environment (decode) stops, the implementation's own
//     actions run under a fair round-robin until nothing changes
//     (bounded), and then every aborted request satisfies the spec's
//     Terminated (AbortedRoomsTerminate's condition).
//
// A run is a tour, then random cases. The tour (package tour) walks the
// spec's reachable state graph so that the implementation takes every
// edge, a reset starting each case; under liveness, fair quiescence runs
// from every state. A step the implementation refuses is a failure, and
// where an action has several successors the observed state says which
// edge was taken. Then gopter generates random cases, each aiming at a
// kind of ending drawn first (a room in Success, an abort, a timeout), so
// that completions are about as common as aborts; liveness is checked
// after every step where the implementation can copy itself (Cloner), else
// at the end of each case. Every run reports its coverage (Coverage).
//
// The commands are the spec's actions enabled in the current spec state
// (spec/model's Enabled); the fair round-robin takes the action instances
// the spec assumes fair (FairActions): nothing here is specific to
// Room.tla's actions. A failure is reproducible from its seed (one
// worker); gopter shrinks a random one (never keeping a sequence whose
// preconditions fail), and every counterexample is then minimized by
// removing single steps while the failure persists, so it is 1-minimal.
// It prints as a step table (WriteText) and can be saved as an ITF trace
// and replayed (SaveITF, LoadITF, Replay).
//
// Related packages: conformance/impl holds Go ports of each variant,
// spec/itf the trace format, conformance/captured runs the properties on
// the schedules a captured room allows.
package conformance

import (
	"errors"
	"fmt"

	"github.com/roomspec/roomspec/spec/model"
)

// Implementation is an implementation of the room lifecycle under test.
type Implementation interface {
	// Reset starts over from the initial state, with the rooms, decode
	// ranks and requests of c.
	Reset(c *model.Config) error
	// Apply takes one step: an environment action is applied to the
	// implementation's inputs (decode's messages on its sockets), an
	// implementation action runs one step of the thread it names. An error
	// means the implementation could not take the step (it should then
	// leave its state unchanged).
	Apply(a model.Action) error
	// Observe returns the implementation's state mapped onto the spec's
	// variables: the refinement mapping.
	Observe() (model.State, error)
	// Close releases the implementation (an external process, ...).
	Close() error
}

// Cloner is an Implementation that can copy itself; the liveness property
// then explores quiescence on a copy instead of replaying the sequence.
type Cloner interface {
	Implementation
	Clone() Implementation
}

// Property names a property of the suite.
type Property = string

// The properties.
const (
	Refinement = "refinement"
	Liveness   = "liveness"
)

// Target is an implementation under test and the configuration of the
// spec (the variant, Config.Name) it is held to.
type Target struct {
	// Name labels results (a built-in port's name, exec:COMMAND, ...).
	Name   string
	Impl   Implementation
	Config *model.Config
}

// ErrInvalidSequence is returned when a sequence of actions is not a
// behaviour of the spec (some action is not enabled where it is taken).
var ErrInvalidSequence = errors.New("conformance: action not enabled in the spec")

// Step is one step of a counterexample.
type Step struct {
	// Action is the spec action taken; Stutter marks a step that does
	// nothing (generated when no action is enabled).
	Action  model.Action
	Stutter bool
	// Spec is the spec's state after the step, Impl the implementation's
	// (observed) state; ImplErr is set when the implementation refused it.
	Spec, Impl model.State
	ImplErr    string
}

// Result is the outcome of one property run.
type Result struct {
	Impl     string `json:"impl"`
	Variant  string `json:"variant"`
	Property string `json:"property"`
	Holds    bool   `json:"holds"`
	// Cases is the number of random cases run (passed ones, plus the
	// failing one); the tour's are in Coverage.Tour.
	Cases int   `json:"cases"`
	Seed  int64 `json:"seed"`
	// Steps is the minimized counterexample (empty when the property holds).
	Steps []Step `json:"-"`
	// Failure says what failed; FailStep is the index in Steps of the step
	// at which refinement failed (-1 for the initial state).
	Failure  string `json:"failure,omitempty"`
	FailStep int    `json:"-"`
	// Quiesce is, for liveness, the implementation's steps under the fair
	// round-robin after Steps, and Pinned the aborted requests that were
	// not terminated after them.
	Quiesce []Step   `json:"-"`
	Pinned  []string `json:"pinned,omitempty"`
	// Bound is the limit on fair round-robin rounds; MaxRounds the most
	// rounds any case needed to quiesce.
	Bound     int `json:"bound,omitempty"`
	MaxRounds int `json:"max_rounds,omitempty"`
	// FoundBy says which part of the run found the counterexample: "tour"
	// or "random".
	FoundBy string `json:"found_by,omitempty"`
	// Shrunk is the length of the counterexample before the final
	// 1-minimization: gopter's shrunk case, or the tour's case.
	Shrunk int `json:"shrunk,omitempty"`
	// ShrunkSeq is that counterexample itself.
	ShrunkSeq []model.Action `json:"-"`
	// InvalidCases counts cases, generated or shrunk, that took an action
	// the spec does not enable there (always 0: gopter's sieve re-checks
	// the preconditions of every shrunk sequence).
	InvalidCases int `json:"-"`
	// SpecViolations names invariants or step properties that failed on
	// an observed state equal to the spec's: the spec itself violates them
	// under this configuration (roomspec check reports them too), so they
	// say nothing against the implementation and do not fail refinement.
	SpecViolations []string `json:"spec_violations,omitempty"`
	// Crowd says what the crowded-queue cases of Options.Crowd did (nil
	// where none ran).
	Crowd *CrowdStats `json:"crowd,omitempty"`
	// Coverage is what the run took of the spec's state graph.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Config is the configuration the run used (for printing).
	Config *model.Config `json:"-"`
}

// specTrace replays seq in the spec from its initial state: the states
// after each step. It fails with ErrInvalidSequence if an action is not
// enabled.
func specTrace(c *model.Config, seq []model.Action) (model.State, []model.State, error) {
	init := c.Init()
	s := init
	out := make([]model.State, len(seq))
	for i, a := range seq {
		t, ok := c.Step(&s, a)
		if !ok {
			return init, nil, fmt.Errorf("step %d %s: %w", i+1, c.ActionString(a), ErrInvalidSequence)
		}
		out[i], s = t, t
	}
	return init, out, nil
}

// Valid reports whether seq is a behaviour of the spec under c.
func Valid(c *model.Config, seq []model.Action) bool {
	_, _, err := specTrace(c, seq)
	return err == nil
}
