package tour

import (
	"fmt"
	"slices"
)

// DefaultResetCost is what a reset of the implementation is worth in
// steps when the planner weighs going on against starting over.
const DefaultResetCost = 2

// MaxTries is how often the planner asks for an edge whose action the
// implementation resolves to another successor before giving it up.
const MaxTries = 4

// Planner chooses, step by step, how the implementation walks the graph
// so that it takes every edge: from the state it is in, an edge not yet
// taken if one leaves it, else the nearest state with one (breadth-first
// search), unless a reset and a shortest path from the initial state get
// there for fewer steps (a reset counts as ResetCost steps). It is
// online: it asks for an edge, and is told which edge the implementation
// took (Took), so a nondeterministic action the implementation resolves
// otherwise is asked for again later, at most MaxTries times.
type Planner struct {
	g         *Graph
	cov       *Coverage
	resetCost int
	left      []int32 // edges out of each node still to take
	pending   int     // edges still to take
	skipped   []bool
	tries     []uint8
	route     []int32   // planned edges, next first
	byDepth   [][]int32 // nodes that had edges to take, by depth (pruned lazily)
	minDepth  int
	// depth and parent are the graph's, over the edges not given up.
	depth, parent []int32
	// breadth-first search's marks (a generation per search), queue and
	// the edge that reached each queued node
	mark          []uint32
	gen           uint32
	queue, by, up []int32
}

// NewPlanner plans a tour of the edges of cov's graph not yet taken; a
// reset counts as resetCost steps (DefaultResetCost if negative).
func NewPlanner(cov *Coverage, resetCost int) *Planner {
	g := cov.Graph
	if resetCost < 0 {
		resetCost = DefaultResetCost
	}
	p := &Planner{g: g, cov: cov, resetCost: resetCost, left: make([]int32, len(g.States)),
		skipped: make([]bool, len(g.Edges)), tries: make([]uint8, len(g.Edges)), mark: make([]uint32, len(g.States)),
		depth: g.depth, parent: g.parent}
	for e, ed := range g.Edges {
		if cov.taken[e] == 0 {
			p.left[ed.From]++
			p.pending++
		}
	}
	p.bucket()
	return p
}

// bucket files the nodes with edges to take by depth.
func (p *Planner) bucket() {
	p.byDepth, p.minDepth = p.byDepth[:0], 0
	for n, l := range p.left {
		if l > 0 {
			d := p.depth[n]
			for len(p.byDepth) <= int(d) {
				p.byDepth = append(p.byDepth, nil)
			}
			p.byDepth[d] = append(p.byDepth[d], int32(n))
		}
	}
}

// Done reports whether every edge is taken or given up.
func (p *Planner) Done() bool { return p.pending == 0 }

// Pending counts the edges still to take.
func (p *Planner) Pending() int { return p.pending }

// Next returns the edge to take from node cur, or reset: start over from
// an initial state. It must not be called once Done.
func (p *Planner) Next(cur int32) (edge int32, reset bool) {
	if len(p.route) > 0 && p.g.Edges[p.route[0]].From == cur {
		e := p.route[0]
		p.route = p.route[1:]
		return e, false
	}
	p.route = p.route[:0]
	if p.left[cur] > 0 {
		return p.pick(cur), false
	}
	target := p.shallowest()
	limit := p.resetCost + int(p.depth[target])
	if p.depth[cur] == 0 {
		// Just reset: the shortest path from here, if it starts here;
		// else whatever is nearest (a reset would not get closer).
		if init, path := p.pathTo(target); init == cur {
			p.route = append(p.route, path[1:]...)
			return path[0], false
		}
		limit = len(p.g.States)
	}
	if path := p.search(cur, limit); path != nil {
		p.route = append(p.route, path[1:]...)
		return path[0], false
	}
	return -1, true
}

// Took records that the implementation, asked for edge want (-1: none,
// e.g. a step of a random case), took edge got (-1: a state outside the
// graph). It reports whether got was an edge not taken before.
func (p *Planner) Took(want, got int32) bool {
	fresh := false
	if got >= 0 {
		if p.cov.taken[got] == 0 && !p.skipped[got] {
			p.done(got)
			fresh = true
		}
		p.cov.Take(got)
	}
	if want >= 0 && got != want {
		p.route = p.route[:0]
		if !p.skipped[want] {
			if p.tries[want]++; p.tries[want] >= MaxTries {
				p.GiveUp(want, fmt.Sprintf("nondeterministic: asked for %d times, the implementation took another successor", MaxTries))
			}
		}
	}
	return fresh
}

// GiveUp stops asking for edge e (why says why, for the coverage), and
// for the edges only it led to.
func (p *Planner) GiveUp(e int32, why string) {
	if p.skipped[e] {
		return
	}
	p.skip(e, why)
	p.reroute()
}

func (p *Planner) skip(e int32, why string) {
	if p.cov.taken[e] == 0 {
		p.done(e)
		p.cov.unforced = append(p.cov.unforced, Unforced{Edge: e, Why: why})
	}
	p.skipped[e] = true
}

// reroute computes depths and shortest paths again over the edges not
// given up, and gives up the edges of the nodes they no longer reach.
func (p *Planner) reroute() {
	g := p.g
	p.depth, p.parent = make([]int32, len(g.States)), make([]int32, len(g.States))
	for n := range p.depth {
		p.depth[n], p.parent[n] = -1, -1
	}
	queue := slices.Clone(g.Inits)
	for _, n := range queue {
		p.depth[n] = 0
	}
	for i := 0; i < len(queue); i++ {
		lo, hi := g.Out(queue[i])
		for e := lo; e < hi; e++ {
			if to := g.Edges[e].To; !p.skipped[e] && p.depth[to] < 0 {
				p.depth[to], p.parent[to] = p.depth[queue[i]]+1, e
				queue = append(queue, to)
			}
		}
	}
	for n := range p.depth {
		if p.depth[n] >= 0 || p.left[n] == 0 {
			continue
		}
		lo, hi := g.Out(int32(n))
		for e := lo; e < hi; e++ {
			if !p.skipped[e] {
				p.skip(e, "reached only through edges given up")
			}
		}
	}
	p.route = p.route[:0]
	p.bucket()
}

// pathTo returns the edges of a shortest path to node n from an initial
// state, over the edges not given up, and that initial state.
func (p *Planner) pathTo(n int32) (init int32, path []int32) { return p.g.pathOver(p.parent, n) }

// done counts edge e as no longer to take.
func (p *Planner) done(e int32) {
	p.left[p.g.Edges[e].From]--
	p.pending--
}

// pick chooses an edge to take out of cur: one whose target has edges to
// take too, so that the walk goes on without a detour, else the first.
func (p *Planner) pick(cur int32) int32 {
	lo, hi := p.g.Out(cur)
	best := int32(-1)
	for e := lo; e < hi; e++ {
		if p.cov.taken[e] > 0 || p.skipped[e] {
			continue
		}
		if p.left[p.g.Edges[e].To] > 0 {
			return e
		}
		if best < 0 {
			best = e
		}
	}
	return best
}

// shallowest returns a node with edges to take nearest to the initial
// states.
func (p *Planner) shallowest() int32 {
	for ; p.minDepth < len(p.byDepth); p.minDepth++ {
		b := p.byDepth[p.minDepth]
		for len(b) > 0 && p.left[b[len(b)-1]] == 0 {
			b = b[:len(b)-1]
		}
		p.byDepth[p.minDepth] = b
		if len(b) > 0 {
			return b[len(b)-1]
		}
	}
	panic("tour: no edge left to take") // Next is not called once Done
}

// search returns the edges of a shortest path from cur to a node with
// edges to take, at most limit of them, or nil.
func (p *Planner) search(cur int32, limit int) []int32 {
	p.gen++
	p.queue, p.by, p.up = append(p.queue[:0], cur), append(p.by[:0], -1), append(p.up[:0], -1)
	p.mark[cur] = p.gen
	for i, depthEnd, depth := 0, 1, 0; i < len(p.queue); i++ {
		if i == depthEnd {
			depth++
			depthEnd = len(p.queue)
		}
		if depth >= limit {
			break
		}
		lo, hi := p.g.Out(p.queue[i])
		for e := lo; e < hi; e++ {
			to := p.g.Edges[e].To
			if p.mark[to] == p.gen || p.skipped[e] {
				continue
			}
			p.mark[to] = p.gen
			p.queue, p.by, p.up = append(p.queue, to), append(p.by, e), append(p.up, int32(i))
			if p.left[to] > 0 {
				return p.pathFrom(len(p.queue) - 1)
			}
		}
	}
	return nil
}

// pathFrom returns the edges that reached queue entry i.
func (p *Planner) pathFrom(i int) []int32 {
	var path []int32
	for ; p.by[i] >= 0; i = int(p.up[i]) {
		path = append(path, p.by[i])
	}
	for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
		path[a], path[b] = path[b], path[a]
	}
	return path
}
