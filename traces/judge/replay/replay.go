// Package replay judges each room of a capture (and, optionally, of a
// prefill event log) against the room-lifecycle spec and gives every
// room one verdict with its evidence.
//
// The core is pure: callers read a capture and a log into observations
// (traces/observe: ReadCapture, LogReader, Stream), feed them to a
// Replayer in time order and call Finish with the capture's end time.
// Rooms are grouped as traces/observe groups them (a room is a room id on
// one prefill endpoint), and their observations are explained by spec
// steps as traces/judge/explain searches them: through the @wire annotations of
// the spec, with unseen steps searched (bounded) between observations,
// and observations of different sources within Options.Skew tried in
// either order.
//
// Memory. Per room the Replayer keeps its current set of spec states,
// its observations (compactly, to rebuild the matched behaviour of a
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
//     (Room.Pin); satisfied when every completion can still let it go
//     (the release itself is not observable without a log, so Latency
//     stays -1); inconclusive when the completions exceed MaxStates;
//   - invalid, either way, when an observation has no explaining step.
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
// Limits: A room id reused
// by decode is a second request of the same room, which only the *-reuse
// variants model (others find its second TransferInfo invalid), and the
// spec has two incarnations. chunk_enqueue, chunk_skip and client-abort
// log events are kept as evidence only. A burst of more than
// explain.MaxBurst close observations is cut, and orders across the cut
// are not explored (Room.BoundHit).
package replay

import (
	"cmp"
	"net/netip"
	"slices"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge/explain"
	"github.com/roomspec/roomspec/traces/observe"
)

// Verdict is a room's verdict.
type Verdict string

// The verdicts.
const (
	Satisfied    Verdict = "satisfied"
	Violated     Verdict = "violated"
	Inconclusive Verdict = "inconclusive"
	AtRisk       Verdict = "at-risk"
	Invalid      Verdict = "invalid"
	// NotAborted is the verdict of a room that was never aborted and whose
	// observations are all explained: nothing to judge.
	NotAborted Verdict = "not-aborted"
)

// Options tune a replay.
type Options struct {
	// Deadline is how long after its abort a room must be terminal
	// (default 300 s, SGLang's own timeout).
	Deadline time.Duration
	// Log says that a prefill event log was given: its events then
	// constrain which internal steps may have happened unseen, and
	// verdicts are judged on observed termination.
	Log bool
	// LogEndpoint is the prefill endpoint (decode's destination) whose
	// rooms the log belongs to; zero means the first one seen.
	LogEndpoint netip.AddrPort
	// Skew is how far apart two observations of different sources may
	// be and still have happened in the other order (default 1 ms;
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
	// OnRoom, if set, is called with each reported room (aborted, or
	// invalid) as soon as its verdict is final: idle rooms during the
	// replay, the others in Finish. The Report then counts the rooms but
	// holds none.
	OnRoom func(*Room)
	// AllRooms reports every room to OnRoom, never aborted ones too.
	AllRooms bool
	// KeepMatch keeps in each reported room what it was explained from
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
		o.Skew = time.Millisecond
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

// Room is the verdict on one room with its evidence.
type Room struct {
	Room int64
	// Prefill is the prefill endpoint the room was sent to (zero if only
	// the log showed it).
	Prefill netip.AddrPort
	Verdict Verdict
	// Reason explains the verdict in a sentence.
	Reason  string
	Aborted bool
	// AbortTime is the time of the room's first ABORT; AbortFrame its frame.
	AbortTime  time.Time
	AbortFrame int
	// TerminalTime is when the room was last seen terminal (every request
	// let go by prefill), zero if never; Latency is how long after its
	// abort the room was let go (the longest such wait when several
	// requests of the room were aborted), or -1.
	TerminalTime time.Time
	Latency      time.Duration
	// Ranks are the room's decode ranks in order of appearance: Ranks[d]
	// is decode rank d of its spec instance (the index a Mark holds).
	Ranks []netip.AddrPort
	// FirstSeen and LastSeen bound the room's observations.
	FirstSeen, LastSeen time.Time
	// Frames and Lines are the room's evidence (capped by
	// Options.MaxEvidence; More counts the rest).
	Frames, Lines []int
	More          int
	// Unexplained is the observation no spec step explains (invalid), and
	// State the spec states it was checked from, printed as TLA+.
	Unexplained *observe.Observation
	State       string
	// Pin is, for at-risk rooms, a behaviour of the unseen steps from the
	// room's last explained state to a pinned state.
	Pin []model.State
	// Behaviour is, for violated, at-risk and invalid rooms, a behaviour
	// of the spec matching the room's observations (for at-risk rooms
	// followed by Pin; for invalid ones up to the last explained event).
	// It is missing for a room with more than maxHistory observations.
	Behaviour []model.State
	// Config is the spec instance the room was checked on.
	Config *model.Config
	// Match is what the room was explained from (with
	// Options.KeepMatch; nil for a room with more than maxHistory
	// observations or none the spec could be checked on).
	Match *explain.Match
	// Start says what the room was judged from: its first observation
	// may not be the start of its life (see the package doc).
	Start Start
	// WireOnly says the room was judged from the wire alone although a
	// log was given: the log does not show it, or is another prefill
	// endpoint's (Reason says which).
	WireOnly bool
	// MaxHidden is the most unseen steps one observation needed;
	// BoundHit says a search stopped at Options.MaxHidden or MaxStates,
	// or a burst was cut at explain.MaxBurst observations.
	MaxHidden int
	BoundHit  bool
	// Witness is, with Options.Witness, one behaviour of the spec matched
	// to the room's observations step by step (nil when the room's
	// history was not kept).
	Witness *Witness
}

// Start is what a room's judgment assumed about its life before the
// capture (see explain.Start).
type Start = explain.Start

// The starts of a room.
const (
	StartSeen    = explain.StartSeen
	StartBlind   = explain.StartBlind
	StartUnknown = explain.StartUnknown
)

// Report is a replay's result.
type Report struct {
	// Rooms are all rooms in order of first observation (none when
	// Options.OnRoom took them).
	Rooms []*Room
	// Total counts the rooms, Aborted the aborted ones, Verdicts the
	// rooms of each verdict.
	Total, Aborted int
	Verdicts       map[Verdict]int
	// End is the capture's end time the deadlines were measured against.
	End      time.Time
	Deadline time.Duration
	// MaxHidden and MaxStates are the search bounds used.
	MaxHidden, MaxStates int
}

// Count returns how many rooms have verdict v.
func (r *Report) Count(v Verdict) int { return r.Verdicts[v] }

// Failed reports whether any room is violated or invalid.
func (r *Report) Failed() bool { return r.Count(Violated)+r.Count(Invalid) > 0 }

func (r *Report) count(v Verdict, aborted bool) {
	if r.Verdicts == nil {
		r.Verdicts = map[Verdict]int{}
	}
	r.Total++
	if aborted {
		r.Aborted++
	}
	r.Verdicts[v]++
}

// ErrConfig is wrapped by errors about the variant configuration.
var ErrConfig = explain.ErrConfig

// Replayer judges rooms from observations fed in time order.
type Replayer struct {
	opt       Options
	instances *explain.Instances
	marks     *explain.MarkTable
	rooms     *observe.Grouper[roomState]
	sources   observe.Sources
	// wireMarks holds the interned wire marks by kind and rank, plus one.
	wireMarks [observe.AbortAck + 1][observe.MaxRanks]int32
	// lastTime is the latest time observed (unix nanoseconds).
	lastTime int64
	report   Report
	logCheck logCheck
	err      error
	// witnesses holds the witnesses rebuilt per room pattern (witness.go).
	witnesses map[string]*Witness
}

// New returns a Replayer for the variant c (a configuration of one room:
// its rooms are checked on instances of it with their own decode ranks).
func New(c *model.Config, opt Options) (*Replayer, error) {
	opt.defaults()
	is, err := explain.NewInstances(c, opt.MaxHidden, opt.MaxStates)
	if err != nil {
		return nil, err
	}
	r := &Replayer{opt: opt, instances: is, marks: is.Marks()}
	r.rooms = observe.NewGrouper(observe.GroupOptions{Idle: opt.Idle, LogEndpoint: opt.LogEndpoint}, func(rm *room) {
		r.emit(rm, r.now())
	})
	return r, nil
}

// now is the latest time observed.
func (r *Replayer) now() int64 { return r.lastTime }

// Live returns how many rooms the Replayer holds.
func (r *Replayer) Live() int { return r.rooms.Live() }

// Finish judges every room still held at the capture's end time end and
// returns the report.
func (r *Replayer) Finish(end time.Time) *Report {
	r.rooms.Drain(func(rm *room) { r.emit(rm, end.UnixNano()) })
	r.hold(nil, 0, true)
	rep := r.report
	rep.End, rep.Deadline, rep.MaxHidden, rep.MaxStates = end, r.opt.Deadline, r.opt.MaxHidden, r.opt.MaxStates
	if rep.Verdicts == nil {
		rep.Verdicts = map[Verdict]int{}
	}
	slices.SortStableFunc(rep.Rooms, func(a, b *Room) int {
		if c := a.FirstSeen.Compare(b.FirstSeen); c != 0 {
			return c
		}
		return cmp.Compare(a.Room, b.Room)
	})
	return &rep
}

// emit judges a forgotten room at time end and hands it on.
func (r *Replayer) emit(rm *room, end int64) {
	if r.err != nil || r.hold(rm, end, false) {
		return
	}
	r.judgeAndEmit(rm, end)
}

func (r *Replayer) judgeAndEmit(rm *room, end int64) {
	rs := &rm.Data
	if r.opt.OnRoom != nil && !r.opt.AllRooms && !rs.aborted && rs.invalid == nil {
		// Not reported: only counted (unless its last burst is invalid).
		r.closeBurst(rm, len(rs.hist))
		if rs.invalid == nil {
			r.report.count(NotAborted, false)
			return
		}
	}
	out := r.judge(rm, end, true)
	if r.opt.Witness {
		out.Witness = r.witness(rm, out)
	}
	if r.opt.OnRoom != nil {
		r.opt.OnRoom(out)
	}
	r.report.count(out.Verdict, out.Aborted)
	if r.opt.OnRoom == nil {
		r.report.Rooms = append(r.report.Rooms, out)
	}
}
