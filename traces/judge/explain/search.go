package explain

import (
	"cmp"
	"slices"

	"github.com/roomspec/roomspec/spec/model"
)

// A node is a spec state with the marks its steps left that have not been
// observed yet (messages sent but not yet seen on the wire, the log lines
// of a step whose first line was seen).
type node struct {
	s       model.State
	pending []Mark
	// blind has bit ch set while channel ch has not been seen yet in a
	// capture that joined connections mid-stream (see delivered).
	blind uint32
	// trail is the behaviour that led to s. It is not part of the node's
	// identity: the first one found is kept. The memoized search runs
	// without trails; only rooms whose behaviour is reported are searched
	// again with them.
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

func (n *node) hash() uint64 {
	h := n.s.Hash() ^ uint64(n.blind)<<32
	for _, m := range n.pending {
		h = (h ^ uint64(m.Kind+1)<<8 ^ uint64(m.Rank+2)) * 0x100000001b3
		for _, s := range [2]string{m.A, m.B} {
			for i := 0; i < len(s); i++ {
				h = (h ^ uint64(s[i])) * 0x100000001b3
			}
		}
	}
	return h
}

func (n *node) same(o *node) bool {
	return n.blind == o.blind && n.s.Equal(&o.s) && slices.Equal(n.pending, o.pending)
}

// nodeSet collects distinct nodes; small sets (the usual frontier) are
// scanned, larger ones indexed by hash.
type nodeSet struct {
	idx    map[uint64][]int
	hashes []uint64
	nodes  []node
}

const smallSet = 32

func (ns *nodeSet) find(h uint64, n *node) int {
	if ns.idx == nil {
		for i, x := range ns.hashes {
			if x == h && ns.nodes[i].same(n) {
				return i
			}
		}
		return -1
	}
	for _, i := range ns.idx[h] {
		if ns.nodes[i].same(n) {
			return i
		}
	}
	return -1
}

// add adds n unless a node with its state, pending marks and blind
// channels is there.
func (ns *nodeSet) add(n node) bool {
	h := n.hash()
	if ns.find(h, &n) >= 0 {
		return false
	}
	if ns.idx == nil && len(ns.nodes) >= smallSet {
		ns.idx = make(map[uint64][]int, 2*smallSet)
		for i, x := range ns.hashes {
			ns.idx[x] = append(ns.idx[x], i)
		}
	}
	if ns.idx != nil {
		ns.idx[h] = append(ns.idx[h], len(ns.nodes))
	}
	ns.hashes = append(ns.hashes, h)
	ns.nodes = append(ns.nodes, n)
	return true
}

// firstOn returns the index of the first mark in ms on channel ch, or -1.
func firstOn(ms []Mark, ch int) int {
	for i, m := range ms {
		if m.Channel() == ch {
			return i
		}
	}
	return -1
}

func hasLogMark(ms []Mark) bool { return firstOn(ms, -1) >= 0 }

// dropChannel returns pending without its marks on channel ch.
func dropChannel(pending []Mark, ch int) []Mark {
	if firstOn(pending, ch) < 0 {
		return pending
	}
	return slices.DeleteFunc(slices.Clone(pending), func(m Mark) bool { return m.Channel() == ch })
}

// searcher explains observations on one spec instance: the pure core of
// replay. It holds no room; its results depend only on its arguments.
type searcher struct {
	c         *model.Config
	log       bool
	maxHidden int
	maxStates int
	// msgs is scratch for the wire messages of one step.
	msgs []model.WireMessage
}

// A capture sees a message while it is in flight: after the spec's send
// step put it on its channel, before the receive step takes it off. So a
// send may happen unseen (its message's mark then pending, to be observed
// later in channel order), and a receive may take only a message already
// observed. Log lines are written by the steps themselves: a step that
// writes one is never unseen.
//
// A channel the capture may not have seen from its start (a connection
// joined mid-stream, before the room's first observation on it:
// node.blind) is different: what was sent on it may have been missed. Its
// pending marks are optional (skipped by a later observation, never
// waited for by a receive), and the first observation on it ends that.

// delivered reports whether a step whose wire messages are msgs, taken
// after node n, receives only messages observed already or sent while the
// capture was blind to their channel (the pending marks of a channel are
// the tail of its FIFO, and InFlight says how many messages the channel
// holds).
func delivered(msgs []model.WireMessage, n *node) bool {
	for i := range msgs {
		if msgs[i].Send {
			continue
		}
		ch := channelOf(&msgs[i])
		if n.blind&(1<<ch) != 0 {
			continue
		}
		unseen := 0
		for _, m := range n.pending {
			if m.Channel() == ch {
				unseen++
			}
		}
		if unseen >= msgs[i].InFlight {
			return false
		}
	}
	return true
}

// step returns the nodes that explain observation mark m after any of
// nodes: a node's pending mark on m's channel if it is m (the first one;
// on a blind channel any, the ones before it missed); otherwise a step,
// after at most maxHidden unseen ones, whose first mark on that channel is
// m, its other marks then pending. depth is the most unseen steps used;
// hit says a bound cut the search. With trails, result nodes carry the
// behaviour that led to them.
func (sr *searcher) step(nodes []node, m Mark, trails bool) (out []node, depth int, hit bool) {
	c := sr.c
	ch := m.Channel()
	var res nodeSet
	type item struct {
		n      node
		depth  int
		parent int
	}
	var items []item
	var seen nodeSet
	// Visited states keep their parent's index: trails are built only for
	// the states that explain the observation.
	trailOf := func(i int) *trail {
		if !trails {
			return nil
		}
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
	extend := func(i int, s *model.State) *trail {
		if !trails {
			return nil
		}
		return &trail{*s, trailOf(i)}
	}
	// bit is m's channel in node.blind: once m is seen, the capture sees
	// its channel.
	var bit uint32
	if ch >= 0 {
		bit = 1 << ch
	}
	for _, n := range nodes {
		blind := n.blind&bit != 0
		if i := firstOn(n.pending, ch); i >= 0 {
			for j := i; j < len(n.pending); j++ {
				if m.matches(n.pending[j]) {
					// A new list: n's pending marks are shared (with the set
					// n belongs to, and with the other orders of a burst).
					rest := append(slices.Clone(dropChannel(n.pending[:j], ch)), n.pending[j+1:]...)
					res.add(node{s: n.s, pending: rest, blind: n.blind &^ bit, trail: n.trail})
				}
				if !blind {
					break
				}
			}
			if !blind {
				continue
			}
			// Or m was sent after all of them, which were missed.
			n = node{s: n.s, pending: dropChannel(n.pending, ch), blind: n.blind, trail: n.trail}
		}
		if seen.add(n) {
			items = append(items, item{n, 0, -1})
		}
	}
	for head := 0; head < len(items); head++ {
		it := items[head]
		n := &it.n
		s := &n.s
		blind := n.blind&bit != 0
		if ch == -1 && !hasLogMark(n.pending) && Stutter(c, m, s) {
			res.add(node{s: *s, pending: n.pending, blind: n.blind, trail: trailOf(head)})
			depth = max(depth, it.depth)
		}
		c.Next(s, func(a model.Action, t *model.State) bool {
			sr.msgs = c.AppendWire(sr.msgs[:0], a, s)
			if !delivered(sr.msgs, n) {
				return false
			}
			ms := appendMarks(nil, sr.msgs, c, a, s, t, sr.log)
			i := firstOn(ms, ch)
			if i >= 0 && m.matches(ms[i]) {
				pending := n.pending
				if blind {
					pending = dropChannel(pending, ch) // sent before m, missed
				}
				rest := append(slices.Clone(pending), ms[:i]...)
				rest = append(rest, ms[i+1:]...)
				res.add(node{s: *t, pending: rest, blind: n.blind &^ bit, trail: extend(head, t)})
				depth = max(depth, it.depth)
				return false
			}
			// Unseen: a step that writes a log line never is, and one whose
			// message on m's channel would come before m is no way to m
			// (unless the capture may miss it).
			if i >= 0 && !blind || hasLogMark(ms) {
				return false
			}
			if it.depth >= sr.maxHidden || len(seen.nodes) >= sr.maxStates {
				hit = true
				return false
			}
			next := node{s: *t, pending: n.pending, blind: n.blind}
			if len(ms) > 0 {
				next.pending = append(slices.Clone(n.pending), ms...)
			}
			if seen.add(next) {
				items = append(items, item{next, it.depth + 1, head})
			}
			return false
		})
	}
	return res.nodes, depth, hit
}

// closed reports whether every node has each aborted request let go and
// no log line left to show: no aborted request is waiting, as far as
// replay knows. released says the same of every request.
func (sr *searcher) closed(nodes []node) bool {
	return every(nodes, func(n *node) bool { return !hasLogMark(n.pending) && Settled(sr.c, &n.s) })
}

func (sr *searcher) released(nodes []node) bool {
	return every(nodes, func(n *node) bool { return !hasLogMark(n.pending) && released(sr.c, &n.s) })
}

func every(nodes []node, f func(*node) bool) bool {
	if len(nodes) == 0 {
		return false
	}
	for i := range nodes {
		if !f(&nodes[i]) {
			return false
		}
	}
	return true
}

// past returns every state of the instance reachable from its initial
// states by any steps, with trails: what a room whose life began before
// both the capture and the log may be in when it is first seen. complete
// is false when maxStates cut it.
func (sr *searcher) past() (nodes []node, complete bool) {
	var ns nodeSet
	sr.c.Inits(func(s *model.State) bool {
		ns.add(node{s: *s, trail: &trail{s: *s}})
		return false
	})
	complete = true
	for i := 0; i < len(ns.nodes); i++ {
		n := ns.nodes[i]
		sr.c.Next(&n.s, func(_ model.Action, t *model.State) bool {
			if len(ns.nodes) >= sr.maxStates {
				complete = false
				return true
			}
			ns.add(node{s: *t, trail: &trail{*t, n.trail}})
			return false
		})
	}
	return ns.nodes, complete
}

// completion is the graph of the unseen steps that may follow a set of
// states (every step but the environment's sends: decode aborted, it
// sends nothing more; messages still in flight may arrive unseen): the
// states they reach, breadth first from the start states (each once),
// each with its parent in that search (-1 for a start state) and its
// successors.
type completion struct {
	states []node
	parent []int
	succ   [][]int
}

// complete explores the completion of nodes' states; complete is false
// when maxStates (or limit, if smaller and positive) cut it.
func (sr *searcher) complete(nodes []node, limit int) (g completion, complete bool) {
	c := sr.c
	bound := sr.maxStates
	if limit > 0 && limit < bound {
		bound = limit
	}
	var ss nodeSet
	for _, n := range nodes {
		if ss.add(node{s: n.s}) {
			g.parent = append(g.parent, -1)
		}
	}
	complete = true
	for i := 0; i < len(ss.nodes); i++ {
		s := ss.nodes[i].s
		var out []int
		c.Next(&s, func(a model.Action, t *model.State) bool {
			if environmentSend(a) {
				return false
			}
			n := node{s: *t}
			if j := ss.find(n.hash(), &n); j >= 0 {
				out = append(out, j)
				return false
			}
			if len(ss.nodes) >= bound {
				complete = false
				return true
			}
			ss.add(n)
			g.parent = append(g.parent, i)
			out = append(out, len(ss.nodes)-1)
			return false
		})
		g.succ = append(g.succ, out)
	}
	g.states = ss.nodes
	return g, complete
}

// path returns the states from state i's start state to it.
func (g *completion) path(i int) []model.State {
	var out []model.State
	for k := i; k >= 0; k = g.parent[k] {
		out = append(out, g.states[k].s)
	}
	slices.Reverse(out)
	return out
}

// pin explores every completion of the unseen steps from nodes and
// returns a behaviour from one of them to a state from which no
// completion lets an aborted request go, or nil; complete is false when
// maxStates cut the exploration.
func (sr *searcher) pin(nodes []node) (path []model.State, complete bool) {
	g, complete := sr.complete(nodes, 0)
	if !complete {
		return nil, false
	}
	doomed := g.doomed(sr.c)
	for i := range g.states { // breadth first: the first is a shortest
		if doomed[i] {
			return g.path(i), true
		}
	}
	return nil, true
}

// doomed marks the states of g from which no completion lets every
// aborted request go (Settled): backward from the settled states, which
// states can reach one; the others are doomed.
func (g *completion) doomed(c *model.Config) []bool {
	pred := make([][]int, len(g.states))
	for i, out := range g.succ {
		for _, j := range out {
			pred[j] = append(pred[j], i)
		}
	}
	can := make([]bool, len(g.states))
	var stack []int
	for i := range g.states {
		if Settled(c, &g.states[i].s) {
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
	for i := range can {
		can[i] = !can[i]
	}
	return can
}

// union returns the nodes of a and then those of b not in a.
func union(a, b []node) []node {
	if len(a) == 0 {
		return b
	}
	var ns nodeSet
	for _, n := range a {
		ns.add(n)
	}
	for _, n := range b {
		ns.add(n)
	}
	return ns.nodes
}

// canonical sorts nodes by hash: equal sets get equal orders unless two
// of their nodes' hashes collide, which at worst interns one set twice.
func canonical(nodes []node) (sorted []node, hashes []uint64) {
	type hn struct {
		h uint64
		n node
	}
	hs := make([]hn, len(nodes))
	for i := range nodes {
		hs[i] = hn{nodes[i].hash(), nodes[i]}
	}
	slices.SortFunc(hs, func(a, b hn) int { return cmp.Compare(a.h, b.h) })
	sorted = make([]node, len(hs))
	hashes = make([]uint64, len(hs))
	for i := range hs {
		sorted[i], hashes[i] = hs[i].n, hs[i].h
	}
	return sorted, hashes
}

// environmentSend reports whether step a from s is the environment's and
// puts a message on the wire (@action: environment, a @wire send).
func environmentSend(a model.Action) bool {
	if !model.Actions[a.ID].Environment() {
		return false
	}
	for _, w := range model.Actions[a.ID].Wire {
		if w.Event == "send" {
			return true
		}
	}
	return false
}
