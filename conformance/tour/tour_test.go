package tour

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/bundled"
	"github.com/roomspec/roomspec/spec/compiled"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
)

func load(t testing.TB, variant string) *model.Config {
	t.Helper()
	conf, err := bundled.Config(variant)
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.FromCfg(conf)
	if err != nil {
		t.Fatal(err)
	}
	c.Name = variant
	return c
}

// walk runs a planner on g with an implementation that always takes the
// edge asked for (the spec itself): the steps and resets of the tour.
func walk(t testing.TB, g *Graph, resetCost int) (steps, resets int, cov *Coverage) {
	t.Helper()
	cov = NewCoverage(g)
	p := NewPlanner(cov, resetCost)
	cur := int32(-1)
	for !p.Done() {
		if cur < 0 {
			cur, resets = g.Inits[0], resets+1
			cov.See(cur)
		}
		e, reset := p.Next(cur)
		if reset {
			cur = -1
			continue
		}
		if g.Edges[e].From != cur {
			t.Fatalf("asked for edge %d from %d, at %d", e, g.Edges[e].From, cur)
		}
		p.Took(e, e)
		cur = g.Edges[e].To
		steps++
	}
	return steps, resets, cov
}

// The graph is the model checker's: under every bundled configuration
// small enough to check in a moment (the two room-reuse ones have ~40,000
// states), as many states as tla/check's graph, and as many edges of each
// action.
func TestGraphIsTheCheckers(t *testing.T) {
	for _, v := range spec.Variants() {
		c := load(t, v)
		g, err := Build(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.States) > 1000 {
			continue
		}
		m, _, err := bundled.Variant(v)
		if err != nil {
			t.Fatal(err)
		}
		r := check.Check(context.Background(), m, check.Options{All: true, Graph: true, Successors: compiled.New(c)})
		if r.Graph == nil || len(r.Graph.States) != len(g.States) {
			t.Errorf("%s: %d states, the checker's graph has %v", v, len(g.States), r.Graph)
			continue
		}
		want, got := map[string]int{}, map[string]int{}
		for _, e := range r.Graph.Edges {
			want[e.Action.Name]++
		}
		for _, e := range g.Edges {
			got[model.Actions[e.Action.ID].Name]++
		}
		if !maps.Equal(want, got) {
			t.Errorf("%s: edges per action %v, the checker's %v", v, got, want)
		}
	}
}

// On every bundled configuration the tour takes every edge and sees
// every state; where the graph is small enough to compute the optimum
// (the fewest steps + resets that take every edge, a min-cost flow), the
// tour's cost is within 5% of it.
func TestTourTakesEveryEdge(t *testing.T) {
	for _, v := range spec.Variants() {
		g, err := Build(load(t, v), 0)
		if err != nil {
			t.Fatal(err)
		}
		steps, resets, cov := walk(t, g, DefaultResetCost)
		if taken, total := cov.Edges(); taken != total {
			t.Errorf("%s: %d of %d edges taken", v, taken, total)
		}
		if seen, total := cov.States(); seen != total {
			t.Errorf("%s: %d of %d states seen", v, seen, total)
		}
		cost, floor := steps+DefaultResetCost*resets, -1
		if len(g.States) <= 1000 {
			if floor = optimum(g, DefaultResetCost); float64(cost) > 1.05*float64(floor) {
				t.Errorf("%s: the tour costs %d (steps + %d x resets), the optimum %d", v, cost, DefaultResetCost, floor)
			}
		}
		t.Logf("%-24s %6d states %7d edges: %7d steps, %6d resets; cost %7d, optimum %d", v, len(g.States), len(g.Edges),
			steps, resets, cost, floor)
	}
}

func TestBuildBound(t *testing.T) {
	c := load(t, "upstream")
	if _, err := Build(c, 10); err == nil {
		t.Fatal("a graph of more than 10 states built under a bound of 10")
	}
}

// handGraph builds a graph from edges between nodes 0..n-1 (0 initial),
// without states: for the planner, which never reads them.
func handGraph(n int, edges []Edge) *Graph {
	g := &Graph{States: make([]model.State, n), Inits: []int32{0}, depth: make([]int32, n), parent: make([]int32, n)}
	slices.SortStableFunc(edges, func(a, b Edge) int { return int(a.From - b.From) })
	g.Edges = edges
	g.first = make([]int32, n+1)
	for _, ed := range edges {
		g.first[ed.From+1]++
	}
	for i := range n {
		g.first[i+1] += g.first[i]
	}
	for i := range g.depth {
		g.depth[i], g.parent[i] = -1, -1
	}
	g.depth[0] = 0
	for q := []int32{0}; len(q) > 0; q = q[1:] {
		lo, hi := g.Out(q[0])
		for e := lo; e < hi; e++ {
			if to := g.Edges[e].To; g.depth[to] < 0 {
				g.depth[to], g.parent[to] = g.depth[q[0]]+1, e
				q = append(q, to)
			}
		}
	}
	return g
}

// A nondeterministic action (one action instance, two successors): the
// implementation decides which edge it takes. The planner asks again for
// the edge not taken, and gives it up after MaxTries, saying so, when the
// implementation never takes it, with the edges only it leads to; when
// the implementation alternates, both are taken.
func TestPlannerNondeterministic(t *testing.T) {
	a := model.Action{ID: 0}
	b := model.Action{ID: 1}
	// 0 -a-> 1, 0 -a-> 2 (the same action), 1 -b-> 3, 2 -b-> 3.
	build := func() *Graph {
		return handGraph(4, []Edge{{0, 1, a}, {0, 2, a}, {1, 3, b}, {2, 3, b}})
	}
	for _, tc := range []struct {
		name     string
		resolve  func(asked int) int32 // the successor of a from 0
		unforced int
	}{
		{"always the first", func(int) int32 { return 1 }, 2},
		{"alternating", func(asked int) int32 { return int32(1 + asked%2) }, 0},
	} {
		g := build()
		cov := NewCoverage(g)
		p := NewPlanner(cov, DefaultResetCost)
		cur, asked, steps := int32(-1), 0, 0
		for !p.Done() && steps < 100 {
			if cur < 0 {
				cur = 0
			}
			e, reset := p.Next(cur)
			if reset {
				cur = -1
				continue
			}
			got := e
			if g.Edges[e].From == 0 {
				to := tc.resolve(asked)
				asked++
				got = map[int32]int32{1: 0, 2: 1}[to]
			}
			p.Took(e, got)
			cur = g.Edges[got].To
			steps++
		}
		if !p.Done() {
			t.Fatalf("%s: the planner does not finish", tc.name)
		}
		if len(cov.Unforced()) != tc.unforced {
			t.Errorf("%s: %d edges given up, want %d", tc.name, len(cov.Unforced()), tc.unforced)
		}
		taken, total := cov.Edges()
		if taken+tc.unforced != total {
			t.Errorf("%s: %d of %d edges taken, %d given up", tc.name, taken, total, tc.unforced)
		}
		if tc.unforced > 0 {
			u := cov.Unforced()
			if u[0].Edge != 1 || !strings.HasPrefix(u[0].Why, "nondeterministic: asked for 4 times") ||
				u[1].Edge != 3 || u[1].Why != "reached only through edges given up" {
				t.Errorf("%s: given up: %+v", tc.name, u)
			}
		}
	}
}
