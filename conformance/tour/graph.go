// Package tour derives deterministic test cases from the reachable state
// graph of a compiled configuration (spec/model): a walk that takes every
// edge of the graph (a transition tour, cut into cases by resets of the
// implementation), the coverage of a run (edges, actions, states), and
// targets that steer random cases toward each kind of ending the graph
// has. It knows the compiled model's states and actions, and nothing of
// what they mean: Room.tla's actions and variables are not named here.
package tour

import (
	"errors"
	"fmt"
	"slices"

	"github.com/roomspec/roomspec/spec/model"
)

// DefaultMaxStates bounds the graph Build explores unless told otherwise:
// every bundled configuration has fewer than 50,000 reachable states.
const DefaultMaxStates = 200_000

// ErrTooLarge says the reachable graph has more states than the bound.
var ErrTooLarge = errors.New("tour: reachable state graph larger than the bound")

// Edge is a transition of the graph: an action instance from one state
// (node) to one of its successors.
type Edge struct {
	From, To int32
	Action   model.Action
}

// Graph is the reachable state graph of a configuration, explored
// breadth-first from its initial states.
type Graph struct {
	Config *model.Config
	// States are the reachable states; a node is an index into States.
	States []model.State
	// Edges are grouped by From, in the order Next yields them; an edge
	// is an index into Edges.
	Edges []Edge
	// Inits are the initial states' nodes.
	Inits []int32
	first []int32            // Edges[first[n]:first[n+1]] leave node n
	index map[uint64][]int32 // State.Hash -> nodes
	// depth is each node's distance from an initial state, parent the
	// edge reaching it on a shortest path (-1 for an initial state).
	depth, parent []int32
}

// Build explores the states reachable from c's initial states, at most
// maxStates of them (DefaultMaxStates if not positive).
func Build(c *model.Config, maxStates int) (g *Graph, err error) {
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	defer func() {
		// The compiled model raises its run-time errors (a CASE with no
		// true arm, overflow) as panics.
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("tour: compiled model: %v", r)
		}
	}()
	g = &Graph{Config: c, index: map[uint64][]int32{}}
	add := func(s *model.State, from int32, e int32) (int32, bool) {
		if n, ok := g.Node(s); ok {
			return n, true
		}
		if len(g.States) >= maxStates {
			return -1, false
		}
		n := int32(len(g.States))
		g.States = append(g.States, *s)
		g.index[s.Hash()] = append(g.index[s.Hash()], n)
		d := int32(0)
		if from >= 0 {
			d = g.depth[from] + 1
		}
		g.depth, g.parent = append(g.depth, d), append(g.parent, e)
		return n, true
	}
	tooLarge := false
	c.Inits(func(s *model.State) bool {
		n, ok := add(s, -1, -1)
		if !ok {
			tooLarge = true
			return true
		}
		g.Inits = append(g.Inits, n)
		return false
	})
	for n := int32(0); int(n) < len(g.States) && !tooLarge; n++ {
		g.first = append(g.first, int32(len(g.Edges)))
		s := g.States[n]
		c.Next(&s, func(a model.Action, t *model.State) bool {
			to, ok := add(t, n, int32(len(g.Edges)))
			if !ok {
				tooLarge = true
				return true
			}
			g.Edges = append(g.Edges, Edge{From: n, To: to, Action: a})
			return false
		})
	}
	if tooLarge {
		return nil, fmt.Errorf("%w (%d states)", ErrTooLarge, maxStates)
	}
	g.first = append(g.first, int32(len(g.Edges)))
	return g, nil
}

// Node returns the node of state s, if s is reachable.
func (g *Graph) Node(s *model.State) (int32, bool) {
	for _, n := range g.index[s.Hash()] {
		if g.States[n].Equal(s) {
			return n, true
		}
	}
	return -1, false
}

// Out returns the edges leaving node n: Edges[lo:hi].
func (g *Graph) Out(n int32) (lo, hi int32) { return g.first[n], g.first[n+1] }

// Find returns the edge from node from under action a to state t, if the
// graph has it: where an action has several successors, the state the
// implementation reached says which edge it took.
func (g *Graph) Find(from int32, a model.Action, t *model.State) (int32, bool) {
	lo, hi := g.Out(from)
	for e := lo; e < hi; e++ {
		if ed := &g.Edges[e]; ed.Action == a && g.States[ed.To].Equal(t) {
			return e, true
		}
	}
	return -1, false
}

// Ways counts the edges from node from under action a: more than one
// where the action is nondeterministic there.
func (g *Graph) Ways(from int32, a model.Action) int {
	lo, hi := g.Out(from)
	n := 0
	for e := lo; e < hi; e++ {
		if g.Edges[e].Action == a {
			n++
		}
	}
	return n
}

// AtRest reports whether the implementation has nothing left to do in
// state n: every action enabled there is the environment's (@action
// environment), or none is.
func (g *Graph) AtRest(n int32) bool {
	lo, hi := g.Out(n)
	for e := lo; e < hi; e++ {
		if !model.Actions[g.Edges[e].Action.ID].Environment() {
			return false
		}
	}
	return true
}

// Depth is node n's distance from an initial state.
func (g *Graph) Depth(n int32) int { return int(g.depth[n]) }

// PathTo returns the edges of a shortest path from an initial state to
// node n, and that initial state.
func (g *Graph) PathTo(n int32) (init int32, path []int32) { return g.pathOver(g.parent, n) }

// pathOver follows parent (the edge reaching each node on a shortest
// path, -1 at its start) back from node n.
func (g *Graph) pathOver(parent []int32, n int32) (start int32, path []int32) {
	for parent[n] >= 0 {
		e := parent[n]
		path = append(path, e)
		n = g.Edges[e].From
	}
	slices.Reverse(path)
	return n, path
}

// EdgeString prints edge e as its action, with the state it leaves
// by its distance from the initial state.
func (g *Graph) EdgeString(e int32) string {
	ed := g.Edges[e]
	return fmt.Sprintf("%s at depth %d (state %d -> %d)", g.Config.ActionString(ed.Action), g.depth[ed.From], ed.From, ed.To)
}
