package tour

import "slices"

// Targets are goals for random cases: groups of states, and for each
// group every node's distance to it. A random case that first draws a
// group, then only steps where the group stays within reach, gets there
// about as often as it draws it, however many more ways the graph has to
// go elsewhere (decode's abort is enabled from the first step: drawn
// uniformly among enabled steps, nearly every case aborts).
type Targets struct {
	g *Graph
	// Names are the groups' keys, sorted.
	Names []string
	dist  [][]int32 // per group, per node: steps to a state of the group (-1: none)
}

// NewTargets groups g's states by key (a state with key "" is in no
// group); nil if no state is in one.
func NewTargets(g *Graph, key func(n int32) string) *Targets {
	group := map[string][]int32{}
	for n := range g.States {
		if k := key(int32(n)); k != "" {
			group[k] = append(group[k], int32(n))
		}
	}
	if len(group) == 0 {
		return nil
	}
	t := &Targets{g: g}
	for k := range group {
		t.Names = append(t.Names, k)
	}
	slices.Sort(t.Names)
	// Incoming edges, for breadth-first search backwards.
	inFirst := make([]int32, len(g.States)+1)
	for _, ed := range g.Edges {
		inFirst[ed.To+1]++
	}
	for n := range g.States {
		inFirst[n+1] += inFirst[n]
	}
	in := make([]int32, len(g.Edges))
	fill := slices.Clone(inFirst)
	for _, ed := range g.Edges {
		in[fill[ed.To]] = ed.From
		fill[ed.To]++
	}
	for _, k := range t.Names {
		d := make([]int32, len(g.States))
		for i := range d {
			d[i] = -1
		}
		queue := group[k]
		for _, n := range queue {
			d[n] = 0
		}
		for i := 0; i < len(queue); i++ {
			n := queue[i]
			for _, m := range in[inFirst[n]:inFirst[n+1]] {
				if d[m] < 0 {
					d[m] = d[n] + 1
					queue = append(queue, m)
				}
			}
		}
		t.dist = append(t.dist, d)
	}
	return t
}

// Toward appends to buf the edges out of node n after which a state of
// group k can be reached within left more steps, or, if none can, those
// on a shortest way there (none if the group is out of reach).
func (t *Targets) Toward(k int, n int32, left int, buf []int32) []int32 {
	d := t.dist[k]
	lo, hi := t.g.Out(n)
	best := int32(-1)
	for e := lo; e < hi; e++ {
		if x := d[t.g.Edges[e].To]; x >= 0 && (best < 0 || x < best) {
			best = x
		}
	}
	if best < 0 {
		return buf
	}
	limit := max(int32(left-1), best)
	for e := lo; e < hi; e++ {
		if x := d[t.g.Edges[e].To]; x >= 0 && x <= limit {
			buf = append(buf, e)
		}
	}
	return buf
}

// Reachable reports whether a state of group k can be reached from node
// n.
func (t *Targets) Reachable(k int, n int32) bool { return t.dist[k][n] >= 0 }

// Distance is the number of steps from node n to the nearest state of
// group k (-1: out of reach).
func (t *Targets) Distance(k int, n int32) int { return int(t.dist[k][n]) }
