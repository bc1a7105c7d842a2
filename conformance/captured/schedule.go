// Package captured runs the property suite (package conformance) on
// captured traffic: a capture fixes what decode sent and in which order
// per connection, but not how prefill's threads interleaved with it. The
// schedules of a room keep every observed environment event and let
// gopter choose where the implementation's internal steps fall between
// them; the properties are the suite's own, run per room on a one-room
// instance of the variant.
//
// Rooms are grouped as traces/observe groups them (a room is a room id on
// one prefill endpoint, its decode ranks named in order of appearance),
// so that the suite and traces/replay see the same rooms. With a prefill
// event log merged in (observe.Stream), the steps the log shows are
// pinned: a step that writes log lines is taken only where the log has
// exactly those lines next, and only steps that leave no trace in the log
// are chosen freely (the log lines of a step are traces/explain's).
//
// Limits: rooms whose required_dst_info_num differs from the variant's
// DecodeRanks are skipped (Room.Skip says why); room reuse is not modelled
// (every room is request 0 of the instance).
package captured

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/explain"
	"github.com/roomspec/roomspec/traces/observe"
)

// DefaultSkew is the default tolerance within which events seen on
// different connections may be reordered (separate TCP connections are
// not ordered with each other).
const DefaultSkew = time.Millisecond

// Event is one observed environment event of a room, as the spec
// action it is.
type Event struct {
	Action model.Action
	Kind   observe.Kind
	Frame  int
	Time   time.Time
	// Also are the frames of the same event seen on other connections:
	// the ABORTs of the other decode ranks, which the room's one
	// DecodeAbort sent.
	Also []int
	// Src is the event's source (observe.Sources): events of one source
	// (a TCP direction, the log) keep their order.
	Src int32
	// Log is set for a prefill event-log line (Line is its number): the
	// internal step that leaves this trace, rather than an Action.
	Log  *explain.Mark
	Line int
}

// Room is one room of a capture: its environment events in
// capture order.
type Room struct {
	Capture string
	Room    int64
	// Prefill is the prefill endpoint the room was sent to (zero if only
	// the log showed it).
	Prefill netip.AddrPort
	// Ranks are the room's decode ranks, in order of appearance: rank d
	// of the room's actions.
	Ranks   []netip.AddrPort
	Events  []Event
	Aborted bool
	// Log says the room's events include prefill event-log lines: then
	// only internal steps that leave no trace in the log are chosen freely.
	Log bool
	// Skip says why the room cannot be checked on the configuration
	// (empty when it can).
	Skip string
}

// requestOfRoom is the request every captured room is mapped to: the
// first incarnation of the instance's only room.
const requestOfRoom = 0

// Rooms groups observations (in time order: observe.Merge wire and
// log) by room and
// maps them onto the environment actions of c, a one-room configuration:
// TransferInfo from decode rank d is DecodeSendTransferInfo(d, q), the
// room's first ABORT is DecodeAbort(q) (which sends ABORT to every rank,
// so the room's later ABORTs are explained by it), and an ABORT_ACK to
// rank d is DecodeRecvAbortAck(d) (whichever prefill step sent it must
// then come first). Decode ranks are numbered in order of appearance per
// room, as in traces/replay. Prefill event-log observations (status,
// sender_create, poll, clear) become events that pin the internal step
// which leaves them (explain.Marks); other log events are ignored.
func Rooms(c *model.Config, capture string, obs []observe.Observation) []*Room {
	var out []*Room
	st := NewStream(c, capture, 0, func(r *Room) { out = append(out, r) })
	for i := range obs {
		st.Observe(&obs[i])
	}
	st.Flush()
	return out
}

// Stream groups observations into rooms as they arrive (as Rooms does)
// and hands each room over once no observation of it has come for Idle of
// capture time, so memory follows the rooms in flight, not the capture.
// Idle 0 keeps every room until Flush. Idle must exceed the longest gap
// between two observations of one room (SGLang's 300 s timeout is a safe
// choice): a room seen again after being handed over comes back as a new
// room.
type Stream struct {
	c       *model.Config
	capture string
	emit    func(*Room)
	rooms   *observe.Grouper[streamRoom]
	sources observe.Sources
	// MaxLive is the most rooms held at once.
	MaxLive int
}

type streamRoom struct {
	r *Room
	// sent has bit d set once rank d sent a TransferInfo, aborted once
	// it sent an ABORT.
	sent, aborted uint64
}

// NewStream returns a stream that calls emit with each finished room.
func NewStream(c *model.Config, capture string, idle time.Duration, emit func(*Room)) *Stream {
	st := &Stream{c: c, capture: capture, emit: emit}
	st.rooms = observe.NewGrouper(observe.GroupOptions{Idle: idle}, func(rm *observe.Room[streamRoom]) { emit(rm.Data.r) })
	return st
}

// Observe feeds the next observation (in time order).
func (st *Stream) Observe(op *observe.Observation) {
	if op.Kind == observe.Other {
		return
	}
	o := *op
	c := st.c
	rm, created := st.rooms.Observe(&o)
	if created {
		rm.Data.r = &Room{Capture: st.capture, Room: o.Room, Prefill: st.rooms.Endpoint(rm)}
		st.MaxLive = max(st.MaxLive, st.rooms.Live())
	}
	sr, cr := &rm.Data, rm.Data.r
	if !o.Kind.Wire() {
		if cr.Skip == "" {
			cr.Log = true
			cr.Events = append(cr.Events, logEvent(&o))
		}
		return
	}
	if cr.Skip != "" {
		return
	}
	if o.Kind == observe.TransferInfo && o.Required != c.RequiredDstInfoNum {
		cr.Skip = fmt.Sprintf("frame %d: required_dst_info_num %d, the configuration has %d (not supported yet)", o.Frame, o.Required, c.RequiredDstInfoNum)
		return
	}
	d := st.rooms.Rank(rm, &o)
	if d < 0 {
		if rm.Ranks() == c.DecodeRanks.Size() {
			cr.Skip = fmt.Sprintf("frame %d: decode rank %s beyond the configuration's %d", o.Frame, o.Rank, c.DecodeRanks.Size())
			return
		}
		d = st.rooms.AddRank(rm, &o)
		cr.Ranks = append(cr.Ranks, st.rooms.RankName(rm, d))
	}
	ev := Event{Kind: o.Kind, Frame: o.Frame, Time: o.Time, Src: st.sources.ID(&o)}
	switch o.Kind {
	case observe.TransferInfo:
		// A rank sends one TransferInfo per request and none after its
		// ABORT: anything else is a room id reused for a second request.
		if (sr.sent|sr.aborted)&(1<<d) != 0 {
			cr.Skip = fmt.Sprintf("frame %d: a second TransferInfo from decode rank %s, or one after its ABORT: the room id is reused (not modelled here; traces/replay judges it under the *-reuse variants)", o.Frame, o.Rank)
			return
		}
		sr.sent |= 1 << d
		ev.Action = model.Action{ID: model.ActDecodeSendTransferInfo, Params: [model.MaxParams]int{d, requestOfRoom}}
	case observe.Abort:
		sr.aborted |= 1 << d
		if cr.Aborted {
			for i := range cr.Events {
				if cr.Events[i].Kind == observe.Abort {
					cr.Events[i].Also = append(cr.Events[i].Also, o.Frame)
				}
			}
			return
		}
		cr.Aborted = true
		ev.Action = model.Action{ID: model.ActDecodeAbort, Params: [model.MaxParams]int{requestOfRoom}}
	case observe.AbortAck:
		ev.Action = model.Action{ID: model.ActDecodeRecvAbortAck, Params: [model.MaxParams]int{d}}
	}
	cr.Events = append(cr.Events, ev)
}

// Flush hands over every room still held, in order of first observation.
func (st *Stream) Flush() {
	var held []*observe.Room[streamRoom]
	defer func() {
		for _, rm := range held {
			st.emit(rm.Data.r)
		}
	}()
	st.rooms.Drain(func(rm *observe.Room[streamRoom]) { held = append(held, rm) })
	slices.SortStableFunc(held, func(a, b *observe.Room[streamRoom]) int { return cmp.Compare(a.First, b.First) })
}

// Schedule is one behaviour of the spec built from a room's events: the
// actions, and for each the index of the observed event it is (-1 for an
// internal step).
type Schedule struct {
	Seq   []model.Action
	Event []int
	// Also lists, per step, further log events the step left (a step may
	// write several log lines), and Quiet the log polls that moved
	// nothing, taken between steps (none with a log-free room).
	Also  [][]int
	Quiet []int
}

// scheduler builds schedules of one room from gopter's choices.
type scheduler struct {
	c    *model.Config
	room *Room
	// skew < 0 keeps the capture's order of all events (strict mode).
	skew time.Duration
}

// ready reports whether event i may be taken now: every earlier event of
// its connection was, and (strict) every earlier event or (relaxed) every
// event earlier by more than the skew was. DecodeAbort also waits for
// every TransferInfo of the room: the spec sends none after it, so a
// schedule that took it first could only be discarded (the capture shows
// a rank's TransferInfo after another rank's ABORT when the two
// connections were flushed in that order).
func (b *scheduler) ready(taken []bool, i int) bool {
	if taken[i] {
		return false
	}
	ev := &b.room.Events[i]
	for j := range b.room.Events {
		if taken[j] || j == i {
			continue
		}
		e := &b.room.Events[j]
		if ev.Action.ID == model.ActDecodeAbort && e.Action.ID == model.ActDecodeSendTransferInfo {
			return false
		}
		if j < i && (b.skew < 0 || observe.MustPrecede(e.Src, e.Time.UnixNano(), ev.Src, ev.Time.UnixNano(), b.skew)) {
			return false
		}
	}
	return true
}

// build turns choices into a schedule: at each choice, the candidates are
// the ready observed events enabled in the spec, then the enabled internal
// actions; the choice picks one (modulo their number), so 0 prefers the
// capture's own next event and gopter's shrinking towards 0 removes
// internal steps. Choices left after the last event place internal steps
// after it (before fair quiescence). When the choices run out, the remaining events are taken
// in order, with the first enabled internal action (in the order of Next)
// where no event is enabled. ok is false when the events cannot all be
// taken within a bound: the capture is not a behaviour of this
// configuration along these choices.
func (b *scheduler) build(choices []int) (Schedule, bool) {
	s := b.c.Init()
	evList := b.room.Events
	n := len(evList)
	taken := make([]bool, n)
	left := n
	var sc Schedule
	type cand struct {
		a   model.Action
		ev  int   // observed wire event, or -1
		log []int // log events the step leaves
	}
	var cands []cand
	take := func(c cand) {
		t, _ := b.c.Step(&s, c.a)
		s = t
		sc.Seq = append(sc.Seq, c.a)
		ev := c.ev
		if ev < 0 && len(c.log) > 0 {
			ev = c.log[0]
		}
		sc.Event = append(sc.Event, ev)
		var also []int
		if len(c.log) > 1 {
			also = c.log[1:]
		}
		sc.Also = append(sc.Also, also)
		if c.ev >= 0 {
			taken[c.ev] = true
			left--
		}
		for _, l := range c.log {
			taken[l] = true
			left--
		}
	}
	// quiet takes the ready log polls that moved nothing.
	quiet := func() {
		for i := range n {
			if m := evList[i].Log; m != nil && m.Kind == observe.Poll && b.ready(taken, i) && explain.Stutter(b.c, *m, &s) {
				taken[i] = true
				left--
				sc.Quiet = append(sc.Quiet, i)
			}
		}
	}
	candidates := func() []cand {
		quiet()
		cands = cands[:0]
		for i := range n {
			if evList[i].Log == nil && b.ready(taken, i) {
				if _, ok := b.c.Step(&s, evList[i].Action); ok {
					cands = append(cands, cand{a: evList[i].Action, ev: i})
				}
			}
		}
		for _, a := range b.c.Enabled(&s, nil) {
			if model.Actions[a.ID].Environment() {
				continue
			}
			if !b.room.Log {
				cands = append(cands, cand{a: a, ev: -1})
				continue
			}
			t, _ := b.c.Step(&s, a)
			marks := logMarks(b.c, a, &s, &t)
			if len(marks) == 0 {
				cands = append(cands, cand{a: a, ev: -1})
				continue
			}
			// The step must leave exactly the next ready log lines.
			if got, ok := b.nextLog(taken, marks); ok {
				cands = append(cands, cand{a: a, ev: -1, log: got})
			}
		}
		return cands
	}
	for _, v := range choices {
		cs := candidates()
		if len(cs) == 0 {
			break // nothing enabled: the rest is up to the completion
		}
		take(cs[v%len(cs)])
	}
	for budget := 8*n + 64; left > 0; budget-- {
		cs := candidates()
		if left == 0 {
			break
		}
		if budget == 0 || len(cs) == 0 {
			return sc, false
		}
		// Prefer a step that takes an observed event.
		best := cs[0]
		for _, c := range cs {
			if c.ev >= 0 || len(c.log) > 0 {
				best = c
				break
			}
		}
		take(best)
	}
	return sc, true
}

// nextLog returns the indices of the next not-taken log events in log
// order if they are ready and are exactly marks.
func (b *scheduler) nextLog(taken []bool, marks []explain.Mark) ([]int, bool) {
	var got []int
	for i := range b.room.Events {
		if len(got) == len(marks) {
			break
		}
		e := &b.room.Events[i]
		if e.Log == nil || taken[i] {
			continue
		}
		if *e.Log != marks[len(got)] {
			return nil, false
		}
		// The step's lines are consecutive in the log; only the first must
		// be ready as to the wire (its followers share its instant).
		if len(got) == 0 && !b.ready(taken, i) {
			return nil, false
		}
		got = append(got, i)
	}
	return got, len(got) == len(marks)
}

// Options tune Run.
type Options struct {
	Seed int64
	// Cases is the number of schedules per room (default 100); each is
	// checked for both properties.
	Cases int
	// MaxChoices bounds the generated choices per schedule (default 40).
	MaxChoices int
	// Skew is the reordering tolerance between connections (default
	// DefaultSkew; negative: keep the capture's order).
	Skew time.Duration
	// Bound limits the fair round-robin rounds (default conformance.DefaultBound).
	Bound int
}

// Result is the outcome of the properties on one room under one
// implementation.
type Result struct {
	Room    *Room
	Impl    string
	Variant string
	// Schedules counts the schedules explored before a failure, Discarded
	// those whose choices could not be completed into a behaviour with all
	// the room's events.
	Schedules, Discarded int
	// Holds is false when some schedule fails Property.
	Holds    bool
	Property string
	// Schedule is the 1-minimal failing schedule (observed events plus the
	// fewest internal steps), Result its property result (step table).
	Schedule Schedule
	Result   *conformance.Result
	// FirstFail is the time to the first failing schedule.
	FirstFail time.Duration
	// Elapsed is the time the room took (generation, checking, shrinking).
	Elapsed time.Duration
}

// Run checks liveness and refinement of the target (its Config a
// one-room configuration) on the schedules gopter generates from room;
// the first failing property is shrunk by gopter, then its internal steps
// are minimized.
func Run(t conformance.Target, room *Room, opt Options) (*Result, error) {
	c, name, variant := t.Config, t.Name, t.Config.Name
	if opt.Cases <= 0 {
		opt.Cases = 100
	}
	if opt.MaxChoices <= 0 {
		opt.MaxChoices = 40
	}
	if opt.Skew == 0 {
		opt.Skew = DefaultSkew
	}
	if opt.Bound <= 0 {
		opt.Bound = conformance.DefaultBound
	}
	if room.Skip != "" {
		return nil, fmt.Errorf("conformance: room %d: %s", room.Room, room.Skip)
	}
	b := &scheduler{c: c, room: room, skew: opt.Skew}
	res := &Result{Room: room, Impl: name, Variant: variant, Holds: true}
	start := time.Now()
	// Both properties are checked on every schedule (liveness first: a
	// pinned room is what a capture is searched for); once one fails,
	// shrinking keeps to that property.
	props := []string{conformance.Liveness, conformance.Refinement}
	fails := map[string]func([]model.Action) bool{
		conformance.Liveness:   t.Fails(conformance.Liveness, opt.Bound),
		conformance.Refinement: t.Fails(conformance.Refinement, opt.Bound),
	}
	var lastFail []int
	failed := ""
	params := gopter.DefaultTestParametersWithSeed(opt.Seed)
	params.MinSuccessfulTests = opt.Cases
	params.MaxSize = opt.MaxChoices
	// Short choice lists rarely reach past the observed events; gopter grows
	// sizes slowly over many cases, so start at a useful length.
	params.MinSize = min(10, opt.MaxChoices)
	params.MaxShrinkCount = 1000
	params.Workers = 1
	p := prop.ForAll(func(choices []int) bool {
		sc, ok := b.build(choices)
		if failed == "" {
			res.Schedules++
			if !ok {
				res.Discarded++
			}
		}
		if !ok {
			return true
		}
		for _, property := range props {
			if (failed == "" || failed == property) && fails[property](sc.Seq) {
				if failed == "" {
					res.FirstFail = time.Since(start)
					failed = property
				}
				lastFail = append(lastFail[:0], choices...)
				return false
			}
		}
		return true
	}, gen.SliceOf(gen.IntRange(0, 63)))
	tr := p.Check(params)
	var runErr error
	switch {
	case tr.Error != nil:
		runErr = fmt.Errorf("conformance: room %d: gopter: %w", room.Room, tr.Error)
	case tr.Passed():
	case lastFail == nil:
		runErr = fmt.Errorf("conformance: room %d: property failed (%v) without a recorded schedule", room.Room, tr.Status)
	default:
		sc, _ := b.build(lastFail)
		sc = minimizeInternal(c, room, sc, fails[failed])
		r, err := t.CheckSequence(failed, sc.Seq, opt.Bound)
		if err != nil {
			runErr = err
			break
		}
		res.Holds, res.Property, res.Schedule, res.Result = false, failed, sc, r
	}
	res.Elapsed = time.Since(start)
	return res, runErr
}

// minimizeInternal removes single internal steps while the schedule stays
// a behaviour of the spec consistent with the room's log and still fails,
// until none can go: the result's internal steps are 1-minimal (the
// observed events all stay).
func minimizeInternal(c *model.Config, room *Room, sc Schedule, fails func([]model.Action) bool) Schedule {
	for changed := true; changed; {
		changed = false
		for i := len(sc.Seq) - 1; i >= 0 && !changed; i-- {
			if sc.Event[i] >= 0 {
				continue
			}
			cand := dropStep(sc, i)
			if conformance.Valid(c, cand.Seq) && logConsistent(c, room, cand) && fails(cand.Seq) {
				sc, changed = cand, true
			}
		}
	}
	return sc
}

func dropStep(sc Schedule, i int) Schedule {
	return Schedule{Seq: slices.Delete(slices.Clone(sc.Seq), i, i+1), Event: slices.Delete(slices.Clone(sc.Event), i, i+1),
		Also: slices.Delete(slices.Clone(sc.Also), i, i+1), Quiet: sc.Quiet}
}

// logConsistent reports whether every step of sc leaves exactly the log
// lines assigned to it (none for internal steps and decode's): removing a
// step can change what a later poll reads. Quiet polls are not re-checked.
func logConsistent(c *model.Config, room *Room, sc Schedule) bool {
	if !room.Log {
		return true
	}
	s := c.Init()
	for i, a := range sc.Seq {
		t, ok := c.Step(&s, a)
		if !ok {
			return false
		}
		marks := logMarks(c, a, &s, &t)
		var want []explain.Mark
		if ev := sc.Event[i]; ev >= 0 && room.Events[ev].Log != nil {
			want = append(want, *room.Events[ev].Log)
			for _, j := range sc.Also[i] {
				want = append(want, *room.Events[j].Log)
			}
		}
		if !slices.Equal(marks, want) {
			return false
		}
		s = t
	}
	return true
}

// InternalOneMinimal reports whether removing any single internal step of
// sc gives a sequence that is not a behaviour of the spec consistent with
// room's log, or no longer fails.
func InternalOneMinimal(c *model.Config, room *Room, sc Schedule, fails func([]model.Action) bool) bool {
	for i := range sc.Seq {
		if sc.Event[i] < 0 {
			if cand := dropStep(sc, i); conformance.Valid(c, cand.Seq) && logConsistent(c, room, cand) && fails(cand.Seq) {
				return false
			}
		}
	}
	return true
}
