package tour

// optimum is the fewest steps + resetCost x resets of any set of walks
// from g's (single) initial state that together take every edge of g, an
// acyclic graph: the floor the planner is measured against.
//
// Taking every edge once leaves each node n with a balance b(n) = in(n) -
// out(n) of walks ending there (b < 0: walks that must arrive from
// elsewhere). What is missing is moved along shortest paths: from a node
// with walks ending (b > 0, free) or from a reset (resetCost, then the
// shortest path from the initial state), to each node short of walks.
// That is a transportation problem; it is solved exactly as a min-cost
// flow by successive shortest paths (Bellman-Ford with a queue).
func optimum(g *Graph, resetCost int) int {
	n := len(g.States)
	bal := make([]int, n)
	for _, ed := range g.Edges {
		bal[ed.To]++
		bal[ed.From]--
	}
	root := int(g.Inits[0])
	total := len(g.Edges) + resetCost*(-bal[root])
	bal[root] = 0
	dist := func(from int) []int {
		d := make([]int, n)
		for i := range d {
			d[i] = -1
		}
		d[from] = 0
		for q := []int{from}; len(q) > 0; q = q[1:] {
			lo, hi := g.Out(int32(q[0]))
			for e := lo; e < hi; e++ {
				if to := int(g.Edges[e].To); d[to] < 0 {
					d[to] = d[q[0]] + 1
					q = append(q, to)
				}
			}
		}
		return d
	}
	var sources, sinks []int
	demand := 0
	for v, b := range bal {
		if b > 0 {
			sources = append(sources, v)
		} else if b < 0 {
			sinks = append(sinks, v)
			demand -= b
		}
	}
	// Network: 0 source, 1 sink, 2.. the sources then the reset, then
	// the sinks.
	type arc struct{ to, cap, cost, rev int }
	nodes := 2 + len(sources) + 1 + len(sinks)
	adj := make([][]arc, nodes)
	add := func(u, v, c, w int) {
		adj[u] = append(adj[u], arc{v, c, w, len(adj[v])})
		adj[v] = append(adj[v], arc{u, 0, -w, len(adj[u]) - 1})
	}
	sinkAt := 2 + len(sources) + 1
	for i, s := range sources {
		add(0, 2+i, bal[s], 0)
		d := dist(s)
		for j, t := range sinks {
			if d[t] >= 0 {
				add(2+i, sinkAt+j, demand, d[t])
			}
		}
	}
	reset := 2 + len(sources)
	add(0, reset, demand, 0)
	d := dist(root)
	for j, t := range sinks {
		add(reset, sinkAt+j, demand, resetCost+d[t])
		add(sinkAt+j, 1, -bal[t], 0)
	}
	const inf = 1 << 40
	for moved := 0; moved < demand; {
		cost := make([]int, nodes)
		prevNode, prevArc := make([]int, nodes), make([]int, nodes)
		for i := range cost {
			cost[i] = inf
		}
		cost[0] = 0
		queued := make([]bool, nodes)
		for q := []int{0}; len(q) > 0; q = q[1:] {
			u := q[0]
			queued[u] = false
			for k, a := range adj[u] {
				if a.cap > 0 && cost[u]+a.cost < cost[a.to] {
					cost[a.to], prevNode[a.to], prevArc[a.to] = cost[u]+a.cost, u, k
					if !queued[a.to] {
						queued[a.to] = true
						q = append(q, a.to)
					}
				}
			}
		}
		f := demand - moved
		for v := 1; v != 0; v = prevNode[v] {
			f = min(f, adj[prevNode[v]][prevArc[v]].cap)
		}
		for v := 1; v != 0; v = prevNode[v] {
			a := &adj[prevNode[v]][prevArc[v]]
			a.cap -= f
			adj[v][a.rev].cap += f
		}
		moved += f
		total += f * cost[1]
	}
	return total
}
