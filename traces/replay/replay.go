// Package replay judges each room of a capture (and, optionally, of a
// prefill event log) against the room-lifecycle spec: it maps observed
// events onto spec actions through the spec's @wire annotations, searches
// (bounded) for the unseen internal steps that explain each of them, and
// gives every room one verdict with its evidence.
//
// The core is pure: callers turn decoded messages and log lines into
// Observations (FromMessage, FromEvent), merge them by time (Merge), feed
// them to a Replayer in order and call Finish with the capture's end time.
//
// How observations become spec steps. Each room is checked on its own
// instance of the spec (one room, one request, the variant's constants,
// DecodeRanks and RequiredDstInfoNum set from the room's TransferInfo):
//
//   - wire TransferInfo from decode rank d: DecodeSendTransferInfo(d, q);
//   - the room's first wire ABORT: DecodeAbort(q), which sends ABORT to
//     every rank; later ABORTs of the room are explained by it;
//   - wire ABORT_ACK to rank d (variants with AbortAckSent):
//     BootstrapRecvAbort(d);
//   - log sender_create: SchedulerCreateSender, followed by the status
//     change it made, if any; log poll: a scheduler poll that saw that status (a poll that
//     lets the request move on is SchedulerPollBootstrap or
//     SchedulerPollInFlight, any other is a step-free check); log clear:
//     the SchedulerPollInFlight that released the request (it follows that
//     poll); log status: the one internal step that changed request_status
//     that way.
//
// Between two observations, any number (up to Options.MaxHidden) of
// internal steps may have happened unseen; with a log, only steps that
// leave no trace in the log (no status change, no sender creation, no
// poll that moves the request) count as unseen.
//
// Verdicts of aborted rooms (Finish; deadlines are measured on capture
// time, from the room's first ABORT to the capture's last packet):
//
//   - with a log: satisfied when the log shows the scheduler releasing the
//     request within the deadline, violated when it did not and the
//     capture ran past the deadline, inconclusive when the capture ended
//     first;
//   - wire only: at-risk when some completion of the unseen steps (all
//     spec steps but decode's) reaches a state from which no behaviour
//     releases the request, with that completion (Room.Pin); satisfied
//     when every completion can still release it (the release itself is
//     not observable without a log, so Latency stays -1); inconclusive when
//     the completions exceed MaxStates;
//   - invalid, either way, when an observation has no explaining step.
//
// Memory: per room, a verdict record (evidence capped by MaxEvidence) and,
// while the room is not invalid, its set of matching spec states with the
// behaviours that led there; nothing is kept per message.
//
// Limits (not done yet): one prefill rank per replay (rooms are keyed by
// room id only); a room's messages sent before the capture started are
// not assumed, so a room first seen mid-life is judged from the spec's
// initial state; room reuse (a second incarnation of a room id) is not
// modelled; chunk_enqueue, chunk_skip and client-abort log events are kept
// as evidence only.
package replay

import (
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
	// MaxHidden bounds the number of unseen steps searched between two
	// observations of a room (default 24).
	MaxHidden int
	// MaxStates bounds the states one search visits (default 50000).
	MaxStates int
	// MaxEvidence bounds the frame and line numbers kept per room
	// (default 64); the rest are counted.
	MaxEvidence int
}

func (o *Options) defaults() {
	if o.Deadline <= 0 {
		o.Deadline = 300 * time.Second
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
	Room    int64
	Verdict Verdict
	// Reason explains the verdict in a sentence.
	Reason  string
	Aborted bool
	// AbortTime is the time of the room's first ABORT; AbortFrame its frame.
	AbortTime  time.Time
	AbortFrame int
	// TerminalTime is when the room was seen terminal (released by the
	// scheduler), zero if never; Latency is TerminalTime-AbortTime, or -1.
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
	Behaviour []model.State
	// Config is the spec instance the room was checked on.
	Config *model.Config
	// MaxHidden is the most unseen steps one observation needed;
	// BoundHit says a search stopped at Options.MaxHidden or MaxStates.
	MaxHidden int
	BoundHit  bool
}

// Report is a replay's result.
type Report struct {
	// Rooms are all rooms in order of first observation.
	Rooms []*Room
	// End is the capture's end time the deadlines were measured against.
	End      time.Time
	Deadline time.Duration
	// MaxHidden and MaxStates are the search bounds used.
	MaxHidden, MaxStates int
}

// Count returns how many rooms have verdict v.
func (r *Report) Count(v Verdict) int {
	n := 0
	for _, room := range r.Rooms {
		if room.Verdict == v {
			n++
		}
	}
	return n
}

// Failed reports whether any room is violated or invalid.
func (r *Report) Failed() bool { return r.Count(Violated)+r.Count(Invalid) > 0 }

// Replayer judges rooms from observations fed in time order.
type Replayer struct {
	opt     Options
	cfgText string
	base    *model.Config
	configs map[int]*model.Config
	rooms   map[int64]*roomState
	order   []*roomState
	// observed counts observations, to sweep idle rooms now and then.
	observed int
	// connRank names the decode rank behind a connection's source
	// endpoint, from the TransferInfos sent on it.
	connRank map[netip.AddrPort]netip.AddrPort
}

// ErrConfig is wrapped by errors about the variant configuration.
var ErrConfig = errors.New("replay: configuration")

var (
	ranksRe    = regexp.MustCompile(`(?m)^(\s*DecodeRanks\s*=\s*)\{[^}]*\}`)
	requiredRe = regexp.MustCompile(`(?m)^(\s*RequiredDstInfoNum\s*=\s*)\d+`)
)

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
	r := &Replayer{opt: opt, cfgText: string(cfgText), base: c, configs: map[int]*model.Config{}, rooms: map[int64]*roomState{}, connRank: map[netip.AddrPort]netip.AddrPort{}}
	r.configs[c.RequiredDstInfoNum] = c
	return r, nil
}

// config returns the variant's instance with n decode ranks, all required.
func (r *Replayer) config(n int) (*model.Config, error) {
	if c, ok := r.configs[n]; ok {
		return c, nil
	}
	if n < 1 || n > 8 {
		return nil, fmt.Errorf("required_dst_info_num %d outside 1..8", n)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = "d" + strconv.Itoa(i+1)
	}
	text := ranksRe.ReplaceAllString(r.cfgText, "${1}{"+strings.Join(names, ", ")+"}")
	text = requiredRe.ReplaceAllString(text, "${1}"+strconv.Itoa(n))
	c, err := model.LoadConfig([]byte(text))
	if err != nil {
		return nil, err
	}
	r.configs[n] = c
	return c, nil
}

// label is a trace a step leaves in the event log.
type label struct {
	kind Kind
	a, b string // status: from, to; poll: queue, status
}

// node is a spec state with the log labels its last step left that the
// log has not shown yet.
type node struct {
	s       model.State
	pending []label
	// trail is the behaviour that led to s (not part of the node's
	// identity: the first one found is kept).
	trail *trail
}

// trail is a behaviour as a persistent list, last state first: nodes
// share their common prefixes.
type trail struct {
	s    model.State
	prev *trail
}

func (t *trail) states() []model.State {
	var out []model.State
	for ; t != nil; t = t.prev {
		out = append(out, t.s)
	}
	slices.Reverse(out)
	return out
}

type roomState struct {
	// final: judged and dropped by sweep.
	final bool
	out   *Room
	c     *model.Config
	ranks []netip.AddrPort
	nodes []node
	// done: invalid, or terminal; later observations are evidence only.
	done bool
}

// sweepEvery is how many observations go between two sweeps.
const sweepEvery = 1 << 12

// Observe feeds the next observation (in time order).
func (r *Replayer) Observe(o Observation) {
	r.observed++
	if r.observed%sweepEvery == 0 {
		r.sweep(o.Time)
	}
	rs := r.rooms[o.Room]
	if rs == nil {
		rs = &roomState{out: &Room{Room: o.Room, FirstSeen: o.Time, Latency: -1}}
		r.rooms[o.Room] = rs
		r.order = append(r.order, rs)
	}
	if o.Kind == TransferInfo && !o.RankFromConn {
		if r.connRank[o.Src] != o.Rank {
			r.connRank[o.Src] = o.Rank
		}
	}
	if o.RankFromConn {
		if rank, ok := r.connRank[o.Src]; ok {
			o.Rank = rank
		}
	}
	out := rs.out
	out.LastSeen = o.Time
	if n := len(out.Frames); o.Kind.Wire() && n > 0 && out.Frames[n-1] == o.Frame {
		// Another message of the same packet.
	} else if len(out.Frames)+len(out.Lines) < r.opt.MaxEvidence {
		if o.Kind.Wire() {
			out.Frames = append(out.Frames, o.Frame)
		} else {
			out.Lines = append(out.Lines, o.Line)
		}
	} else {
		out.More++
	}
	if o.Kind == Abort && !out.Aborted {
		out.Aborted, out.AbortTime, out.AbortFrame = true, o.Time, o.Frame
	}
	if rs.done || o.Kind == Other || (!r.opt.Log && !o.Kind.Wire()) {
		return
	}
	if rs.c == nil {
		n := r.base.RequiredDstInfoNum
		if o.Kind == TransferInfo {
			n = o.Required
		}
		c, err := r.config(n)
		if err != nil {
			r.invalid(rs, o, err.Error())
			return
		}
		rs.c = c
		out.Config = c
		c.Inits(func(s *model.State) bool {
			rs.nodes = append(rs.nodes, node{s: *s, trail: &trail{s: *s}})
			return false
		})
	}
	if o.Kind == TransferInfo && o.Required != rs.c.RequiredDstInfoNum {
		r.invalid(rs, o, fmt.Sprintf("required_dst_info_num %d, but the room's first TransferInfo said %d", o.Required, rs.c.RequiredDstInfoNum))
		return
	}
	d := -1
	if o.Kind.Wire() {
		d = slices.Index(rs.ranks, o.Rank)
		if d < 0 && o.Kind == AbortAck {
			d = samePort(rs.ranks, o.Rank)
		}
		if d < 0 {
			if len(rs.ranks) == rs.c.DecodeRanks.Size() {
				r.invalid(rs, o, fmt.Sprintf("a decode rank %s beyond the %d of required_dst_info_num (%v)", o.Rank, len(rs.ranks), rs.ranks))
				return
			}
			rs.ranks = append(rs.ranks, o.Rank)
			d = len(rs.ranks) - 1
		}
	}
	if o.Kind == Abort && out.AbortFrame != o.Frame {
		// Explained by the room's DecodeAbort, which sent one ABORT per rank.
		return
	}
	next, depth, hit := r.search(rs, o, d)
	out.MaxHidden = max(out.MaxHidden, depth)
	out.BoundHit = out.BoundHit || hit
	if len(next) == 0 {
		why := "no spec step explains it"
		if hit {
			why += fmt.Sprintf(" within the search bound (%d unseen steps, %d states)", r.opt.MaxHidden, r.opt.MaxStates)
		}
		r.invalid(rs, o, why)
		return
	}
	rs.nodes = next
	if out.TerminalTime.IsZero() && r.allTerminated(rs) {
		out.TerminalTime = o.Time
	}
}

// samePort returns the index of the only rank whose endpoint has the
// port of endpoint ep, or -1: an ABORT_ACK goes to decode's address as
// prefill's routing sees it, which may differ from the decode_ip decode
// announced (NAT, loopback), while the port is decode's own.
func samePort(ranks []netip.AddrPort, ep netip.AddrPort) int {
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

func (r *Replayer) invalid(rs *roomState, o Observation, why string) {
	out := rs.out
	out.Verdict = Invalid
	out.Unexplained = &o
	out.Reason = fmt.Sprintf("%s: %s", &o, why)
	if rs.c != nil {
		var b strings.Builder
		for i, n := range rs.nodes {
			if i == 4 {
				fmt.Fprintf(&b, "... and %d more states\n", len(rs.nodes)-i)
				break
			}
			b.WriteString(rs.c.Format(&n.s))
			b.WriteString("\n")
		}
		out.State = b.String()
	}
	if len(rs.nodes) > 0 {
		out.Behaviour = rs.nodes[0].trail.states()
	}
	rs.done = true
	rs.nodes = nil
}

func (r *Replayer) allTerminated(rs *roomState) bool {
	for i := range rs.nodes {
		if !rs.c.Terminated(&rs.nodes[i].s, 0) || firstOf(rs.nodes[i].pending, false) >= 0 {
			return false
		}
	}
	return true
}

// labels returns the traces step a from s to t of request q = 0 leaves:
// the ABORT_ACK it sends (wire), then, withLog, its log lines.
func labels(c *model.Config, a model.Action, s, t *model.State, withLog bool) []label {
	var out []label
	if a.ID == model.ActBootstrapRecvAbort && acks(c) {
		out = append(out, label{kind: AbortAck, a: strconv.Itoa(a.Params[0])})
	}
	if !withLog {
		return out
	}
	status := func() {
		if s.RequestStatus[0] != t.RequestStatus[0] {
			out = append(out, label{Status, s.RequestStatus[0].String(), t.RequestStatus[0].String()})
		}
	}
	switch a.ID {
	case model.ActDecodeSendTransferInfo, model.ActDecodeAbort, model.ActDecodeRecvAbortAck:
		// Decode's side: not in the prefill log.
	case model.ActSchedulerCreateSender:
		out = append(out, label{kind: SenderCreate})
		status()
	case model.ActSchedulerPollBootstrap:
		out = append(out, label{Poll, "bootstrap", c.Poll(s, 0).String()})
	case model.ActSchedulerPollInFlight:
		out = append(out, label{Poll, "inflight", c.Poll(s, 0).String()})
		if t.Sender[0] == model.StrReleased {
			out = append(out, label{kind: Clear})
		}
	default:
		status()
	}
	return out
}

func obsLabel(o *Observation, d int) label {
	switch o.Kind {
	case AbortAck:
		return label{kind: AbortAck, a: strconv.Itoa(d)}
	case Status:
		return label{Status, o.From, o.To}
	case Poll:
		return label{Poll, o.Queue, o.Status}
	}
	return label{kind: o.Kind}
}

// stutter reports whether a log poll that moves nothing is consistent
// with s: the request waits in that queue and its poll reads that status.
func stutter(c *model.Config, o *Observation, s *model.State) bool {
	if o.Kind != Poll {
		return false
	}
	// Only a poll whose result lets the request stay where it is moves
	// nothing: the others are the scheduler's poll steps.
	switch o.Queue {
	case "bootstrap":
		return s.Sender[0] == model.StrBootstrapQueue && o.Status == "Bootstrapping" && c.Poll(s, 0) == model.StrBootstrapping
	case "inflight":
		p := c.Poll(s, 0)
		return s.Sender[0] == model.StrInflightQueue && p.String() == o.Status &&
			p != model.StrSuccess && p != model.StrFailed && p != model.StrKeyError
	}
	return false
}

// observed reports whether step a is the wire observation o (of rank d).
func observed(c *model.Config, o *Observation, d int, a model.Action) bool {
	switch o.Kind {
	case TransferInfo:
		return a.ID == model.ActDecodeSendTransferInfo && a.Params[0] == d && a.Params[1] == 0
	case Abort:
		return a.ID == model.ActDecodeAbort && a.Params[0] == 0
	}
	return false
}

// firstOf returns the index of the first label from the wire (or from the
// log), or -1.
func firstOf(ls []label, wire bool) int {
	for i, l := range ls {
		if l.kind.Wire() == wire {
			return i
		}
	}
	return -1
}

func acks(c *model.Config) bool { return c.AbortAckSent && !c.AbortKillsBootstrap }

// hidden reports whether step a may have happened unseen.
func (r *Replayer) hidden(c *model.Config, a model.Action, s, t *model.State) bool {
	if a.ID == model.ActDecodeSendTransferInfo || a.ID == model.ActDecodeAbort {
		return false
	}
	return len(labels(c, a, s, t, r.opt.Log)) == 0
}

// stateSet is a set of nodes; small sets (the usual frontier) are
// scanned, larger ones indexed by hash.
type stateSet struct {
	idx    map[uint64][]int
	hashes []uint64
	nodes  []node
}

// smallSet is the size up to which a stateSet is scanned.
const smallSet = 32

func samePending(a, b []label) bool { return slices.Equal(a, b) }

func (ss *stateSet) index(h uint64, n *node) int {
	if ss.idx == nil {
		for i, x := range ss.hashes {
			if x == h && ss.nodes[i].s.Equal(&n.s) && samePending(ss.nodes[i].pending, n.pending) {
				return i
			}
		}
		return -1
	}
	for _, i := range ss.idx[h] {
		if ss.nodes[i].s.Equal(&n.s) && samePending(ss.nodes[i].pending, n.pending) {
			return i
		}
	}
	return -1
}

func (ss *stateSet) add(n node) bool {
	h := n.s.Hash()
	if ss.index(h, &n) >= 0 {
		return false
	}
	if ss.idx == nil && len(ss.nodes) >= smallSet {
		ss.idx = make(map[uint64][]int, 2*smallSet)
		for i, x := range ss.hashes {
			ss.idx[x] = append(ss.idx[x], i)
		}
	}
	if ss.idx != nil {
		ss.idx[h] = append(ss.idx[h], len(ss.nodes))
	}
	ss.hashes = append(ss.hashes, h)
	ss.nodes = append(ss.nodes, n)
	return true
}

// find returns the index of the node of state s without pending labels.
func (ss *stateSet) find(s *model.State) int {
	return ss.index(s.Hash(), &node{s: *s})
}

// search returns the nodes after observation o, the most unseen steps
// used and whether a bound stopped the search.
func (r *Replayer) search(rs *roomState, obs Observation, d int) ([]node, int, bool) {
	o := &obs
	c := rs.c
	var res stateSet
	isLog, src := !o.Kind.Wire(), o.Kind.Wire()
	// TransferInfo and ABORT are decode's steps; the other observations
	// are traces (labels) of prefill's steps.
	decodeStep := o.Kind == TransferInfo || o.Kind == Abort
	want := obsLabel(o, d)
	// Visited states keep their parent's index: trails are built only for
	// the states that explain the observation.
	type item struct {
		n      node
		depth  int
		parent int
	}
	var items []item
	var seen stateSet
	trailOf := func(i int) *trail {
		var chain []int
		for ; items[i].parent >= 0; i = items[i].parent {
			chain = append(chain, i)
		}
		t := items[i].n.trail
		for k := len(chain) - 1; k >= 0; k-- {
			t = &trail{items[chain[k]].n.s, t}
		}
		return t
	}
	for _, n := range rs.nodes {
		// A trace a previous step left on this source comes first.
		if !decodeStep {
			if i := firstOf(n.pending, src); i >= 0 {
				if n.pending[i] == want {
					res.add(node{s: n.s, pending: slices.Delete(slices.Clone(n.pending), i, i+1), trail: n.trail})
				}
				continue
			}
		}
		if seen.add(n) {
			items = append(items, item{n, 0, -1})
		}
	}
	maxDepth, hit := 0, false
	for head := 0; head < len(items); head++ {
		it := items[head]
		s := &it.n.s
		if isLog && firstOf(it.n.pending, false) < 0 && stutter(c, o, s) {
			res.add(node{s: *s, pending: it.n.pending, trail: trailOf(head)})
			maxDepth = max(maxDepth, it.depth)
		}
		c.Next(s, func(a model.Action, t *model.State) bool {
			if decodeStep && observed(c, o, d, a) {
				res.add(node{s: *t, pending: it.n.pending, trail: &trail{*t, trailOf(head)}})
				maxDepth = max(maxDepth, it.depth)
				return false
			}
			if !decodeStep && !isDecode(a) && firstOf(it.n.pending, src) < 0 {
				ls := labels(c, a, s, t, r.opt.Log)
				if i := firstOf(ls, src); i >= 0 && ls[i] == want {
					rest := append(slices.Clone(it.n.pending), ls[:i]...)
					rest = append(rest, ls[i+1:]...)
					res.add(node{s: *t, pending: rest, trail: &trail{*t, trailOf(head)}})
					maxDepth = max(maxDepth, it.depth)
					return false
				}
			}
			if !r.hidden(c, a, s, t) {
				return false
			}
			if it.depth >= r.opt.MaxHidden || len(seen.nodes) >= r.opt.MaxStates {
				hit = true
				return false
			}
			n := node{s: *t, pending: it.n.pending}
			if seen.add(n) {
				items = append(items, item{n, it.depth + 1, head})
			}
			return false
		})
	}
	return res.nodes, maxDepth, hit
}

func isDecode(a model.Action) bool {
	return a.ID == model.ActDecodeSendTransferInfo || a.ID == model.ActDecodeAbort || a.ID == model.ActDecodeRecvAbortAck
}

// sweep judges and forgets the rooms whose verdict can no longer change:
// idle for longer than the deadline and invalid, released, or (without a
// log) only waiting for the pin analysis. What stays is the rooms prefill
// may still hold, so memory follows live rooms, not the capture's length.
// A room id seen again after its room was swept starts a new room.
func (r *Replayer) sweep(now time.Time) {
	for id, rs := range r.rooms {
		if now.Sub(rs.out.LastSeen) <= r.opt.Deadline {
			continue
		}
		if rs.done || !rs.out.TerminalTime.IsZero() || !r.opt.Log {
			r.judge(rs, now)
			rs.final, rs.done, rs.nodes = true, true, nil
			delete(r.rooms, id)
		}
	}
}

// Live returns how many rooms the Replayer holds search state for.
func (r *Replayer) Live() int { return len(r.rooms) }

// Finish judges every room at the capture's end time end.
func (r *Replayer) Finish(end time.Time) *Report {
	rep := &Report{End: end, Deadline: r.opt.Deadline, MaxHidden: r.opt.MaxHidden, MaxStates: r.opt.MaxStates}
	for _, rs := range r.order {
		if !rs.final {
			r.judge(rs, end)
		}
		rep.Rooms = append(rep.Rooms, rs.out)
	}
	return rep
}

func (r *Replayer) judge(rs *roomState, end time.Time) {
	out := rs.out
	if out.Verdict == Invalid {
		return
	}
	if !out.Aborted {
		out.Verdict, out.Reason = NotAborted, "never aborted"
		return
	}
	dl := r.opt.Deadline
	if !out.TerminalTime.IsZero() {
		out.Latency = max(0, out.TerminalTime.Sub(out.AbortTime))
		if out.Latency > dl {
			if len(rs.nodes) > 0 {
				out.Behaviour = rs.nodes[0].trail.states()
			}
			out.Verdict, out.Reason = Violated, fmt.Sprintf("released %v after the abort, later than the %v deadline", out.Latency, dl)
			return
		}
		out.Verdict, out.Reason = Satisfied, fmt.Sprintf("released %v after the abort", out.Latency)
		return
	}
	if r.opt.Log {
		if end.Sub(out.AbortTime) >= dl {
			if len(rs.nodes) > 0 {
				out.Behaviour = rs.nodes[0].trail.states()
			}
			out.Verdict, out.Reason = Violated, fmt.Sprintf("not released %v after the abort (deadline %v)", end.Sub(out.AbortTime), dl)
		} else {
			out.Verdict, out.Reason = Inconclusive, fmt.Sprintf("not released yet; the capture ended %v after the abort, before the %v deadline", end.Sub(out.AbortTime), dl)
		}
		return
	}
	pin, complete := r.pin(rs)
	switch {
	case pin != nil:
		out.Pin = pin
		for i := range rs.nodes {
			if rs.nodes[i].s.Equal(&pin[0]) {
				out.Behaviour = append(rs.nodes[i].trail.states(), pin[1:]...)
				break
			}
		}
		out.Verdict, out.Reason = AtRisk, fmt.Sprintf("some completion of the unseen steps (%d steps) pins the room", len(pin)-1)
	case !complete:
		out.Verdict, out.Reason = Inconclusive, fmt.Sprintf("the completions of the unseen steps exceed the search bound (%d states)", r.opt.MaxStates)
		out.BoundHit = true
	default:
		out.Verdict, out.Reason = Satisfied, "every completion of the unseen steps releases the room (no log: release time not observed)"
	}
}

// pin explores every completion of the room's unseen steps and returns a
// behaviour from a current state to a state from which no completion
// releases the request, or nil; complete is false when MaxStates cut the
// exploration.
func (r *Replayer) pin(rs *roomState) (path []model.State, complete bool) {
	c := rs.c
	var ss stateSet
	var parent []int
	var succ [][]int
	for _, n := range rs.nodes {
		if ss.add(node{s: n.s}) {
			parent = append(parent, -1)
		}
	}
	complete = true
	for i := 0; i < len(ss.nodes); i++ {
		s := ss.nodes[i].s
		var out []int
		c.Next(&s, func(a model.Action, t *model.State) bool {
			if a.ID == model.ActDecodeSendTransferInfo || a.ID == model.ActDecodeAbort {
				return false // decode has aborted: it sends nothing more
			}
			if len(ss.nodes) >= r.opt.MaxStates {
				complete = false
				return true
			}
			n := len(ss.nodes)
			if ss.add(node{s: *t}) {
				parent = append(parent, i)
				out = append(out, n)
			} else {
				out = append(out, ss.find(t))
			}
			return false
		})
		succ = append(succ, out)
	}
	if !complete {
		return nil, false
	}
	// Backward: which states can reach a terminated one.
	n := len(ss.nodes)
	pred := make([][]int, n)
	for i, out := range succ {
		for _, j := range out {
			pred[j] = append(pred[j], i)
		}
	}
	can := make([]bool, n)
	var stack []int
	for i := range ss.nodes {
		if c.Terminated(&ss.nodes[i].s, 0) {
			can[i] = true
			stack = append(stack, i)
		}
	}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, i := range pred[j] {
			if !can[i] {
				can[i] = true
				stack = append(stack, i)
			}
		}
	}
	for i := range ss.nodes {
		if !can[i] {
			for k := i; k >= 0; k = parent[k] {
				path = append(path, ss.nodes[k].s)
			}
			slices.Reverse(path)
			return path, true
		}
	}
	return nil, true
}
