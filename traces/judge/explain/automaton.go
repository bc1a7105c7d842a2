package explain

import (
	"encoding/binary"
	"slices"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/spec/model"
)

// Instance is the search on one spec instance (a configuration of one
// room), memoized: it builds on the fly the deterministic automaton whose
// states are sets of spec nodes (the subset construction). Each distinct
// node set is interned once, and the result of each (set, mark) step,
// union and burst is computed once. On real traffic rooms follow a
// handful of patterns, so after the first few rooms an observation costs
// a map lookup, not a search.
//
// Rooms point at their current *Set. The memo tables are dropped when
// they grow past memoLimit (adversarial traffic with ever new patterns);
// sets still in use stay alive through the rooms that hold them, so
// memory follows live rooms either way.
type Instance struct {
	sr    searcher
	marks *MarkTable
	// index interns sets by hash.
	index  map[uint64][]*Set
	steps  map[stepKey]stepResult
	unions map[[2]*Set]*Set
	bursts map[string]explained[*Set]
	key    []byte
	nextID uint64
	empty  *Set
	// start is the initial state; blind the same, blind to every channel;
	// past every state (made when first needed).
	start, blind, past *Set
	// pastComplete is false when MaxStates cut the past's exploration.
	pastComplete bool
}

// memoLimit bounds the memo tables' entries.
const memoLimit = 1 << 20

// Set is an interned set of nodes: spec states with the marks their
// steps left that were not observed yet.
type Set struct {
	id     uint64
	nodes  []node
	hashes []uint64
	hash   uint64
	// closed and released: searcher.closed and searcher.released.
	closed, released bool
	// aborted: some node has an aborted request.
	aborted bool
	pinDone bool
	pinPath []model.State
	pinFull bool
}

// Closed reports whether, in every state of s, each aborted request was
// let go and no log line is left to show (Settled, and nothing pending).
func (s *Set) Closed() bool { return s.closed }

// Released reports whether, in every state of s, every request that
// reached prefill was let go and no log line is left to show.
func (s *Set) Released() bool { return s.released }

// Aborted reports whether some state of s has an aborted request.
func (s *Set) Aborted() bool { return s.aborted }

// Empty reports whether s holds no state: what no behaviour explains.
func (s *Set) Empty() bool { return len(s.nodes) == 0 }

// AnySettled reports whether some state of s has every aborted request
// let go.
func (s *Set) AnySettled(c *model.Config) bool {
	for i := range s.nodes {
		if Settled(c, &s.nodes[i].s) {
			return true
		}
	}
	return false
}

// Format prints the first states of s as TLA+ (at most four, then how
// many more).
func (s *Set) Format(c *model.Config) string {
	var b strings.Builder
	for i := range s.nodes {
		if i == 4 {
			b.WriteString("... and " + strconv.Itoa(len(s.nodes)-i) + " more states\n")
			break
		}
		b.WriteString(c.Format(&s.nodes[i].s))
		b.WriteString("\n")
	}
	return b.String()
}

type stepKey struct {
	s *Set
	m int32
}

type stepResult struct {
	to    *Set
	depth int
	hit   bool
}

// NewInstance returns the search on the one-room configuration c: with
// withLog, steps that write prefill event-log lines (which the log then
// shows) are never unseen. maxHidden bounds the unseen steps between two
// observations, maxStates the states one search visits. Marks are
// numbered by marks, which every instance of a replay shares.
func NewInstance(c *model.Config, withLog bool, maxHidden, maxStates int, marks *MarkTable) *Instance {
	a := &Instance{sr: searcher{c: c, log: withLog, maxHidden: maxHidden, maxStates: maxStates}, marks: marks}
	a.reset()
	a.empty = &Set{id: a.id()}
	var init []node
	c.Inits(func(s *model.State) bool {
		init = append(init, node{s: *s})
		return false
	})
	a.start = a.intern(init)
	return a
}

// Config is the instance's configuration.
func (a *Instance) Config() *model.Config { return a.sr.c }

// Marks is the table the instance's marks are numbered in.
func (a *Instance) Marks() *MarkTable { return a.marks }

// Log reports whether the instance's rooms are explained with their log.
func (a *Instance) Log() bool { return a.sr.log }

// Start returns the set of initial states.
func (a *Instance) Start() *Set { return a.start }

func (a *Instance) id() uint64 { a.nextID++; return a.nextID }

func (a *Instance) reset() {
	a.index = map[uint64][]*Set{}
	a.steps = map[stepKey]stepResult{}
	a.unions = map[[2]*Set]*Set{}
	a.bursts = map[string]explained[*Set]{}
}

func (a *Instance) memoFull() bool {
	if len(a.steps)+len(a.unions)+len(a.bursts)+len(a.index) < memoLimit {
		return false
	}
	a.reset()
	return true
}

// intern returns the set of nodes (trails dropped).
func (a *Instance) intern(nodes []node) *Set {
	if len(nodes) == 0 {
		return a.empty
	}
	bare := make([]node, len(nodes))
	for i, n := range nodes {
		bare[i] = node{s: n.s, pending: n.pending, blind: n.blind}
	}
	sorted, hashes := canonical(bare)
	h := uint64(len(sorted))
	for _, x := range hashes {
		h = (h ^ x) * 0x100000001b3
	}
	for _, s := range a.index[h] {
		if slices.Equal(s.hashes, hashes) && sameNodes(s.nodes, sorted) {
			return s
		}
	}
	s := &Set{id: a.id(), nodes: sorted, hashes: hashes, hash: h, closed: a.sr.closed(sorted), released: a.sr.released(sorted)}
	for i := range sorted {
		s.aborted = s.aborted || aborted(&sorted[i].s)
	}
	a.memoFull()
	a.index[h] = append(a.index[h], s)
	return s
}

func sameNodes(a, b []node) bool {
	for i := range a {
		if !a[i].same(&b[i]) {
			return false
		}
	}
	return true
}

// Blind returns the initial states blind to every channel: the start of a
// room whose connections the capture joined mid-stream (what was sent on
// a channel before the room's first observation on it may be missing).
func (a *Instance) Blind() *Set {
	if a.blind == nil {
		nodes := slices.Clone(a.start.nodes)
		for i := range nodes {
			nodes[i].blind = allChannels(a.sr.c)
		}
		a.blind = a.intern(nodes)
	}
	return a.blind
}

// Past returns the set of every state reachable from the initial states:
// the start of a room whose life began before both the capture and the
// log. complete is false when MaxStates cut its exploration.
func (a *Instance) Past() (s *Set, complete bool) {
	if a.past == nil {
		nodes, complete := a.sr.past()
		a.past, a.pastComplete = a.intern(nodes), complete
	}
	return a.past, a.pastComplete
}

// step explains observation mark m (interned as id) after s.
func (a *Instance) step(s *Set, id int32) stepResult {
	if s == a.empty {
		return stepResult{to: a.empty}
	}
	k := stepKey{s, id}
	if r, ok := a.steps[k]; ok {
		return r
	}
	nodes, depth, hit := a.sr.step(s.nodes, a.marks.Mark(id), false)
	r := stepResult{a.intern(nodes), depth, hit}
	a.memoFull()
	a.steps[k] = r
	return r
}

func (a *Instance) union(x, y *Set) *Set {
	if x == a.empty || x == y {
		return y
	}
	if y == a.empty {
		return x
	}
	if x.id > y.id {
		x, y = y, x
	}
	k := [2]*Set{x, y}
	if u, ok := a.unions[k]; ok {
		return u
	}
	u := a.intern(union(x.nodes, y.nodes))
	a.memoFull()
	a.unions[k] = u
	return u
}

// Burst explains a burst of observations (interned marks ms, orders o)
// after s.
func (a *Instance) Burst(s *Set, ms []int32, o Order) Explained {
	if o.n == 1 {
		r := a.step(s, ms[0])
		e := explained[*Set]{final: r.to, depth: r.depth, hit: r.hit, blame: -1}
		switch {
		case r.to == a.empty:
			e.blame, e.from = 0, s
		case r.to.closed && r.to.released:
			e.closedAt, e.releasedAt = 1, 1
		case r.to.closed:
			e.closedAt = 1
		case r.to.released:
			e.releasedAt = 1
		}
		return Explained{e}
	}
	k := o.AppendKey(binary.LittleEndian.AppendUint64(a.key[:0], s.id), ms)
	a.key = k
	if r, ok := a.bursts[string(k)]; ok {
		return Explained{r}
	}
	e := explain[*Set](setSpace{a, ms}, s, o)
	if e.final == nil {
		e.final = a.empty
	}
	a.memoFull()
	a.bursts[string(k)] = e
	return Explained{e}
}

// Explained is what explaining a burst found.
type Explained struct{ e explained[*Set] }

// Final is the set after every observation of the burst, in any allowed
// order; empty when no order explains them all.
func (e Explained) Final() *Set { return e.e.final }

// Blame returns, when Final is empty, the observation (index in the
// burst) no order explains and the set it was checked from; -1 otherwise.
func (e Explained) Blame() (int, *Set) { return e.e.blame, e.e.from }

// ClosedAt and ReleasedAt are the smallest k >= 1 such that the burst's
// first j observations (capture order) are explained and leave the room
// closed (released) for every j >= k: when, within the burst, the room
// closed for good; 0 if it is not closed at the end.
func (e Explained) ClosedAt() int { return e.e.closedAt }

// ReleasedAt: see ClosedAt.
func (e Explained) ReleasedAt() int { return e.e.releasedAt }

// Depth is the most unseen steps one observation needed; BoundHit says a
// search bound cut the search.
func (e Explained) Depth() int { return e.e.depth }

// BoundHit: see Depth.
func (e Explained) BoundHit() bool { return e.e.hit }

// setSpace explains a burst on interned sets.
type setSpace struct {
	a  *Instance
	ms []int32
}

func (sp setSpace) step(s *Set, i int) (*Set, int, bool) {
	r := sp.a.step(s, sp.ms[i])
	return r.to, r.depth, r.hit
}
func (sp setSpace) union(x, y *Set) *Set { return sp.a.union(x, y) }
func (sp setSpace) empty(s *Set) bool    { return s == nil || s == sp.a.empty }
func (sp setSpace) closed(s *Set) bool   { return s.closed }
func (sp setSpace) released(s *Set) bool { return s.released }

// nodeSpace explains a burst on node lists with trails: the same search,
// not memoized, for the rooms whose behaviour is reported.
type nodeSpace struct {
	sr *searcher
	ms []Mark
}

func (sp nodeSpace) step(s []node, i int) ([]node, int, bool) { return sp.sr.step(s, sp.ms[i], true) }
func (sp nodeSpace) union(x, y []node) []node                 { return union(x, y) }
func (sp nodeSpace) empty(s []node) bool                      { return len(s) == 0 }
func (sp nodeSpace) closed(s []node) bool                     { return sp.sr.closed(s) }
func (sp nodeSpace) released(s []node) bool                   { return sp.sr.released(s) }

// Pin explores every completion of the unseen steps from s (every step
// but the environment's sends) and returns a behaviour from one of its
// states to a state from which no completion lets an aborted request go,
// or nil; complete is false when MaxStates cut the exploration. It is
// computed once per set.
func (a *Instance) Pin(s *Set) (path []model.State, complete bool) {
	if !s.pinDone {
		s.pinPath, s.pinFull = a.sr.pin(s.nodes)
		s.pinDone = true
	}
	return s.pinPath, s.pinFull
}

// Doomed reports whether no completion of the unseen steps from state s
// alone lets its aborted requests go (Pin finds s itself pinned).
func (a *Instance) Doomed(s *model.State) bool {
	path, complete := a.Pin(a.intern([]node{{s: *s}}))
	return complete && len(path) == 1
}
