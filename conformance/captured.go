package conformance

// Captured traces (issue 8, first part): a capture fixes what decode sent
// and in which order per connection, but not how prefill's threads
// interleaved with it. The generator here keeps every observed
// environment event of a room and lets gopter choose where the
// implementation's internal steps fall between them; the properties are
// the suite's own (CheckSequence), run per room on a one-room instance of
// the variant.
//
// With a prefill event log merged in (trace.Merge), the steps the log
// shows are pinned: a step that writes log lines is taken only where the
// log has exactly those lines next, and only steps that leave no trace in
// the log are chosen freely (traces/replay's mapping, see LogMark).
//
// Not done yet (honest limits): rooms whose required_dst_info_num differs from the
// variant's DecodeRanks are skipped (Skip says why); room reuse is not
// modelled (every room is request 0 of the instance); LoadCapture keeps
// the whole capture's observations (RoomStream bounds memory by rooms in
// flight, but no entry point streams through it yet); the roomspec test
// -captures flags are not written.

import (
	"fmt"
	"net/netip"
	"slices"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/roomspec/roomspec/spec/model"
	trace "github.com/roomspec/roomspec/traces/replay"
)

// DefaultSkew is the default tolerance within which events seen on
// different connections may be reordered (separate TCP connections are
// not ordered with each other).
const DefaultSkew = time.Millisecond

// CapturedEvent is one observed environment event of a room, as the spec
// action it is.
type CapturedEvent struct {
	Action model.Action
	Kind   trace.Kind
	Frame  int
	Time   time.Time
	// Also are the frames of the same event seen on other connections:
	// the ABORTs of the other decode ranks, which the room's one
	// DecodeAbort sent.
	Also []int
	// Conn identifies the TCP connection (source, destination) the event
	// was seen on: events of one connection keep their order. Log events
	// have the zero Conn: the log keeps its own order.
	Conn [2]netip.AddrPort
	// Log is set for a prefill event-log line (Line is its number): the
	// internal step that leaves this trace, rather than an Action.
	Log  *LogMark
	Line int
}

// CapturedRoom is one room of a capture: its environment events in
// capture order.
type CapturedRoom struct {
	Capture string
	Room    int64
	Events  []CapturedEvent
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

// CapturedRooms groups observations (in time order: trace.Merge wire and
// log) by room and
// maps them onto the environment actions of c, a one-room configuration:
// TransferInfo from decode rank d is DecodeSendTransferInfo(d, q), the
// room's first ABORT is DecodeAbort(q) (which sends ABORT to every rank,
// so the room's later ABORTs are explained by it), and an ABORT_ACK to
// rank d is DecodeRecvAbortAck(d) (whichever prefill step sent it must
// then come first). Decode ranks are numbered in order of appearance per
// room, as in traces/replay. Prefill event-log observations (status,
// sender_create, poll, clear) become events that pin the internal step
// which leaves them (see LogMark); other log events are ignored.
func CapturedRooms(c *model.Config, capture string, obs []trace.Observation) []*CapturedRoom {
	var out []*CapturedRoom
	st := NewRoomStream(c, capture, 0, func(r *CapturedRoom) { out = append(out, r) })
	for i := range obs {
		st.Observe(&obs[i])
	}
	st.Flush()
	return out
}

// RoomStream groups observations into rooms as they arrive (as
// CapturedRooms does) and hands each room over once no observation of it
// has come for Idle of capture time, so memory follows the rooms in
// flight, not the capture. Idle 0 keeps every room until Flush. Idle must
// exceed the longest gap between two observations of one room (SGLang's
// 300 s timeout is a safe choice): a room seen again after being handed
// over comes back as a new room.
type RoomStream struct {
	c        *model.Config
	capture  string
	idle     time.Duration
	emit     func(*CapturedRoom)
	rooms    map[int64]*streamRoom
	order    []int64
	connRank map[netip.AddrPort]netip.AddrPort
	seen     int
	// MaxLive is the most rooms held at once.
	MaxLive int
}

type streamRoom struct {
	r     *CapturedRoom
	ranks []netip.AddrPort
	last  time.Time
	// sent has bit d set once rank d sent a TransferInfo, aborted once
	// it sent an ABORT.
	sent, aborted uint64
}

// NewRoomStream returns a stream that calls emit with each finished room.
func NewRoomStream(c *model.Config, capture string, idle time.Duration, emit func(*CapturedRoom)) *RoomStream {
	return &RoomStream{c: c, capture: capture, idle: idle, emit: emit, rooms: map[int64]*streamRoom{}, connRank: map[netip.AddrPort]netip.AddrPort{}}
}

// sweepEvery is how many observations go between two idle sweeps.
const sweepEvery = 1 << 10

// Observe feeds the next observation (in time order).
func (st *RoomStream) Observe(op *trace.Observation) {
	o := *op
	c := st.c
	st.seen++
	if st.idle > 0 && st.seen%sweepEvery == 0 {
		st.sweep(o.Time)
	}
	if o.Kind == trace.Other {
		return
	}
	sr := st.rooms[o.Room]
	if sr == nil {
		sr = &streamRoom{r: &CapturedRoom{Capture: st.capture, Room: o.Room}}
		st.rooms[o.Room] = sr
		st.order = append(st.order, o.Room)
		st.MaxLive = max(st.MaxLive, len(st.rooms))
	}
	sr.last = o.Time
	cr := sr.r
	if !o.Kind.Wire() {
		if cr.Skip == "" {
			cr.Log = true
			cr.Events = append(cr.Events, logEvent(&o))
		}
		return
	}
	if o.Kind == trace.TransferInfo && !o.RankFromConn {
		st.connRank[o.Src] = o.Rank
	}
	if o.RankFromConn {
		if r, ok := st.connRank[o.Src]; ok {
			o.Rank = r
		}
	}
	if cr.Skip != "" {
		return
	}
	if o.Kind == trace.TransferInfo && o.Required != c.RequiredDstInfoNum {
		cr.Skip = fmt.Sprintf("frame %d: required_dst_info_num %d, the configuration has %d (not supported yet)", o.Frame, o.Required, c.RequiredDstInfoNum)
		return
	}
	d := slices.Index(sr.ranks, o.Rank)
	if d < 0 && o.Kind == trace.AbortAck {
		d = samePortIndex(sr.ranks, o.Rank)
	}
	if d < 0 {
		if len(sr.ranks) == c.DecodeRanks.Size() {
			cr.Skip = fmt.Sprintf("frame %d: decode rank %s beyond the configuration's %d", o.Frame, o.Rank, c.DecodeRanks.Size())
			return
		}
		sr.ranks = append(sr.ranks, o.Rank)
		d = len(sr.ranks) - 1
	}
	ev := CapturedEvent{Kind: o.Kind, Frame: o.Frame, Time: o.Time, Conn: [2]netip.AddrPort{o.Src, o.Dst}}
	switch o.Kind {
	case trace.TransferInfo:
		// A rank sends one TransferInfo per request and none after its
		// ABORT: anything else is a room id reused for a second request.
		if (sr.sent|sr.aborted)&(1<<d) != 0 {
			cr.Skip = fmt.Sprintf("frame %d: a second TransferInfo from decode rank %s, or one after its ABORT: the room id is reused (not modelled here; traces/replay judges it under the *-reuse variants)", o.Frame, o.Rank)
			return
		}
		sr.sent |= 1 << d
		ev.Action = model.Action{ID: model.ActDecodeSendTransferInfo, Params: [model.MaxParams]int{d, requestOfRoom}}
	case trace.Abort:
		sr.aborted |= 1 << d
		if cr.Aborted {
			for i := range cr.Events {
				if cr.Events[i].Kind == trace.Abort {
					cr.Events[i].Also = append(cr.Events[i].Also, o.Frame)
				}
			}
			return
		}
		cr.Aborted = true
		ev.Action = model.Action{ID: model.ActDecodeAbort, Params: [model.MaxParams]int{requestOfRoom}}
	case trace.AbortAck:
		ev.Action = model.Action{ID: model.ActDecodeRecvAbortAck, Params: [model.MaxParams]int{d}}
	}
	cr.Events = append(cr.Events, ev)
}

// sweep hands over the rooms idle since before now-Idle, in order of
// first observation.
func (st *RoomStream) sweep(now time.Time) {
	keep := st.order[:0]
	for _, id := range st.order {
		sr := st.rooms[id]
		if now.Sub(sr.last) > st.idle {
			delete(st.rooms, id)
			st.emit(sr.r)
		} else {
			keep = append(keep, id)
		}
	}
	st.order = keep
}

// Flush hands over every room still held, in order of first observation.
func (st *RoomStream) Flush() {
	for _, id := range st.order {
		st.emit(st.rooms[id].r)
		delete(st.rooms, id)
	}
	st.order = st.order[:0]
}

// samePortIndex is the index of the only rank with ep's port, or -1: an
// ABORT_ACK goes to decode's address as prefill's routing sees it, which
// may differ from the address decode announced, while the port is the same.
func samePortIndex(ranks []netip.AddrPort, ep netip.AddrPort) int {
	found := -1
	for i, r := range ranks {
		if r.Port() == ep.Port() {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
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
	room *CapturedRoom
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
		if j < i && (e.Conn == ev.Conn || b.skew < 0 || e.Time.Before(ev.Time.Add(-b.skew))) {
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
			if m := evList[i].Log; m != nil && m.Kind == trace.Poll && b.ready(taken, i) && stutterPoll(b.c, m, &s) {
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
func (b *scheduler) nextLog(taken []bool, marks []LogMark) ([]int, bool) {
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

// CapturedOptions tune RunCaptured.
type CapturedOptions struct {
	Seed int64
	// Cases is the number of schedules per room (default 100); each is
	// checked for both properties.
	Cases int
	// MaxChoices bounds the generated choices per schedule (default 40).
	MaxChoices int
	// Skew is the reordering tolerance between connections (default
	// DefaultSkew; negative: keep the capture's order).
	Skew time.Duration
	// Bound limits the fair round-robin rounds (default DefaultBound).
	Bound int
}

// CapturedResult is the outcome of the properties on one room under one
// implementation.
type CapturedResult struct {
	Room    *CapturedRoom
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
	Result   *Result
	// FirstFail is the time to the first failing schedule.
	FirstFail time.Duration
	// Elapsed is the time the room took (generation, checking, shrinking).
	Elapsed time.Duration
}

// RunCaptured checks liveness and refinement of impl (named name, against
// variant's one-room configuration c) on the schedules gopter generates
// from room; the first failing property is shrunk by gopter, then its
// internal steps are minimized.
func RunCaptured(impl Implementation, name, variant string, c *model.Config, room *CapturedRoom, opt CapturedOptions) (*CapturedResult, error) {
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
		opt.Bound = DefaultBound
	}
	if room.Skip != "" {
		return nil, fmt.Errorf("conformance: room %d: %s", room.Room, room.Skip)
	}
	b := &scheduler{c: c, room: room, skew: opt.Skew}
	res := &CapturedResult{Room: room, Impl: name, Variant: variant, Holds: true}
	start := time.Now()
	k := newChecker(c, impl, opt.Bound)
	// Both properties are checked on every schedule (liveness first: a
	// pinned room is what a capture is searched for); once one fails,
	// shrinking keeps to that property.
	props := []string{Liveness, Refinement}
	fails := map[string]func([]model.Action) bool{Liveness: k.failsFunc(Liveness), Refinement: k.failsFunc(Refinement)}
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
		r, err := CheckSequence(impl, name, variant, c, failed, sc.Seq, opt.Bound)
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
func minimizeInternal(c *model.Config, room *CapturedRoom, sc Schedule, fails func([]model.Action) bool) Schedule {
	for changed := true; changed; {
		changed = false
		for i := len(sc.Seq) - 1; i >= 0 && !changed; i-- {
			if sc.Event[i] >= 0 {
				continue
			}
			cand := dropStep(sc, i)
			if Valid(c, cand.Seq) && logConsistent(c, room, cand) && fails(cand.Seq) {
				sc, changed = cand, true
			}
		}
	}
	return sc
}

func dropStep(sc Schedule, i int) Schedule {
	return Schedule{Seq: without(sc.Seq, i, -1), Event: slices.Delete(slices.Clone(sc.Event), i, i+1),
		Also: slices.Delete(slices.Clone(sc.Also), i, i+1), Quiet: sc.Quiet}
}

// logConsistent reports whether every step of sc leaves exactly the log
// lines assigned to it (none for internal steps and decode's): removing a
// step can change what a later poll reads. Quiet polls are not re-checked.
func logConsistent(c *model.Config, room *CapturedRoom, sc Schedule) bool {
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
		var want []LogMark
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
func InternalOneMinimal(c *model.Config, room *CapturedRoom, sc Schedule, fails func([]model.Action) bool) bool {
	for i := range sc.Seq {
		if sc.Event[i] < 0 {
			if cand := dropStep(sc, i); Valid(c, cand.Seq) && logConsistent(c, room, cand) && fails(cand.Seq) {
				return false
			}
		}
	}
	return true
}

// CapturedFails returns the predicate "seq fails property" for impl under
// c (for tests and callers that check minimality).
func CapturedFails(impl Implementation, c *model.Config, property string, bound int) func([]model.Action) bool {
	return newChecker(c, impl, bound).failsFunc(property)
}
