// Package replay judges each room of a capture (and, optionally, of a
// prefill event log) against the room-lifecycle spec: it maps observed
// events onto spec actions through the spec's @wire annotations, searches
// (bounded) for the unseen steps that explain each of them, and gives
// every room one verdict with its evidence.
//
// The core is pure: callers turn decoded messages and log lines into
// Observations (FromMessage, FromEvent), merge them by time (Merge), feed
// them to a Replayer in order and call Finish with the capture's end time.
//
// How observations become spec steps. Each room is checked on its own
// instance of the spec: one room, the variant's constants, DecodeRanks and
// RequiredDstInfoNum set from the room's TransferInfo. A room is a room id
// on one prefill endpoint (the PULL socket decode sends to), so several
// prefill ranks in one capture are judged apart. Every spec step leaves
// marks (see Marks): the messages it sends (decode's TransferInfo and
// ABORTs, prefill's ABORT_ACKs where the variant sends them) and, with a
// log, prefill's log lines. A capture sees a message while it is in
// flight, between the step that sends it and the one that receives it: a
// send may happen unseen, its message observed later in its channel's
// order (one FIFO per connection), and a receive takes only a message
// already observed. An observation is explained by a step that left its
// mark, after any number (up to Options.MaxHidden) of unseen steps; a step
// that writes a log line is never unseen. So the room's first ABORT is the
// spec's DecodeAbort, which sends one ABORT per rank, the other ranks'
// ABORTs are its pending marks, and a rank's TransferInfo captured after
// another rank's ABORT was sent before the abort and was on its way.
//
// Order. Each source (a TCP direction, the log) keeps its own order.
// Sources are not ordered with each other more finely than their clocks
// allow: observations of different sources at most Options.Skew apart may
// have happened in either order, and a room's states after them are the
// union over every order that explains them (burst.go).
//
// Cost. The search is memoized per spec instance as an automaton over
// sets of spec states (automaton.go): rooms that follow the same pattern
// share its states, and an observation costs a few map lookups. Per room
// the Replayer keeps its current state set, its observations (compactly,
// to rebuild the matched behaviour of a reported room) and its evidence;
// a room idle for Options.Idle is judged and forgotten, so memory follows
// the rooms seen within that window, not the capture's length.
//
// Verdicts of aborted rooms (deadlines are measured on capture time,
// from the room's first ABORT):
//
//   - with a log: satisfied when the log shows prefill letting go of every
//     aborted request within the deadline, violated when it did not and
//     the capture ran past the deadline, inconclusive when the capture
//     ended first;
//   - wire only: at-risk when some completion of the unseen steps (all
//     spec steps but decode's) reaches a state from which no behaviour
//     lets an aborted request go, with that completion (Room.Pin);
//     satisfied when every completion can still let it go (the release
//     itself is not observable without a log, so Latency stays -1);
//     inconclusive when the completions exceed MaxStates;
//   - invalid, either way, when an observation has no explaining step.
//
// Rooms first seen mid-life. A room the log shows before the capture's
// first message, or one first seen within the deadline of the capture's
// start when the capture joined a connection after its handshake
// (Observation.MidStream), may have sent messages the capture never saw.
// Such a room is judged again as blind to each of its channels until its
// first observation there (what was sent before may have been missed),
// and if even that does not explain it, from every state of the spec
// (its life began before both the capture and the log); the verdict that
// counts is the second one when they differ, and its reason says so
// (Room.Start).
//
// Limits: with a log, the log is matched to the rooms of one prefill
// endpoint (Options.LogEndpoint, else the first one seen); rooms of other
// endpoints are judged from the wire alone. A room id reused by decode is
// a second request of the same room, which only the *-reuse variants
// model (others find its second TransferInfo invalid), and the spec has
// two incarnations. An ABORT_ACK is matched to a prefill endpoint by room
// and decode rank, and by the prefill address when several endpoints hold
// the room. chunk_enqueue, chunk_skip and client-abort log events are kept
// as evidence only. A burst of more than maxBurst close observations is
// cut, and orders across the cut are not explored (Room.BoundHit).
package replay

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/roomspec/roomspec/spec/model"
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
	// FirstSeen and LastSeen bound the room's observations.
	FirstSeen, LastSeen time.Time
	// Frames and Lines are the room's evidence (capped by
	// Options.MaxEvidence; More counts the rest).
	Frames, Lines []int
	More          int
	// Unexplained is the observation no spec step explains (invalid), and
	// State the spec states it was checked from, printed as TLA+.
	Unexplained *Observation
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
	// Start says what the room was judged from: its first observation
	// may not be the start of its life (see the package doc).
	Start Start
	// MaxHidden is the most unseen steps one observation needed;
	// BoundHit says a search stopped at Options.MaxHidden or MaxStates,
	// or a burst was cut at maxBurst observations.
	MaxHidden int
	BoundHit  bool
	// Witness is, with Options.Witness, one behaviour of the spec matched
	// to the room's observations step by step (nil when the room's
	// history was not kept).
	Witness *Witness
}

// Start is what a room's judgment assumed about its life before the
// capture.
type Start int

const (
	// StartSeen: the room's life is in the capture (and log) from the
	// spec's initial state on.
	StartSeen Start = iota
	// StartBlind: the room began in the spec's initial state, but the
	// capture joined connections mid-stream, so messages sent before it
	// saw each of the room's connections may be missing.
	StartBlind
	// StartUnknown: the room's life began before both the capture and the
	// log; it was judged from every state of the spec.
	StartUnknown
)

var startNames = [...]string{"seen", "blind", "unknown"}

func (s Start) String() string {
	if int(s) < len(startNames) {
		return startNames[s]
	}
	return "Start(" + strconv.Itoa(int(s)) + ")"
}

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
var ErrConfig = errors.New("replay: configuration")

var (
	ranksRe    = regexp.MustCompile(`(?m)^(\s*DecodeRanks\s*=\s*)\{[^}]*\}`)
	requiredRe = regexp.MustCompile(`(?m)^(\s*RequiredDstInfoNum\s*=\s*)\d+`)
)

// Replayer judges rooms from observations fed in time order.
type Replayer struct {
	opt     Options
	cfgText string
	base    *model.Config
	// automata are the variant's instances by decode-rank count and
	// whether the room's log is given.
	automata map[instance]*automaton
	configs  map[int]*model.Config
	marks    markTable
	// rooms chains the live rooms of each room id (one per prefill
	// endpoint); lru orders them by last observation.
	rooms map[int64]*roomState
	lru   roomState
	live  int
	// prefills numbers prefill endpoints; 0 is the log's.
	prefills   map[netip.AddrPort]int32
	endpoints  []netip.AddrPort
	ackPrefill map[netip.AddrPort]int32
	// connRank names the decode rank behind a connection's source
	// endpoint, from the TransferInfos sent on it.
	connRank map[netip.AddrPort]netip.AddrPort
	// sources numbers wire directions without a stream number.
	sources map[[2]netip.AddrPort]int32
	// The last lookups, which consecutive messages mostly repeat, and
	// the rooms seen last (a room's messages come close together, and a
	// lookup in a large map is a cache miss).
	lastPrefill       int32
	lastSrc, lastRank netip.AddrPort
	recent            [recentSize]*roomState
	// wireMarks holds the interned wire marks by kind and rank, plus one.
	wireMarks [AbortAck + 1][8]int32
	started   bool
	start     int64
	now       int64
	// midStream: a connection was joined after its handshake.
	midStream bool
	report    Report
	// eps numbers decode endpoints, which rooms name their ranks by.
	eps     map[netip.AddrPort]uint16
	epList  []netip.AddrPort
	lastEps [8]uint16
	// witnesses holds the witnesses rebuilt per room pattern (witness.go).
	witnesses map[string]*Witness
}

// New returns a Replayer for the variant whose cfg text is cfgText (see
// spec.Config). The cfg must model one room.
func New(cfgText []byte, opt Options) (*Replayer, error) {
	opt.defaults()
	c, err := model.LoadConfig(cfgText)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if c.Rooms.Size() != 1 {
		return nil, fmt.Errorf("%w: the variant models %d rooms; replay needs one", ErrConfig, c.Rooms.Size())
	}
	if !ranksRe.Match(cfgText) || !requiredRe.Match(cfgText) {
		return nil, fmt.Errorf("%w: no DecodeRanks or RequiredDstInfoNum constant", ErrConfig)
	}
	r := &Replayer{opt: opt, cfgText: string(cfgText), base: c, automata: map[instance]*automaton{},
		rooms: map[int64]*roomState{}, prefills: map[netip.AddrPort]int32{}, ackPrefill: map[netip.AddrPort]int32{},
		connRank: map[netip.AddrPort]netip.AddrPort{}, sources: map[[2]netip.AddrPort]int32{}, eps: map[netip.AddrPort]uint16{}}
	r.lru.prev, r.lru.next = &r.lru, &r.lru
	r.configs = map[int]*model.Config{c.RequiredDstInfoNum: c}
	if opt.LogEndpoint.IsValid() {
		r.prefill(opt.LogEndpoint)
	}
	return r, nil
}

// instance names a spec instance rooms are checked on.
type instance struct {
	ranks int
	log   bool
}

// automaton returns the variant's instance with n decode ranks, all
// required, for rooms with (log) or without the event log.
func (r *Replayer) automaton(n int, log bool) (*automaton, error) {
	if a, ok := r.automata[instance{n, log}]; ok {
		return a, nil
	}
	c, ok := r.configs[n]
	if !ok {
		if n < 1 || n > 8 {
			return nil, fmt.Errorf("required_dst_info_num %d outside 1..8", n)
		}
		names := make([]string, n)
		for i := range names {
			names[i] = "d" + strconv.Itoa(i+1)
		}
		text := ranksRe.ReplaceAllString(r.cfgText, "${1}{"+strings.Join(names, ", ")+"}")
		text = requiredRe.ReplaceAllString(text, "${1}"+strconv.Itoa(n))
		var err error
		if c, err = model.LoadConfig([]byte(text)); err != nil {
			return nil, err
		}
		r.configs[n] = c
	}
	sr := searcher{c: c, log: log, maxHidden: r.opt.MaxHidden, maxStates: r.opt.MaxStates}
	a := newAutomaton(sr, &r.marks)
	r.automata[instance{n, log}] = a
	return a, nil
}

// obsRec is an observation as a room keeps it.
type obsRec struct {
	t    int64
	mark int32
	src  int32
	ev   int32 // frame or log line
}

const (
	recentBits = 10
	recentSize = 1 << recentBits
)

// maxHistory bounds the observations a room keeps to rebuild its
// behaviour; past it only the open burst is kept.
const maxHistory = 4096

// roomState is a live room.
type roomState struct {
	id         int64
	prefill    int32
	sameID     *roomState
	prev, next *roomState
	log        bool
	a          *automaton
	set        *set
	// ranks are the room's decode ranks in order of appearance (numbered
	// decode endpoints).
	ranks    [8]uint16
	nranks   int
	hist     []obsRec
	evidence []int32 // frames (>0) and log lines (<0)
	// The first few of each, in the room's own allocation.
	histBuf    [3]obsRec
	evBuf      [4]int32
	burst      int
	histLost   bool
	first      int64
	last       int64
	burstLast  int64
	aborted    bool
	abortTime  int64
	abortFrame int
	// episode is the first ABORT since the room was last closed; open
	// says an aborted request is waiting since then.
	episode  int64
	open     bool
	latency  int64 // the longest closed wait, or -1
	terminal int64
	more     int
	depth    int
	boundHit bool
	// startWindow: first seen before the capture's first message
	// (preCapture: only the log saw it) or within the deadline after it.
	startWindow, preCapture bool
	start                   Start
	// invalid, once set, makes later observations evidence only.
	invalid *invalidity
}

type invalidity struct {
	// rec is the observation no step explains, or obs one outside the
	// instance (not recorded).
	rec    obsRec
	obs    *Observation
	reason string
	// from is the set it was checked from; byMatch says no spec step
	// explains it (as opposed to a rank or required count outside the
	// instance).
	from    *set
	byMatch bool
}

func (rs *roomState) unlink() {
	rs.prev.next, rs.next.prev = rs.next, rs.prev
	rs.prev, rs.next = nil, nil
}

func (r *Replayer) touch(rs *roomState) {
	if rs.next != nil {
		rs.unlink()
	}
	tail := r.lru.prev
	rs.prev, rs.next = tail, &r.lru
	tail.next, r.lru.prev = rs, rs
}

// prefill numbers a prefill endpoint.
func (r *Replayer) prefill(ep netip.AddrPort) int32 {
	if len(r.endpoints) > 0 && ep == r.endpoints[r.lastPrefill] {
		return r.lastPrefill
	}
	if id, ok := r.prefills[ep]; ok {
		r.lastPrefill = id
		return id
	}
	id := int32(len(r.endpoints))
	r.prefills[ep] = id
	r.endpoints = append(r.endpoints, ep)
	return id
}

// source numbers an observation's source: -1 for the log, else its
// stream.
func (r *Replayer) source(o *Observation) int32 {
	if !o.Kind.Wire() {
		return -1
	}
	if o.Stream > 0 {
		return int32(o.Stream)
	}
	k := [2]netip.AddrPort{o.Src, o.Dst}
	id, ok := r.sources[k]
	if !ok {
		id = -2 - int32(len(r.sources))
		r.sources[k] = id
	}
	return id
}

// Live returns how many rooms the Replayer holds.
func (r *Replayer) Live() int { return r.live }

// Observe feeds the next observation (in time order).
func (r *Replayer) Observe(o Observation) {
	now := o.Time.UnixNano()
	if !r.started && o.Kind.Wire() {
		// The capture's start (a log may begin earlier).
		r.started, r.start = true, now
	}
	r.now = max(r.now, now)
	r.sweep()
	if o.MidStream {
		r.midStream = true
	}
	if o.Kind == TransferInfo && !o.RankFromConn && (o.Src != r.lastSrc || o.Rank != r.lastRank) {
		r.connRank[o.Src] = o.Rank
		r.lastSrc, r.lastRank = o.Src, o.Rank
	}
	if o.RankFromConn {
		if rank, ok := r.connRank[o.Src]; ok {
			o.Rank = rank
		}
	}
	rs := r.room(&o)
	rs.last = now
	r.touch(rs)
	r.evidence(rs, &o)
	if o.Kind == Abort && !rs.aborted {
		rs.aborted, rs.abortTime, rs.abortFrame = true, now, o.Frame
	}
	if o.Kind == Other || (!rs.log && !o.Kind.Wire()) || rs.invalid != nil && !rs.invalid.byMatch {
		return
	}
	if rs.a == nil {
		n := r.base.RequiredDstInfoNum
		if o.Kind == TransferInfo {
			n = o.Required
		}
		a, err := r.automaton(n, rs.log)
		if err != nil {
			r.invalid(rs, &o, err.Error())
			return
		}
		rs.a, rs.set = a, a.start
	}
	if o.Kind == TransferInfo && o.Required != rs.a.sr.c.RequiredDstInfoNum {
		r.invalid(rs, &o, fmt.Sprintf("required_dst_info_num %d, but the room's first TransferInfo said %d", o.Required, rs.a.sr.c.RequiredDstInfoNum))
		return
	}
	d := -1
	if o.Kind.Wire() {
		ep := r.endpoint(o.Rank)
		d = slices.Index(rs.ranks[:rs.nranks], ep)
		if d < 0 && o.Kind == AbortAck {
			d = r.samePort(rs, o.Rank)
		}
		if d < 0 {
			if rs.nranks == rs.a.sr.c.DecodeRanks.Size() {
				r.invalid(rs, &o, fmt.Sprintf("a decode rank %s beyond the %d of required_dst_info_num (%v)", o.Rank, rs.nranks, r.rankNames(rs)))
				return
			}
			rs.ranks[rs.nranks] = ep
			d = rs.nranks
			rs.nranks++
		}
	}
	rec := obsRec{t: now, mark: r.markOf(&o, d), src: r.source(&o), ev: int32(o.Frame)}
	if !o.Kind.Wire() {
		rec.ev = int32(o.Line)
	}
	if n := len(rs.hist) - rs.burst; rs.invalid == nil && r.cuts(n, rs.burstLast, now) {
		if n == maxBurst && now-rs.burstLast <= int64(r.opt.Skew) {
			rs.boundHit = true
		}
		r.closeBurst(rs, len(rs.hist))
	}
	if rs.invalid != nil {
		// Kept only for judging the room again (see judge).
		if rs.startWindow && len(rs.hist) < maxHistory {
			rs.hist = append(rs.hist, rec)
		}
		return
	}
	rs.hist = append(rs.hist, rec)
	rs.burstLast = max(rs.burstLast, now)
}

// markOf returns the interned mark observation o (of decode rank d) must
// match. Log fields the spec does not know stay as they are (they match
// nothing), unless so many distinct ones came that they would make the
// table grow with the log.
func (r *Replayer) markOf(o *Observation, d int) int32 {
	if o.Kind.Wire() && d < len(r.wireMarks[0]) {
		p := &r.wireMarks[o.Kind][d]
		if *p == 0 {
			*p = r.marks.id(Mark{Kind: o.Kind, Rank: d}) + 1
		}
		return *p - 1
	}
	m := Mark{Kind: o.Kind, Rank: d}
	switch o.Kind {
	case Status:
		m.A, m.B = o.From, o.To
	case Poll:
		m.A, m.B = o.Queue, o.Status
	}
	if len(r.marks.list) >= 1<<16 {
		if _, ok := r.marks.ids[m]; !ok {
			m.A, m.B = "?", "?"
		}
	}
	return r.marks.id(m)
}

// room returns the live room an observation belongs to, creating it.
func (r *Replayer) room(o *Observation) *roomState {
	var p int32
	switch {
	case !o.Kind.Wire():
		p = 0
	case o.Kind == AbortAck:
		p = r.ackRoom(o)
	default:
		p = r.prefill(o.Dst)
	}
	slot := &r.recent[uint64(o.Room)*0x9E3779B97F4A7C15>>(64-recentBits)]
	if rs := *slot; rs != nil && rs.id == o.Room && rs.prefill == p {
		return rs
	}
	head := r.rooms[o.Room]
	for rs := head; rs != nil; rs = rs.sameID {
		if rs.prefill == p {
			*slot = rs
			return rs
		}
	}
	rs := &roomState{id: o.Room, prefill: p, sameID: head, first: o.Time.UnixNano(), latency: -1,
		log: r.opt.Log && p == 0, preCapture: !r.started, startWindow: !r.started || o.Time.UnixNano()-r.start <= int64(r.opt.Deadline)}
	rs.hist, rs.evidence = rs.histBuf[:0], rs.evBuf[:0]
	r.rooms[o.Room] = rs
	*slot = rs
	r.live++
	return rs
}

// ackRoom returns the prefill endpoint an ABORT_ACK came from: the only
// one holding the room for that decode rank, else the one its connection
// was matched to before, else the one on the ACK's source address.
func (r *Replayer) ackRoom(o *Observation) int32 {
	var cands []*roomState
	for rs := r.rooms[o.Room]; rs != nil; rs = rs.sameID {
		if slices.Contains(rs.ranks[:rs.nranks], r.endpoint(o.Rank)) || r.samePort(rs, o.Rank) >= 0 {
			cands = append(cands, rs)
		}
	}
	if len(cands) == 1 {
		r.ackPrefill[o.Src] = cands[0].prefill
		return cands[0].prefill
	}
	if p, ok := r.ackPrefill[o.Src]; ok {
		return p
	}
	var same []*roomState
	for _, rs := range cands {
		if int(rs.prefill) < len(r.endpoints) && r.endpoints[rs.prefill].Addr() == o.Src.Addr() {
			same = append(same, rs)
		}
	}
	switch {
	case len(same) == 1:
		r.ackPrefill[o.Src] = same[0].prefill
		return same[0].prefill
	case len(cands) > 0:
		return cands[0].prefill
	}
	return 0
}

// endpoint numbers a decode endpoint.
func (r *Replayer) endpoint(ep netip.AddrPort) uint16 {
	// Consecutive messages come from a few ranks: look at the last ones.
	for _, id := range r.lastEps {
		if int(id) < len(r.epList) && r.epList[id] == ep {
			return id
		}
	}
	id, ok := r.eps[ep]
	if !ok {
		id = uint16(len(r.epList))
		if len(r.epList) == 1<<16-1 {
			id = 0 // (more endpoints than any capture has: they share one)
		} else {
			r.eps[ep] = id
			r.epList = append(r.epList, ep)
		}
	}
	copy(r.lastEps[1:], r.lastEps[:])
	r.lastEps[0] = id
	return id
}

func (r *Replayer) rankNames(rs *roomState) []netip.AddrPort {
	out := make([]netip.AddrPort, rs.nranks)
	for i := range out {
		out[i] = r.epList[rs.ranks[i]]
	}
	return out
}

// samePort returns the index of the only rank of rs whose endpoint has
// the port of endpoint ep, or -1: an ABORT_ACK goes to decode's address as
// prefill's routing sees it, which may differ from the decode_ip decode
// announced (NAT, loopback), while the port is decode's own.
func (r *Replayer) samePort(rs *roomState, ep netip.AddrPort) int {
	found := -1
	for i, id := range rs.ranks[:rs.nranks] {
		if r.epList[id].Port() == ep.Port() {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

func (r *Replayer) evidence(rs *roomState, o *Observation) {
	ev := int32(o.Frame)
	if !o.Kind.Wire() {
		ev = -int32(o.Line)
	}
	if n := len(rs.evidence); ev > 0 && n > 0 && rs.evidence[n-1] == ev {
		return // another message of the same packet
	}
	if len(rs.evidence) < r.opt.MaxEvidence {
		rs.evidence = append(rs.evidence, ev)
	} else {
		rs.more++
	}
}

func (r *Replayer) invalid(rs *roomState, o *Observation, why string) {
	r.closeBurst(rs, len(rs.hist))
	if rs.invalid != nil {
		return
	}
	c := *o // a copy: o itself must not escape (Observe's hot path)
	rs.invalid = &invalidity{obs: &c, reason: fmt.Sprintf("%s: %s", &c, why), from: rs.set}
}

// burstOf returns the marks of a burst's observations and the orders
// they may have happened in.
func (r *Replayer) burstOf(obs []obsRec) (ms [maxBurst]int32, o order) {
	var src [maxBurst]int32
	var ts [maxBurst]int64
	for i, rec := range obs {
		ms[i], src[i], ts[i] = rec.mark, rec.src, rec.t
	}
	return ms, constrain(src[:len(obs)], ts[:len(obs)], int64(r.opt.Skew))
}

// cuts reports whether an observation at time t starts a new burst after
// n observations of the open one, the latest of all earlier ones at last:
// it is more than the skew after every earlier one, or the burst is full.
func (r *Replayer) cuts(n int, last, t int64) bool {
	return n > 0 && (t-last > int64(r.opt.Skew) || n == maxBurst)
}

// closeBurst explains the room's open burst (its observations up to end).
func (r *Replayer) closeBurst(rs *roomState, end int) {
	obs := rs.hist[rs.burst:end]
	if len(obs) == 0 || rs.invalid != nil {
		return
	}
	n := len(obs)
	ms, ord := r.burstOf(obs)
	e := rs.a.burst(rs.set, ms[:n], ord)
	rs.depth = max(rs.depth, e.depth)
	rs.boundHit = rs.boundHit || e.hit
	for _, o := range obs {
		if r.marks.list[o.mark].Kind == Abort && rs.episode == 0 {
			rs.episode = o.t
		}
	}
	if e.blame >= 0 {
		o := obs[e.blame]
		why := "no spec step explains it"
		if e.hit {
			why += fmt.Sprintf(" within the search bound (%d unseen steps, %d states)", r.opt.MaxHidden, r.opt.MaxStates)
		}
		rs.invalid = &invalidity{rec: o, from: e.from, byMatch: true}
		rs.invalid.reason = fmt.Sprintf("%s: %s", r.observation(rs, o), why)
		rs.burst = end
		return
	}
	// A prefix that closes the room dates its release; the burst's end
	// otherwise.
	at := func(k int) int64 {
		if k > 0 {
			return obs[k-1].t
		}
		return obs[n-1].t
	}
	s := e.final
	switch {
	case s.closed && rs.open:
		rs.latency = max(rs.latency, at(e.closedAt)-rs.episode)
		rs.open, rs.episode = false, 0
	case s.closed:
		if rs.episode != 0 {
			// Aborted and let go within the burst, or let go before it was
			// aborted (a wait of 0).
			rs.latency = max(rs.latency, at(e.closedAt)-rs.episode, 0)
		}
		rs.episode = 0
	case s.aborted && !rs.open && rs.episode != 0:
		// (An abort only the spec's states hold, unseen, is not judged.)
		rs.open = true
	}
	if s.released {
		if rs.terminal == 0 {
			rs.terminal = at(e.releasedAt)
		}
	} else {
		rs.terminal = 0
	}
	rs.set = s
	rs.burst = end
	if len(rs.hist) > maxHistory {
		// Keep the open burst only; the behaviour can no longer be rebuilt.
		rs.hist = slices.Delete(rs.hist, 0, end)
		rs.burst, rs.histLost = 0, true
	}
}

// observation rebuilds the observation of record o of room rs.
func (r *Replayer) observation(rs *roomState, o obsRec) *Observation {
	m := r.marks.list[o.mark]
	out := &Observation{Kind: m.Kind, Time: time.Unix(0, o.t).UTC(), Room: rs.id}
	if m.Kind.Wire() {
		out.Frame = int(o.ev)
		if m.Rank >= 0 && m.Rank < rs.nranks {
			out.Rank = r.epList[rs.ranks[m.Rank]]
		}
	} else {
		out.Line = int(o.ev)
	}
	switch m.Kind {
	case Status:
		out.From, out.To = m.A, m.B
	case Poll:
		out.Queue, out.Status = m.A, m.B
	}
	return out
}

// sweep judges and forgets the rooms idle for longer than Options.Idle.
func (r *Replayer) sweep() {
	for rs := r.lru.next; rs != &r.lru && r.now-rs.last > int64(r.opt.Idle); rs = r.lru.next {
		r.forget(rs)
		r.emit(rs, r.now)
	}
}

func (r *Replayer) forget(rs *roomState) {
	rs.unlink()
	r.live--
	if slot := &r.recent[uint64(rs.id)*0x9E3779B97F4A7C15>>(64-recentBits)]; *slot == rs {
		*slot = nil
	}
	head := r.rooms[rs.id]
	if head == rs {
		head = rs.sameID
	} else {
		for p := head; p != nil; p = p.sameID {
			if p.sameID == rs {
				p.sameID = rs.sameID
				break
			}
		}
	}
	if head == nil {
		delete(r.rooms, rs.id)
	} else {
		r.rooms[rs.id] = head
	}
}

// emit judges a forgotten room at time end and hands it on.
func (r *Replayer) emit(rs *roomState, end int64) {
	if r.opt.OnRoom != nil && !rs.aborted && rs.invalid == nil {
		// Not reported: only counted (unless its last burst is invalid).
		r.closeBurst(rs, len(rs.hist))
		if rs.invalid == nil {
			r.report.count(NotAborted, false)
			return
		}
	}
	room := r.judge(rs, end)
	if r.opt.Witness {
		room.Witness = r.witness(rs, room)
	}
	if r.opt.OnRoom != nil {
		r.opt.OnRoom(room)
	}
	r.report.count(room.Verdict, room.Aborted)
	if r.opt.OnRoom == nil {
		r.report.Rooms = append(r.report.Rooms, room)
	}
}

// Finish judges every room still held at the capture's end time end and
// returns the report.
func (r *Replayer) Finish(end time.Time) *Report {
	// Every room is let go at once (a map delete each would only cost).
	first := r.lru.next
	r.lru.prev, r.lru.next = &r.lru, &r.lru
	r.rooms, r.recent, r.live = map[int64]*roomState{}, [recentSize]*roomState{}, 0
	for rs := first; rs != &r.lru; rs = rs.next {
		r.emit(rs, end.UnixNano())
	}
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

// judge closes the room's open burst and gives its verdict at time end.
// A room the log showed before the capture's first message, or first seen
// near the start of a capture that joined connections mid-stream, is
// judged again as if blind to what was sent before the capture saw each
// of its connections (the verdict that counts when it differs), and if
// even that cannot explain it, from every state of the spec.
func (r *Replayer) judge(rs *roomState, end int64) *Room {
	r.closeBurst(rs, len(rs.hist))
	out := r.verdict(rs, end)
	if !(rs.preCapture || rs.startWindow && r.midStream) || rs.histLost || rs.a == nil || rs.invalid != nil && !rs.invalid.byMatch {
		return out
	}
	blind := r.rejudge(rs, rs.a.blindSet(), StartBlind, end)
	if blind.Verdict == Invalid {
		blind = r.rejudge(rs, rs.a.pastSet(), StartUnknown, end)
	}
	if blind.Verdict == out.Verdict && out.Verdict != Invalid {
		return out
	}
	when := fmt.Sprintf("first seen in the first %v of a capture that joined connections mid-stream", r.opt.Deadline)
	if rs.preCapture {
		when = "first seen in the log before the capture's first message"
	}
	what := "messages sent before the capture saw its connections may be missing"
	if blind.Start == StartUnknown {
		what = "its life began before the capture and the log, so it was judged from every state of the spec"
	}
	blind.Reason = fmt.Sprintf("%s (%s): %s", when, what, blind.Reason)
	return blind
}

// rejudge explains the room's history again from set start.
func (r *Replayer) rejudge(rs *roomState, start *set, kind Start, end int64) *Room {
	again := &roomState{id: rs.id, prefill: rs.prefill, log: rs.log, a: rs.a, set: start, ranks: rs.ranks, nranks: rs.nranks,
		hist: rs.hist, first: rs.first, last: rs.last, aborted: rs.aborted, abortTime: rs.abortTime, abortFrame: rs.abortFrame,
		latency: -1, evidence: rs.evidence, more: rs.more, start: kind, boundHit: kind == StartUnknown && !rs.a.pastComplete}
	r.fold(again)
	return r.verdict(again, end)
}

// fold explains the room's whole history from rs.set, burst by burst as
// Observe cut it.
func (r *Replayer) fold(rs *roomState) {
	start := 0
	for end := range r.bursts(rs.hist) {
		rs.burst = start
		r.closeBurst(rs, end)
		start = end
	}
}

// bursts yields the end of each burst of hist, cut as Observe cuts them:
// an observation more than the skew after every earlier one, or one past
// maxBurst, starts a new burst.
func (r *Replayer) bursts(hist []obsRec) func(yield func(int) bool) {
	return func(yield func(int) bool) {
		start, last := 0, int64(0)
		for i, o := range hist {
			if r.cuts(i-start, last, o.t) {
				if !yield(i) {
					return
				}
				start = i
			}
			if i == 0 || o.t > last {
				last = o.t
			}
		}
		if len(hist) > 0 {
			yield(len(hist))
		}
	}
}

func anySettled(c *model.Config, s *set) bool {
	for i := range s.nodes {
		if settled(c, &s.nodes[i].s) {
			return true
		}
	}
	return false
}

func stamp64(t int64) time.Time {
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(0, t).UTC()
}

// verdict gives the room's verdict at time end from its explained state.
func (r *Replayer) verdict(rs *roomState, end int64) *Room {
	out := &Room{Room: rs.id, Aborted: rs.aborted, AbortFrame: rs.abortFrame, AbortTime: stamp64(rs.abortTime),
		FirstSeen: stamp64(rs.first), LastSeen: stamp64(rs.last), TerminalTime: stamp64(rs.terminal),
		Latency: -1, More: rs.more, MaxHidden: rs.depth, BoundHit: rs.boundHit, Start: rs.start}
	if int(rs.prefill) < len(r.endpoints) {
		out.Prefill = r.endpoints[rs.prefill]
	}
	if rs.a != nil {
		out.Config = rs.a.sr.c
	}
	for _, ev := range rs.evidence {
		if ev > 0 {
			out.Frames = append(out.Frames, int(ev))
		} else {
			out.Lines = append(out.Lines, int(-ev))
		}
	}
	if iv := rs.invalid; iv != nil {
		out.Verdict, out.Reason = Invalid, iv.reason
		out.Unexplained = iv.obs
		if iv.obs == nil {
			out.Unexplained = r.observation(rs, iv.rec)
		}
		if iv.from != nil && rs.a != nil {
			out.State = r.printStates(rs.a.sr.c, iv.from.nodes)
			if iv.byMatch {
				out.Behaviour = r.rebuild(rs, nil)
			}
		}
		return out
	}
	if !rs.aborted {
		out.Verdict, out.Reason = NotAborted, "never aborted"
		return out
	}
	dl := int64(r.opt.Deadline)
	if !rs.open && rs.latency >= 0 {
		out.Latency = time.Duration(rs.latency)
		if rs.latency > dl {
			out.Verdict, out.Reason = Violated, fmt.Sprintf("released %v after the abort, later than the %v deadline", out.Latency, r.opt.Deadline)
			out.Behaviour = r.rebuild(rs, nil)
			return out
		}
		out.Verdict, out.Reason = Satisfied, fmt.Sprintf("released %v after the abort", out.Latency)
		return out
	}
	if rs.log && rs.start == StartUnknown && !rs.set.closed && anySettled(rs.a.sr.c, rs.set) {
		out.Verdict, out.Reason = Inconclusive, "some explanations of its unseen past let it go, others do not"
		return out
	}
	if rs.log {
		waited := time.Duration(end - rs.episode)
		if rs.latency > dl {
			out.Verdict, out.Reason = Violated, fmt.Sprintf("released %v after an abort, later than the %v deadline", time.Duration(rs.latency), r.opt.Deadline)
		} else if end-rs.episode >= dl {
			out.Verdict, out.Reason = Violated, fmt.Sprintf("not released %v after the abort (deadline %v)", waited, r.opt.Deadline)
		} else {
			out.Verdict, out.Reason = Inconclusive, fmt.Sprintf("not released yet; the capture ended %v after the abort, before the %v deadline", waited, r.opt.Deadline)
			return out
		}
		out.Behaviour = r.rebuild(rs, nil)
		return out
	}
	pin, complete := rs.a.pin(rs.set)
	switch {
	case pin != nil:
		out.Pin = pin
		out.Verdict, out.Reason = AtRisk, fmt.Sprintf("some completion of the unseen steps (%d steps) pins the room", len(pin)-1)
		if b := r.rebuild(rs, &pin[0]); b != nil {
			out.Behaviour = append(b, pin[1:]...)
		}
	case !complete:
		out.Verdict, out.Reason = Inconclusive, fmt.Sprintf("the completions of the unseen steps exceed the search bound (%d states)", r.opt.MaxStates)
		out.BoundHit = true
	default:
		out.Verdict, out.Reason = Satisfied, "every completion of the unseen steps releases the room (no log: release time not observed)"
	}
	return out
}

func (r *Replayer) printStates(c *model.Config, nodes []node) string {
	var b strings.Builder
	for i := range nodes {
		if i == 4 {
			fmt.Fprintf(&b, "... and %d more states\n", len(nodes)-i)
			break
		}
		b.WriteString(c.Format(&nodes[i].s))
		b.WriteString("\n")
	}
	return b.String()
}

// rebuild explains the room's history again, with trails, and returns a
// behaviour matching it: ending in state want if given (one of the final
// states), else in the first final state; for an invalid room, up to the
// state its unexplained observation was checked from. It returns nil
// when the history was not kept.
func (r *Replayer) rebuild(rs *roomState, want *model.State) []model.State {
	if rs.histLost || rs.a == nil {
		return nil
	}
	sr := &rs.a.sr
	var nodes []node
	if rs.start == StartUnknown {
		nodes, _ = sr.past()
	} else {
		var blind uint16
		if rs.start == StartBlind {
			blind = allChannels(sr.c)
		}
		sr.c.Inits(func(s *model.State) bool {
			nodes = append(nodes, node{s: *s, blind: blind, trail: &trail{s: *s}})
			return false
		})
	}
	hist := rs.hist
	start := 0
	var from []node
	run := func(end int) bool {
		obs := hist[start:end]
		ids, ord := r.burstOf(obs)
		ms := make([]Mark, len(obs))
		for i := range ms {
			ms[i] = r.marks.list[ids[i]]
		}
		e := explain[[]node](nodeSpace{sr, ms}, nodes, ord)
		if e.blame >= 0 {
			from = e.from
			return false
		}
		nodes = e.final
		return true
	}
	for end := range r.bursts(hist) {
		if !run(end) {
			break
		}
		start = end
	}
	if from != nil {
		nodes = from
	}
	for i := range nodes {
		if want == nil || nodes[i].s.Equal(want) {
			return nodes[i].trail.states()
		}
	}
	return nil
}
