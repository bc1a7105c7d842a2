// Package captured runs the property suite (package conformance) on
// captured traffic. A capture fixes what decode sent and in which order
// per connection, but not how prefill's threads interleaved with it: the
// schedules of a room are the behaviours of the spec whose marks are the
// room's observations, with prefill's unseen steps among them, followed
// by unseen steps after the capture's last observation of the room.
//
// Rooms and schedules are the judge's (traces/judge), driven over the
// capture as roomspec replay drives it (traces/judge/replay): a room is a
// room id on one prefill endpoint as traces/observe groups them, checked
// on its own spec instance, and its schedules are the behaviours
// traces/judge/explain finds for it, the same search replay's verdicts
// rest on. Run
// enumerates them (one schedule per state they leave the room in: every
// state its observations may leave it in, and every state the unseen
// steps reach from those), the ones that end where the spec cannot let
// an aborted request go first, shortest first, and checks each on the
// implementation: liveness after fair quiescence, and refinement step by
// step. When a room has more schedules than Options.MaxSchedules, the
// first MaxSchedules of them are checked, then gopter generates more at
// random (and shrinks a failing one). So a room replay calls at-risk
// (some completion of the unseen steps pins it) is found pinned by an
// implementation that refines the spec, on any seed.
//
// With a prefill event log, a step that writes log lines is taken only
// where the log has exactly those lines (as replay reads the log).
package captured

import (
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/explain"
	"github.com/roomspec/roomspec/traces/judge/replay"
)

// DefaultMaxSchedules is the default bound on the schedules of a room
// that are enumerated; beyond it they are generated at random.
const DefaultMaxSchedules = 2000

// Room is one room of a capture, as replay grouped and explained it.
type Room struct {
	Capture string
	Room    int64
	// Prefill is the prefill endpoint the room was sent to (zero if only
	// the log showed it).
	Prefill netip.AddrPort
	// Log says the room was explained with the prefill event log.
	Log bool
	// Aborted says decode aborted the room.
	Aborted bool
	// Verdict and Reason are the judge's verdict on the room.
	Verdict judge.Verdict
	Reason  string
	// Skip says why the room's schedules cannot be checked: no behaviour
	// of the spec explains its observations, or its history was too long
	// to keep (empty when they can).
	Skip string
	// Match is what the judge explained the room from.
	Match *explain.Match
	// Frames are the room's frames in the capture (the judge's evidence,
	// at most judge.Options.MaxEvidence of them); Ranks its decode
	// ranks, Ranks[d] being rank d of its spec instance.
	Frames []int
	Ranks  []netip.AddrPort
}

// NewJudge returns the judge that groups and explains the rooms of a
// capture under c as Run needs them: every room gets a Verdict event
// (RoomOf makes it a Room) once its observations are over (with withLog,
// the observations include the prefill event log's).
func NewJudge(c *model.Config, opt Options, withLog bool) (*judge.Judge, error) {
	opt = opt.withDefaults()
	return judge.New(c, judge.Options{Log: withLog, Skew: opt.Skew, Idle: opt.Idle, AllRooms: true, KeepMatch: true})
}

// RoomOf is a room of the capture named capture, as the judge gave it
// its verdict.
func RoomOf(capture string, r *judge.Room) *Room {
	out := &Room{Capture: capture, Room: r.Room, Prefill: r.Prefill, Aborted: r.Aborted, Verdict: r.Verdict, Reason: r.Reason, Match: r.Match,
		Frames: r.Frames, Ranks: r.Ranks}
	switch {
	case r.Verdict == judge.Invalid:
		out.Skip = "no behaviour of the spec explains it: " + r.Reason
	case r.Match == nil:
		out.Skip = "its history is too long to be searched again"
	default:
		out.Log = r.Match.Inst.Log()
	}
	return out
}

// Options tune Run.
type Options struct {
	// Seed seeds the random schedules of a room with more than
	// MaxSchedules.
	Seed int64
	// MaxSchedules bounds the schedules of a room that are enumerated
	// (default DefaultMaxSchedules).
	MaxSchedules int
	// Cases is the number of random schedules checked beyond the bound
	// (default 100), MaxChoices their length (default 40).
	Cases      int
	MaxChoices int
	// Skew is the reordering tolerance between connections (as
	// judge.Options.Skew: zero is judge.DefaultSkew, negative keeps the
	// capture's order).
	Skew time.Duration
	// Idle is how long a room may go unobserved before it is checked
	// (default: the judge's).
	Idle time.Duration
	// Bound limits the fair round-robin rounds (default
	// conformance.DefaultBound).
	Bound int
}

func (o Options) withDefaults() Options {
	if o.MaxSchedules <= 0 {
		o.MaxSchedules = DefaultMaxSchedules
	}
	if o.Cases <= 0 {
		o.Cases = 100
	}
	if o.MaxChoices <= 0 {
		o.MaxChoices = 40
	}
	if o.Bound <= 0 {
		o.Bound = conformance.DefaultBound
	}
	return o
}

// Result is the outcome of the properties on one room under one
// implementation.
type Result struct {
	Room    *Room
	Impl    string
	Variant string
	// Schedules counts the schedules checked (up to the first failing
	// one). Complete says the enumerated ones were every schedule the
	// capture allows for the room; otherwise there were more than the
	// bound (or a search bound cut them), and random ones followed.
	Schedules int
	Complete  bool
	// Holds is false when some schedule fails Property.
	Holds    bool
	Property string
	// Schedule is the failing schedule (the first in enumeration order,
	// or gopter's shrunk one), Result its property result (step table).
	Schedule explain.Schedule
	Result   *conformance.Result
	// FirstFail is the time to the first failing schedule.
	FirstFail time.Duration
	// Elapsed is the time the room took.
	Elapsed time.Duration
}

// Run checks liveness and refinement of the target (its Config the
// room's variant) on the room's schedules.
func Run(t conformance.Target, room *Room, opt Options) (*Result, error) {
	opt = opt.withDefaults()
	if room.Skip != "" {
		return nil, fmt.Errorf("captured: room %d: %s", room.Room, room.Skip)
	}
	start := time.Now()
	// The room is checked on its own instance (its decode ranks), with
	// the target's implementation.
	t.Config = room.Match.Inst.Config()
	res := &Result{Room: room, Impl: t.Name, Variant: t.Config.Name, Holds: true}
	// Both properties are checked on every schedule, liveness first (a
	// pinned room is what a capture is searched for).
	props := []string{conformance.Liveness, conformance.Refinement}
	fails := map[string]func([]model.Action) bool{
		conformance.Liveness:   t.Fails(conformance.Liveness, opt.Bound),
		conformance.Refinement: t.Fails(conformance.Refinement, opt.Bound),
	}
	failing := func(sc explain.Schedule) string {
		for _, p := range props {
			if fails[p](sc.Actions) {
				return p
			}
		}
		return ""
	}
	var failed string
	var sc explain.Schedule
	scheds, complete := room.Match.Schedules(opt.MaxSchedules)
	res.Complete = complete
	for _, s := range scheds {
		res.Schedules++
		if failed = failing(s); failed != "" {
			sc = s
			break
		}
	}
	if failed == "" && !complete {
		// Beyond the bound: random schedules.
		var err error
		if failed, sc, err = random(room.Match, opt, res, failing); err != nil {
			return res, err
		}
	}
	if failed != "" {
		res.FirstFail = time.Since(start)
		r, err := t.CheckSequence(failed, sc.Actions, opt.Bound)
		if err != nil {
			return res, err
		}
		res.Holds, res.Property, res.Schedule, res.Result = false, failed, sc, r
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// random checks the room on opt.Cases schedules gopter generates (walks
// from a state the observations leave the room in, see
// explain.Match.Walk), and shrinks a failing one.
func random(m *explain.Match, opt Options, res *Result, failing func(explain.Schedule) string) (string, explain.Schedule, error) {
	finals, _ := m.Explanations()
	failed := ""
	var last explain.Schedule
	params := gopter.DefaultTestParametersWithSeed(opt.Seed)
	params.MinSuccessfulTests = opt.Cases
	params.MaxSize = opt.MaxChoices
	params.MaxShrinkCount = 1000
	params.Workers = 1
	p := prop.ForAll(func(choices []int) bool {
		sc := m.Walk(finals, choices)
		if failed == "" {
			res.Schedules++
		}
		if f := failing(sc); f != "" && (failed == "" || f == failed) {
			failed, last = f, sc
			return false
		}
		return true
	}, gen.SliceOf(gen.IntRange(0, 63)))
	tr := p.Check(params)
	if tr.Error != nil {
		return "", last, fmt.Errorf("captured: room %d: gopter: %w", res.Room.Room, tr.Error)
	}
	return failed, last, nil
}

// Rooms reads a capture (and a prefill event log, if log is not nil) and
// returns its rooms as the judge groups and explains them under c, in
// the order they end. name names the capture in results.
func Rooms(c *model.Config, name string, capture io.Reader, log io.Reader, opt Options) ([]*Room, error) {
	j, err := NewJudge(c, opt, log != nil)
	if err != nil {
		return nil, err
	}
	in := replay.Input{Captures: []replay.Capture{replay.Reader(name, capture)}, Log: log, LogName: "event log"}
	var rooms []*Room
	if _, err := replay.Run(in, []*judge.Judge{j}, func(_ int, ev judge.Event) error {
		rooms = append(rooms, RoomOf(name, ev.Room))
		return nil
	}); err != nil {
		return nil, fmt.Errorf("captured: %w", err)
	}
	return rooms, nil
}

// Outcome is a room checked under one target: its Result, or none when
// the room cannot be checked (Room.Skip says why).
type Outcome struct {
	Room   *Room
	Target string
	Result *Result
}

// Check checks every room of a capture (named name) under each target
// (each with its variant's configuration), decoding the capture once:
// each room is handed to out under each target once its observations are
// over, so that memory follows the rooms in flight, not the capture. An
// error from out stops the check.
func Check(name string, capture io.Reader, targets []conformance.Target, opt Options, out func(Outcome) error) error {
	js := make([]*judge.Judge, len(targets))
	for k, t := range targets {
		j, err := NewJudge(t.Config, opt, false)
		if err != nil {
			return err
		}
		js[k] = j
	}
	in := replay.Input{Captures: []replay.Capture{replay.Reader(name, capture)}}
	_, err := replay.Run(in, js, func(k int, ev judge.Event) error {
		room := RoomOf(name, ev.Room)
		if room.Skip != "" {
			return out(Outcome{Room: room, Target: targets[k].Name})
		}
		res, err := Run(targets[k], room, opt)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return out(Outcome{Room: room, Target: targets[k].Name, Result: res})
	})
	return err
}
