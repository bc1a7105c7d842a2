package replay

import (
	"encoding/binary"
	"slices"

	"github.com/roomspec/roomspec/spec/model"
)

// automaton memoizes a searcher, building on the fly the deterministic
// automaton whose states are sets of spec nodes (the subset
// construction): each distinct node set is interned once, and the result
// of each (set, mark) step, union and burst is computed once. On real
// traffic rooms follow a handful of patterns, so after the first few
// rooms an observation costs a map lookup, not a search.
//
// Rooms point at their current *set. The memo tables are dropped when
// they grow past memoLimit (adversarial traffic with ever new patterns);
// sets still in use stay alive through the rooms that hold them, so
// memory follows live rooms either way.
type automaton struct {
	sr    searcher
	marks *markTable
	// index interns sets by hash.
	index  map[uint64][]*set
	steps  map[stepKey]stepResult
	unions map[[2]*set]*set
	bursts map[string]burstResult
	key    []byte
	nextID uint64
	empty  *set
	// start is the initial state; blind the same, blind to every channel;
	// past every state (made when first needed).
	start, blind, past *set
	// pastComplete is false when MaxStates cut the past's exploration.
	pastComplete bool
}

// memoLimit bounds the memo tables' entries.
const memoLimit = 1 << 20

// set is an interned node set (nodes without trails, canonical order).
type set struct {
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

type stepKey struct {
	s *set
	m int32
}

type stepResult struct {
	to    *set
	depth int
	hit   bool
}

type burstResult struct {
	explained[*set]
}

func newAutomaton(sr searcher, marks *markTable) *automaton {
	a := &automaton{sr: sr, marks: marks}
	a.reset()
	a.empty = &set{id: a.id()}
	var init []node
	sr.c.Inits(func(s *model.State) bool {
		init = append(init, node{s: *s})
		return false
	})
	a.start = a.intern(init)
	return a
}

func (a *automaton) id() uint64 { a.nextID++; return a.nextID }

func (a *automaton) reset() {
	a.index = map[uint64][]*set{}
	a.steps = map[stepKey]stepResult{}
	a.unions = map[[2]*set]*set{}
	a.bursts = map[string]burstResult{}
}

func (a *automaton) memoFull() bool {
	if len(a.steps)+len(a.unions)+len(a.bursts)+len(a.index) < memoLimit {
		return false
	}
	a.reset()
	return true
}

// intern returns the set of nodes (trails dropped).
func (a *automaton) intern(nodes []node) *set {
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
	s := &set{id: a.id(), nodes: sorted, hashes: hashes, hash: h, closed: a.sr.closed(sorted), released: a.sr.released(sorted)}
	for i := range sorted {
		for q := range sorted[i].s.Aborted {
			s.aborted = s.aborted || sorted[i].s.Aborted[q]
		}
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

// blindSet returns the initial states blind to every channel.
func (a *automaton) blindSet() *set {
	if a.blind == nil {
		nodes := slices.Clone(a.start.nodes)
		for i := range nodes {
			nodes[i].blind = allChannels(a.sr.c)
		}
		a.blind = a.intern(nodes)
	}
	return a.blind
}

// allChannels has a bit set for each channel of instance c (see
// Mark.channel): two per decode rank.
func allChannels(c *model.Config) uint16 { return uint16(1)<<(2*c.DecodeRanks.Size()) - 1 }

// pastSet returns the set of every state reachable from the initial
// states (see searcher.past).
func (a *automaton) pastSet() *set {
	if a.past == nil {
		nodes, complete := a.sr.past()
		a.past, a.pastComplete = a.intern(nodes), complete
	}
	return a.past
}

// step explains observation mark m (interned as id) after s.
func (a *automaton) step(s *set, id int32) stepResult {
	if s == a.empty {
		return stepResult{to: a.empty}
	}
	k := stepKey{s, id}
	if r, ok := a.steps[k]; ok {
		return r
	}
	nodes, depth, hit := a.sr.step(s.nodes, a.marks.list[id], false)
	r := stepResult{a.intern(nodes), depth, hit}
	a.memoFull()
	a.steps[k] = r
	return r
}

func (a *automaton) union(x, y *set) *set {
	if x == a.empty || x == y {
		return y
	}
	if y == a.empty {
		return x
	}
	if x.id > y.id {
		x, y = y, x
	}
	k := [2]*set{x, y}
	if u, ok := a.unions[k]; ok {
		return u
	}
	u := a.intern(union(x.nodes, y.nodes))
	a.memoFull()
	a.unions[k] = u
	return u
}

// burst explains a burst of observations (interned marks ms, constraint
// o) after s.
func (a *automaton) burst(s *set, ms []int32, o order) explained[*set] {
	if o.n == 1 {
		r := a.step(s, ms[0])
		e := explained[*set]{final: r.to, depth: r.depth, hit: r.hit, blame: -1}
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
		return e
	}
	k := binary.LittleEndian.AppendUint64(a.key[:0], s.id)
	for i := 0; i < o.n; i++ {
		k = binary.LittleEndian.AppendUint32(k, uint32(ms[i]))
		k = binary.LittleEndian.AppendUint16(k, o.need[i])
		k = binary.LittleEndian.AppendUint16(k, o.forbid[i])
	}
	a.key = k
	if r, ok := a.bursts[string(k)]; ok {
		return r.explained
	}
	e := explain[*set](setSpace{a, ms}, s, o)
	if e.final == nil {
		e.final = a.empty
	}
	a.memoFull()
	a.bursts[string(k)] = burstResult{e}
	return e
}

// setSpace explains a burst on interned sets.
type setSpace struct {
	a  *automaton
	ms []int32
}

func (sp setSpace) step(s *set, i int) (*set, int, bool) {
	r := sp.a.step(s, sp.ms[i])
	return r.to, r.depth, r.hit
}
func (sp setSpace) union(x, y *set) *set { return sp.a.union(x, y) }
func (sp setSpace) empty(s *set) bool    { return s == nil || s == sp.a.empty }
func (sp setSpace) closed(s *set) bool   { return s.closed }
func (sp setSpace) released(s *set) bool { return s.released }

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

// pin returns the pin analysis of s (searcher.pin), computed once.
func (a *automaton) pin(s *set) ([]model.State, bool) {
	if !s.pinDone {
		s.pinPath, s.pinFull = a.sr.pin(s.nodes)
		s.pinDone = true
	}
	return s.pinPath, s.pinFull
}

// markTable interns marks as small integers.
type markTable struct {
	ids  map[Mark]int32
	list []Mark
}

func (t *markTable) id(m Mark) int32 {
	if id, ok := t.ids[m]; ok {
		return id
	}
	if t.ids == nil {
		t.ids = map[Mark]int32{}
	}
	id := int32(len(t.list))
	t.ids[m] = id
	t.list = append(t.list, m)
	return id
}
