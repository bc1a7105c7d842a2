package tour

import "github.com/roomspec/roomspec/spec/model"

// Coverage records what a run took of a graph: the edges (each taken
// where the implementation's observed successor was the edge's target),
// the states it was seen in, and the edges a tour gave up on.
type Coverage struct {
	Graph    *Graph
	taken    []uint32
	seen     []bool
	unforced []Unforced
}

// Unforced is an edge a tour gave up on, and why: its action is
// nondeterministic there and the implementation, asked for it MaxTries
// times, always took another successor; or the walk could not follow the
// implementation there; or the edge can only be reached through edges
// given up.
type Unforced struct {
	Edge int32
	Why  string
}

// NewCoverage returns an empty coverage of g.
func NewCoverage(g *Graph) *Coverage {
	return &Coverage{Graph: g, taken: make([]uint32, len(g.Edges)), seen: make([]bool, len(g.States))}
}

// Take records that edge e was taken.
func (c *Coverage) Take(e int32) {
	c.taken[e]++
	ed := &c.Graph.Edges[e]
	c.seen[ed.From], c.seen[ed.To] = true, true
}

// See records that the implementation was seen in state n.
func (c *Coverage) See(n int32) { c.seen[n] = true }

// Taken reports how often edge e was taken.
func (c *Coverage) Taken(e int32) int { return int(c.taken[e]) }

// Seen reports whether the implementation was seen in state n.
func (c *Coverage) Seen(n int32) bool { return c.seen[n] }

// Edges counts the edges taken and the edges of the graph.
func (c *Coverage) Edges() (taken, total int) {
	for _, n := range c.taken {
		if n > 0 {
			taken++
		}
	}
	return taken, len(c.taken)
}

// States counts the states seen and the states of the graph.
func (c *Coverage) States() (seen, total int) {
	for _, s := range c.seen {
		if s {
			seen++
		}
	}
	return seen, len(c.seen)
}

// Unforced lists the edges a tour gave up on.
func (c *Coverage) Unforced() []Unforced { return c.unforced }

// ActionCount is the coverage of one action of the spec: its edges taken
// and its edges in the graph.
type ActionCount struct {
	Name         string
	Taken, Total int
}

// ByAction counts edges taken and edges of the graph per action, in the
// order of model.Actions (actions with no edge in the graph included:
// an action the configuration never enables shows as 0 of 0).
func (c *Coverage) ByAction() []ActionCount {
	out := make([]ActionCount, len(model.Actions))
	for i := range out {
		out[i].Name = model.Actions[i].Name
	}
	for e, ed := range c.Graph.Edges {
		ac := &out[ed.Action.ID]
		ac.Total++
		if c.taken[e] > 0 {
			ac.Taken++
		}
	}
	return out
}
