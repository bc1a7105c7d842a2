package check

import (
	"github.com/roomspec/roomspec/tla/eval"
)

// Outcome is what a check found.
type Outcome string

// Outcomes, as printed in JSON output.
const (
	OK        Outcome = "ok"
	Invariant Outcome = "invariant"
	Deadlock  Outcome = "deadlock"
	Violation Outcome = "property"
	// Postcondition is a POSTCONDITION that is false once the search is
	// over (Result.Violated names it).
	Postcondition Outcome = "postcondition"
	Failure       Outcome = "error"
	// Incomplete means the search stopped before it was exhaustive: a
	// bound of Options was reached or the context was cancelled. No
	// violation was found in the states explored (Result.Stopped says why
	// it stopped, Distinct, Depth and Queue how far it got); temporal
	// properties were not checked.
	Incomplete Outcome = "incomplete"
)

// Step is one state of a counterexample and the action that led to it
// (nil for an initial state).
type Step struct {
	Action *eval.Action
	State  eval.State
}

// Result is the outcome of checking a model.
type Result struct {
	Outcome Outcome
	// Violated names the invariant or property that failed.
	Violated string
	// Distinct counts distinct states found; Generated counts every state
	// computed, duplicates included, as TLC reports them.
	Distinct, Generated int64
	// Depth is the number of breadth-first levels (initial states are at
	// depth 1).
	Depth int
	// Trace is the counterexample: the shortest one for an invariant or
	// deadlock; for a property, a lasso whose cycle starts at LoopStart.
	Trace     []Step
	LoopStart int
	// Part says which part of the violated property (Outcome Violation)
	// Trace breaks.
	Part PropertyPart
	// Verdicts has one entry per invariant and property, in configuration
	// order, when Options.All is set: the check then goes on after a
	// violation so that every verdict is known. Outcome, Violated and Trace
	// describe the first violation found.
	Verdicts []Verdict
	// Graph is the reachable state graph, when Options.Graph is set.
	Graph *Graph
	// Err is set when Outcome is Failure.
	Err error
	// Stopped says why an Incomplete search stopped ("interrupted",
	// "-max-states 1000 reached", ...); Queue is the number of states found
	// but not yet expanded when it did.
	Stopped string
	Queue   int
	// Warnings collects what the checker ignored.
	Warnings []string
}

// Verdict is whether one invariant or property holds, with its
// counterexample if not.
type Verdict struct {
	Name string
	// Kind is Invariant or Violation (a temporal property).
	Kind      Outcome
	Holds     bool
	Trace     []Step
	LoopStart int
}

// Graph is a reachable state graph: States[i] is the state with index i
// (initial states first), Edges the steps between them in the order found.
type Graph struct {
	States  []eval.State
	Initial int // States[:Initial] are the initial states
	Edges   []Edge
}

// Edge is one step of the state graph and the action that takes it.
type Edge struct {
	From, To int32
	Action   *eval.Action
}

// PropertyPart is a part of a property, as TLC checks and reports it.
type PropertyPart int

const (
	// PartLiveness is what remains of a property once its safety parts
	// are set apart; Trace is a lasso ("Temporal properties were
	// violated").
	PartLiveness PropertyPart = iota
	// PartInitially is a state predicate conjunct, which every initial
	// state must satisfy ("Property P is violated by the initial state").
	PartInitially
	// PartAlways is the P of a []P conjunct, a state predicate checked on
	// every state as an invariant is ("Invariant P is violated").
	PartAlways
	// PartStep is the A of a [][A]_v conjunct, which the last step of
	// Trace breaks ("Action property P is violated").
	PartStep
)
