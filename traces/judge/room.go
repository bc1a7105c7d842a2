package judge

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
	// Satisfied: the log shows prefill letting go of the room within the
	// deadline (its release was observed).
	Satisfied Verdict = "satisfied"
	// PredictedReleased: judged from the wire alone, every completion of
	// prefill's unseen steps lets the room go under the variant. It is a
	// prediction, not an observation: without the prefill event log the
	// release itself is never seen, and a variant that does not model the
	// code the capture came from predicts wrongly. Never a failure.
	PredictedReleased Verdict = "predicted-released"
	Violated          Verdict = "violated"
	Inconclusive      Verdict = "inconclusive"
	AtRisk            Verdict = "at-risk"
	Invalid           Verdict = "invalid"
	// NotAborted is the verdict of a room that was never aborted and whose
	// observations are all explained: nothing to judge.
	NotAborted Verdict = "not-aborted"
)

// Verdicts are every verdict, in the order the summary counts them.
var Verdicts = []Verdict{Satisfied, PredictedReleased, Violated, Inconclusive, AtRisk, Invalid, NotAborted}

// Room is the verdict on one room with its evidence.
type Room struct {
	Room int64
	// Prefill is the prefill endpoint the room was sent to (zero if only
	// the log showed it).
	Prefill netip.AddrPort
	Verdict Verdict
	// Reason explains the verdict in a sentence.
	Reason string
	// Why says, for a violated or at-risk room whose behaviour reaches a
	// state that pins it, why it is pinned in SGLang's terms (see Why).
	Why     string
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
	// LogOnly says only the log shows the room: the capture has none of
	// its messages. Such a room is inconclusive (Reason says why) and
	// reported, never invalid.
	LogOnly bool
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

// Report is what a Judge found: the counts of its verdicts, and the
// rooms a driver kept (Keep).
type Report struct {
	// Rooms are the rooms kept, in order of first observation.
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
	// Log is what the log was measured to be against the capture (its
	// clock offset, its coverage; logfit.go), nil without a log.
	Log *LogFit
	// Damage counts the damage of the capture the rooms were judged
	// through, by kind (decode.Summary.Damage, by decode.Kind's names:
	// snaplen, link-type, ip-fragment, retransmission-conflict,
	// time-jump, ...), set by the driver that decoded it; nil when none.
	Damage map[string]int
}

// Count returns how many rooms have verdict v.
func (r *Report) Count(v Verdict) int { return r.Verdicts[v] }

// Failed reports whether any room is violated, invalid or at-risk (some
// completion of prefill's unseen steps pins it): the rooms JUnit fails,
// and a run that must not read as an all-clear. Predicted-released rooms
// are not failures, and not satisfied either.
func (r *Report) Failed() bool { return r.Count(Violated)+r.Count(Invalid)+r.Count(AtRisk) > 0 }

// Keep sets the report's rooms: rooms, as a driver kept them from
// Verdict events, put in order of first observation (then of room id).
func (r *Report) Keep(rooms []*Room) {
	slices.SortStableFunc(rooms, func(a, b *Room) int {
		if c := a.FirstSeen.Compare(b.FirstSeen); c != 0 {
			return c
		}
		return cmp.Compare(a.Room, b.Room)
	})
	r.Rooms = rooms
}
