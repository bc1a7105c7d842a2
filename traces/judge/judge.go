// Package judge judges each room of a capture (and, optionally, of a
// prefill event log) against the room-lifecycle spec and gives every
// room one verdict with its evidence.
//
// A Judge is a pure state machine, in the style of etcd's raft: it is
// told what was observed (Step, in time order), how far capture time has
// gone (Tick) and when the capture ended (Finish), and what it decided
// is read from Ready as Events. It does no I/O and calls nothing back.
// Replay, watch and the captured-trace suite drive the same machine:
// replay (traces/judge/replay) reads finished captures and a log, merged
// by time (observe.Stream); watch (traces/judge/watch) merges live
// sources (observe.Live) and ticks capture time on as the wall clock
// goes; conformance/captured checks every room it hands over. The one
// place that decides when a room's verdict is final is here (final.go):
// when the room goes idle, or at Finish.
//
// Rooms are grouped as traces/observe groups them (a room is a room id on
// one prefill endpoint), and their observations are explained by spec
// steps as traces/judge/explain searches them: through the @wire
// annotations of the spec, with unseen steps searched (bounded) between
// observations, and observations of different sources within
// Options.Skew tried in either order.
//
// Memory. Per room the Judge keeps its current set of spec states, its
// observations (compactly, to rebuild the matched behaviour of a
// reported room) and its evidence; a room idle for Options.Idle is judged
// and forgotten, so memory follows the rooms seen within that window, not
// the capture's length.
//
// Verdicts of aborted rooms (deadlines are measured on capture time,
// from the room's first ABORT):
//
//   - with a log: satisfied when the log shows prefill letting go of every
//     aborted request within the deadline, violated when it did not and
//     the capture ran past the deadline, inconclusive when the capture
//     ended first;
//   - wire only: at-risk when some completion of the unseen steps (all
//     spec steps but decode's sends) reaches a state from which no
//     behaviour lets an aborted request go, with that completion
//     (Room.Pin); predicted-released when every completion can still let
//     it go: a prediction under the variant, never satisfied, since the
//     release itself is not observable without a log (Latency stays -1
//     unless messages on the wire imply the release); inconclusive when
//     the completions exceed MaxStates;
//   - invalid, either way, when an observation has no explaining step.
//
// Overdue rooms. With Options.Overdue (watch), a room is also reported
// while the capture goes on, the moment Tick passes its deadline: Pinned
// (with a log: prefill never let go; violated as judged then) or AtRisk
// (from the wire alone: some completion of the unseen steps pins it); a
// room whose judgement then is neither is not reported until its final
// verdict. A room reported so and let go later (the log showed it) is
// reported Released, judged again: violated, with its latency. A room's
// observations close into bursts (explain.Cuts) when capture time passes
// the last of them by more than the skew; Tick closes them then rather
// than at the room's next observation, which cuts them the same way.
// Rooms idle for Options.Idle are still judged at the next observation,
// so that the final verdicts of a watched capture are the verdicts a
// replay of the same capture gives.
//
// Rooms first seen mid-life. A room the log shows before the capture's
// first message, or one first seen within the deadline of the capture's
// start when the capture joined a connection after its handshake
// (observe.Wire.MidStream), may have sent messages the capture never
// saw. Such a room is judged again as blind to each of its channels until
// its first observation there (what was sent before may have been
// missed), and if even that does not explain it, from every state of the
// spec (its life began before both the capture and the log); the verdict
// that counts is the second one when they differ, and its reason says so
// (Room.Start).
//
// A log is held against the capture before any room is judged (see
// logcheck.go): one that does not belong to it is an error (Err), not a
// source of verdicts. The log is matched to the rooms of one prefill
// endpoint (Options.LogEndpoint, else the first one seen); rooms of other
// endpoints, and rooms the log does not show, are judged from the wire
// alone, and say so (Room.WireOnly).
//
// Limits: A room id reused by decode is a second request of the same
// room, which only the *-reuse variants model (others find its second
// TransferInfo invalid), and the spec has two incarnations.
// chunk_enqueue, chunk_skip and client-abort log events are kept as
// evidence only. A burst of more than explain.MaxBurst close
// observations is cut, and orders across the cut are not explored
// (Room.BoundHit).
package judge

import (
	"net/netip"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge/explain"
	"github.com/roomspec/roomspec/traces/observe"
)

// DefaultSkew is how far apart two observations of different sources may
// be and still have happened in the other order, unless Options.Skew says
// otherwise.
const DefaultSkew = time.Millisecond

// Options tune a Judge.
type Options struct {
	// Deadline is how long after its abort a room must be terminal
	// (default 300 s, SGLang's own timeout).
	Deadline time.Duration
	// Log says that a prefill event log is merged with the capture: its
	// events then constrain which internal steps may have happened
	// unseen, and verdicts are judged on observed termination.
	Log bool
	// LogEndpoint is the prefill endpoint (decode's destination) whose
	// rooms the log belongs to; zero means the first one seen.
	LogEndpoint netip.AddrPort
	// Skew is how far apart two observations of different sources may
	// be and still have happened in the other order (zero: DefaultSkew;
	// negative: none, the capture's order across sources is kept).
	Skew time.Duration
	// Idle is how long a room may go unobserved before it is judged and
	// forgotten (default twice the deadline: decode aborts a request it
	// waited on for its own 300 s, so a room's messages come within that
	// of each other). An observation of its room id after that starts a
	// new room.
	Idle time.Duration
	// MaxHidden bounds the number of unseen steps searched between two
	// observations of a room (default 24).
	MaxHidden int
	// MaxStates bounds the states one search visits (default 50000).
	MaxStates int
	// MaxEvidence bounds the frame and line numbers kept per room
	// (default 64); the rest are counted.
	MaxEvidence int
	// Overdue reports aborted rooms the moment Tick passes their deadline
	// (Pinned, AtRisk) and their release after it (Released).
	Overdue bool
	// AllRooms gives a Verdict event to every room, never aborted ones
	// too (otherwise they are only counted).
	AllRooms bool
	// KeepMatch keeps in each room what it was explained from
	// (Room.Match), to search its behaviours again.
	KeepMatch bool
	// Witness asks for each reported room's Witness (see Room.Witness).
	Witness bool
}

func (o *Options) defaults() {
	if o.Deadline <= 0 {
		o.Deadline = 300 * time.Second
	}
	if o.Skew < 0 {
		o.Skew = 0
	} else if o.Skew == 0 {
		o.Skew = DefaultSkew
	}
	if o.Idle <= 0 {
		o.Idle = 2 * o.Deadline
	}
	if o.MaxHidden <= 0 {
		o.MaxHidden = 24
	}
	if o.MaxStates <= 0 {
		o.MaxStates = 50000
	}
	if o.MaxEvidence <= 0 {
		o.MaxEvidence = 64
	}
}

// ErrConfig is wrapped by errors about the variant configuration.
var ErrConfig = explain.ErrConfig

// Judge judges rooms from observations fed in time order. It is not
// safe for concurrent use.
type Judge struct {
	opt       Options
	instances *explain.Instances
	marks     *explain.MarkTable
	rooms     *observe.Grouper[roomState]
	sources   observe.Sources
	// ackLogged: the configuration's code sends 2-frame ABORT_ACKs decode
	// only logs (Room.tla's AbortAckLogged); Step skips them.
	ackLogged bool
	// wireMarks holds the interned wire marks by kind and rank, plus one.
	wireMarks [observe.AbortAck + 1][observe.MaxRanks]int32
	// lastTime is the latest time observed (unix nanoseconds).
	lastTime int64
	report   Report
	logCheck logCheck
	fit      logFit
	err      error
	// witnesses holds the witnesses rebuilt per room pattern (witness.go).
	witnesses map[string]*Witness
	// overdue holds the rooms reported overdue (overdue.go).
	overdue overdue
	// finished: Finish was called at end (unix nanoseconds).
	finished bool
	end      int64
	// ready holds the events decided since Ready was last called,
	// releases the release latencies since Releases was (Overdue only).
	ready    []Event
	releases []time.Duration
}

// maxReleases bounds the release latencies a Judge keeps for a caller
// that does not take them.
const maxReleases = 4096

// New returns a Judge for the variant c (a configuration of one room:
// its rooms are checked on instances of it with their own decode ranks).
func New(c *model.Config, opt Options) (*Judge, error) {
	opt.defaults()
	is, err := explain.NewInstances(c, opt.MaxHidden, opt.MaxStates)
	if err != nil {
		return nil, err
	}
	j := &Judge{opt: opt, instances: is, marks: is.Marks(), overdue: overdue{alerts: map[int64][]*alert{}},
		ackLogged: c.AbortAckLogged}
	j.rooms = observe.NewGrouper(observe.GroupOptions{Idle: opt.Idle, LogEndpoint: opt.LogEndpoint}, func(rm *room) {
		j.forgotten(rm, j.lastTime)
	})
	return j, nil
}

// Step feeds the next observation, in time order.
func (j *Judge) Step(o observe.Observation) {
	if j.finished {
		return
	}
	if j.ackLogged && o.Kind == observe.AbortAck && o.AckFrames == 2 {
		// Mooncake's immediate ACK, which decode only logs: no message of
		// the spec (Room.tla, AbortAckLogged).
		j.overdue.stats.LoggedAcks++
		return
	}
	rm := j.observe(o)
	if rm != nil && j.opt.Overdue {
		j.observed(rm, &o)
	}
}

// Tick tells the Judge that capture time has reached t: every
// observation before t has been fed. With Options.Overdue, rooms let go
// since they were reported overdue are reported Released, then rooms
// whose deadline passed by t are reported Pinned or AtRisk.
func (j *Judge) Tick(t time.Time) {
	if j.finished || !j.opt.Overdue {
		return
	}
	j.tick(t)
}

// Finish judges every room still held at the capture's end time end (a
// Verdict event each) and returns the report. Later Steps and Ticks are
// ignored.
func (j *Judge) Finish(end time.Time) *Report {
	if !j.finished {
		j.finished, j.end = true, end.UnixNano()
		j.rooms.Drain(func(rm *room) { j.forgotten(rm, j.end) })
		j.hold(nil, 0, true)
		od := &j.overdue
		od.due, od.dirty, od.alerts = nil, nil, map[int64][]*alert{}
		od.stats.Pinned, od.stats.AtRisk = 0, 0
		j.report.End = end
	}
	return j.Report()
}

// Ready returns the events decided since it was last called, in the
// order they were decided (nil if none).
func (j *Judge) Ready() []Event {
	out := j.ready
	j.ready = nil
	return out
}

// Releases returns how long after its abort each aborted room was let go,
// for the releases seen since it was last called, in the order they were
// seen: with Options.Overdue, as soon as a release is seen (the log shows
// it), not at the room's final verdict (but for a room that only an
// explanation from another start explains: at its verdict), and every
// release, within the deadline or not. At most 4096 are kept between two
// calls.
func (j *Judge) Releases() []time.Duration {
	out := j.releases
	j.releases = nil
	return out
}

// Report returns the counts so far (the rooms judged, by verdict; never
// aborted rooms included) and the bounds the rooms are judged with; its
// Rooms are left to the caller (Verdict events carry them).
func (j *Judge) Report() *Report {
	rep := j.report
	rep.Verdicts = make(map[Verdict]int, len(j.report.Verdicts))
	for v, n := range j.report.Verdicts {
		rep.Verdicts[v] = n
	}
	rep.Deadline, rep.MaxHidden, rep.MaxStates = j.opt.Deadline, j.opt.MaxHidden, j.opt.MaxStates
	if j.finished {
		rep.Log = j.LogFit()
	}
	return &rep
}

// Stats are what a Judge holds and has reported, for metrics.
type Stats struct {
	// Held counts the rooms held in memory; Pinned and AtRisk the rooms
	// reported overdue and neither let go nor judged since.
	Held, Pinned, AtRisk int
	// Alerts counts the Pinned and AtRisk events, Releases the Released
	// ones, Verdicts the Verdict events.
	Alerts, Releases, Verdicts int
	// LoggedAcks counts the 2-frame ABORT_ACKs skipped under a
	// configuration whose code sends them for decode only to log
	// (AbortAckLogged: Mooncake's).
	LoggedAcks int
}

// Stats returns the Judge's counts.
func (j *Judge) Stats() Stats {
	s := j.overdue.stats
	s.Held = j.rooms.Live()
	return s
}

// Deadline returns the deadline rooms are judged by.
func (j *Judge) Deadline() time.Duration { return j.opt.Deadline }

// push adds an event to the ready ones.
func (j *Judge) push(ev Event) {
	switch ev.Kind {
	case EventVerdict:
		j.overdue.stats.Verdicts++
	case EventReleased:
		j.overdue.stats.Releases++
	default:
		j.overdue.stats.Alerts++
	}
	j.ready = append(j.ready, ev)
}

func stamp64(t int64) time.Time {
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(0, t).UTC()
}

// Feed feeds what a live merge handed on (observe.Live's Ready), in
// order: observations to Step, capture times to Tick.
func (j *Judge) Feed(ins []observe.Input) {
	for i := range ins {
		if ins[i].Tick {
			j.Tick(ins[i].Time)
		} else {
			j.Step(ins[i].Obs)
		}
	}
}
