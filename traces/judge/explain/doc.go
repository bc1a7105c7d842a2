// Package explain searches for the spec steps that explain a room's
// observations: the matcher under traces/judge/replay's verdicts and under the
// captured-trace property suite's schedules (conformance/captured), so
// that both see exactly the same behaviours of a captured room.
//
// A room is checked on its own instance of the spec (Instances): one
// room, the variant's constants, DecodeRanks and RequiredDstInfoNum set
// from the room's TransferInfo. Every spec step leaves marks (Mark): the
// messages its @wire annotations say it sends (decode's TransferInfo and
// ABORTs, prefill's ABORT_ACKs where the variant sends them) and, with a
// log, prefill's log lines. A capture sees a message while it is in
// flight, between the step that sends it and the one that receives it: a
// send may happen unseen, its message observed later in its channel's
// order (one FIFO per connection), and a receive takes only a message
// already observed. An observation is explained by a step that left its
// mark, after any number (up to a bound) of unseen steps; a step that
// writes a log line is never unseen. So a room's first ABORT is the
// spec's DecodeAbort, which sends one ABORT per rank, the other ranks'
// ABORTs are its pending marks, and a rank's TransferInfo captured after
// another rank's ABORT was sent before the abort and was on its way.
//
// Order. Observations of one room close together (a burst) may have
// happened in another order than observed: each source keeps its order,
// and observations of different sources reorder only within the skew
// (observe.MustPrecede). A burst's states are the union over every order
// that explains it (Instance.Burst).
//
// Cost. The search is memoized per instance as an automaton over sets of
// spec states (Instance): rooms that follow the same pattern share its
// sets, and an observation costs a few map lookups.
//
// What comes from the spec: the messages of each step and the channels
// they travel on come from the @wire and @action annotations, the
// event-log lines of each step from the @log annotations and the lines
// written without a step (polls that move nothing) from the @idle ones,
// all compiled into spec/model; what "let go" means for a verdict is the
// spec's Terminated (lifecycle.go).
package explain
