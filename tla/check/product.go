package check

import (
	"fmt"
	"slices"

	"github.com/roomspec/roomspec/tla/eval"
)

// product is the product of the state graph and a tableau: node i stands
// for (state[i], tab[i]); its out-edges carry the edge index of the state
// graph (-1 for a stuttering step).
type product struct {
	state []int32
	tab   []int32
	off   []int32
	adj   []int32
	edge  []int32
}

func (lv *liveness) buildProduct(g *stateGraph, tb *tableau) *product {
	p := &product{}
	ids := map[[2]int32]int32{}
	holds := func(lits []*ltl, bits bitset) bool {
		for _, l := range lits {
			if bits.has(l.atom) == l.neg {
				return false
			}
		}
		return true
	}
	var queue []int32
	node := func(s, q int32) int32 {
		k := [2]int32{s, q}
		if id, ok := ids[k]; ok {
			return id
		}
		id := int32(len(p.state))
		ids[k] = id
		p.state = append(p.state, s)
		p.tab = append(p.tab, q)
		queue = append(queue, id)
		return id
	}
	for _, s := range g.init {
		for _, q := range tb.init {
			if holds(tb.nodes[q].stateLits, g.stateAtoms(s)) {
				node(s, int32(q))
			}
		}
	}
	type edge struct{ to, e int32 }
	var out [][]edge
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		s, q := p.state[id], p.tab[id]
		var es []edge
		step := func(t, e int32) {
			if !holds(tb.nodes[q].actionLits, g.edgeAtoms(s, e)) {
				return
			}
			for _, q2 := range tb.succ[q] {
				if holds(tb.nodes[q2].stateLits, g.stateAtoms(t)) {
					es = append(es, edge{node(t, int32(q2)), e})
				}
			}
		}
		step(s, -1)
		for e := g.off[s]; e < g.off[s+1]; e++ {
			step(g.adj[e], e)
		}
		for int(id) >= len(out) {
			out = append(out, nil)
		}
		out[id] = es
	}
	p.off = make([]int32, len(p.state)+1)
	for id := range p.state {
		var es []edge
		if id < len(out) {
			es = out[id]
		}
		for _, e := range es {
			p.adj = append(p.adj, e.to)
			p.edge = append(p.edge, e.e)
		}
		p.off[id+1] = int32(len(p.adj))
	}
	return p
}

// sccs returns the strongly connected components of the subgraph of p
// induced by the nodes with keep[i] (Tarjan's algorithm, iterative).
func (p *product) sccs(keep []bool) [][]int32 {
	n := len(p.state)
	index := make([]int32, n)
	low := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = -1
	}
	var stack []int32
	var comps [][]int32
	next := int32(0)
	type frame struct{ v, e int32 }
	for root := int32(0); root < int32(n); root++ {
		if !keep[root] || index[root] >= 0 {
			continue
		}
		call := []frame{{root, p.off[root]}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.e < p.off[v+1] {
				w := p.adj[f.e]
				f.e++
				if !keep[w] {
					continue
				}
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, p.off[w]})
				} else if onStack[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				u := call[len(call)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				var comp []int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				comps = append(comps, comp)
			}
		}
	}
	return comps
}

// fairComponents finds, among the nodes with keep, the strongly connected
// components in which the tableau accepts and every fairness condition
// holds; each is a place where a behaviour violating the property can loop.
func (lv *liveness) fairComponents(p *product, g *stateGraph, tb *tableau, keep []bool) [][]int32 {
	var found [][]int32
	for _, comp := range p.sccs(keep) {
		in := make(map[int32]bool, len(comp))
		for _, v := range comp {
			in[v] = true
		}
		// A component without an internal edge carries no infinite run.
		internal := false
		for _, v := range comp {
			for e := p.off[v]; e < p.off[v+1]; e++ {
				if in[p.adj[e]] {
					internal = true
					break
				}
			}
			if internal {
				break
			}
		}
		if !internal {
			continue
		}
		ok := true
		for _, acc := range tb.accept {
			if !slices.ContainsFunc(comp, func(v int32) bool { return acc[p.tab[v]] }) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		var badStrong []fairCond
		for _, f := range lv.fairness {
			taken := lv.edgeWith(p, g, comp, in, f.ang) >= 0
			if taken {
				continue
			}
			if f.strong {
				// SF holds in a component that never enables the action;
				// only the others must be cut out (and cutting makes the
				// node set smaller, so the recursion below ends).
				if slices.ContainsFunc(comp, func(v int32) bool { return g.stateAtoms(p.state[v]).has(f.en) }) {
					badStrong = append(badStrong, f)
				}
				continue
			}
			// WF: some state of the component disables the action.
			if !slices.ContainsFunc(comp, func(v int32) bool { return !g.stateAtoms(p.state[v]).has(f.en) }) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if len(badStrong) == 0 {
			found = append(found, comp)
			continue
		}
		// SF: the action is never taken here, so a fair run must stay where
		// it is disabled: drop the states that enable it and look again.
		sub := make([]bool, len(keep))
		any := false
		for _, v := range comp {
			enabled := false
			for _, f := range badStrong {
				if g.stateAtoms(p.state[v]).has(f.en) {
					enabled = true
				}
			}
			if !enabled {
				sub[v] = true
				any = true
			}
		}
		if any {
			found = append(found, lv.fairComponents(p, g, tb, sub)...)
		}
	}
	return found
}

// edgeWith returns the index in p.adj of an edge inside the component whose
// step satisfies action atom a, or -1.
func (lv *liveness) edgeWith(p *product, g *stateGraph, comp []int32, in map[int32]bool, a int) int32 {
	for _, v := range comp {
		for e := p.off[v]; e < p.off[v+1]; e++ {
			if in[p.adj[e]] && g.edgeAtoms(p.state[v], p.edge[e]).has(a) {
				return e
			}
		}
	}
	return -1
}

// check runs every property on the explored graph; the first violated one
// becomes the result, with a lasso-shaped counterexample.
func (lv *liveness) check(c *checker) error {
	g, err := lv.buildGraph(c)
	if err != nil {
		return err
	}
	if lv.warning != "" {
		c.res.Warnings = append(c.res.Warnings, lv.warning)
	}
	for i, f := range lv.props {
		tb := buildTableau(f, lv.atoms)
		p := lv.buildProduct(g, tb)
		keep := make([]bool, len(p.state))
		for j := range keep {
			keep[j] = true
		}
		comps := lv.fairComponents(p, g, tb, keep)
		if len(comps) == 0 {
			continue
		}
		trace, loop, err := lv.lasso(c, g, p, tb, comps)
		if err != nil {
			return err
		}
		name := c.m.Properties[lv.index[i]].Name
		c.firstViolation(Violation, name, trace, loop)
		if !c.opts.All {
			return nil
		}
		v := &c.res.Verdicts[len(c.m.Invariants)+lv.index[i]]
		v.Holds, v.Trace, v.LoopStart = false, trace, loop
	}
	return nil
}

// lasso builds a counterexample: a shortest path from an initial node to
// the nearest fair component, then a cycle inside it through a witness of
// every acceptance and fairness condition.
func (lv *liveness) lasso(c *checker, g *stateGraph, p *product, tb *tableau, comps [][]int32) ([]Step, int, error) {
	compOf := map[int32]int{}
	for i, comp := range comps {
		for _, v := range comp {
			compOf[v] = i
		}
	}
	// Prefix: breadth-first from the initial product nodes.
	parent := make([]int32, len(p.state))
	for i := range parent {
		parent[i] = -2
	}
	var queue []int32
	for id := int32(0); id < int32(len(p.state)); id++ {
		if c.nodes[p.state[id]].parent < 0 && isInitTab(tb, p.tab[id]) {
			parent[id] = -1
			queue = append(queue, id)
		}
	}
	entry := int32(-1)
	for len(queue) > 0 && entry < 0 {
		v := queue[0]
		queue = queue[1:]
		if _, ok := compOf[v]; ok {
			entry = v
			break
		}
		for e := p.off[v]; e < p.off[v+1]; e++ {
			w := p.adj[e]
			if parent[w] == -2 {
				parent[w] = v
				queue = append(queue, w)
			}
		}
	}
	if entry < 0 {
		return nil, 0, fmt.Errorf("internal error: no path to the violating component")
	}
	comp := comps[compOf[entry]]
	in := make(map[int32]bool, len(comp))
	for _, v := range comp {
		in[v] = true
	}
	var prefix []int32
	for v := entry; v >= 0; v = parent[v] {
		prefix = append(prefix, v)
	}
	slices.Reverse(prefix)
	prefix = prefix[:len(prefix)-1] // the entry starts the cycle

	// Cycle: visit witnesses in turn, then return to the entry.
	cycle := []int32{entry}
	cur := entry
	goTo := func(target func(int32) bool) {
		path := p.pathWithin(in, cur, target)
		cycle = append(cycle, path...)
		if len(path) > 0 {
			cur = path[len(path)-1]
		}
	}
	for _, acc := range tb.accept {
		goTo(func(v int32) bool { return acc[p.tab[v]] })
	}
	for _, f := range lv.fairness {
		if e := lv.edgeWith(p, g, comp, in, f.ang); e >= 0 {
			src := edgeSource(p, e)
			goTo(func(v int32) bool { return v == src })
			cycle = append(cycle, p.adj[e])
			cur = p.adj[e]
			continue
		}
		if !f.strong {
			goTo(func(v int32) bool { return !g.stateAtoms(p.state[v]).has(f.en) })
		}
	}
	// Back to the entry, with at least one step.
	back := p.pathWithin(in, cur, func(v int32) bool { return v == entry })
	if cur == entry && len(cycle) == 1 {
		back = p.loopWithin(in, entry)
	}
	cycle = append(cycle, back...)
	cycle = cycle[:len(cycle)-1] // the last node is the entry again

	// Map to states, dropping stuttering repetitions.
	var ids []int32
	loop := -1
	for _, v := range prefix {
		ids = appendState(ids, p.state[v])
	}
	for i, v := range cycle {
		before := len(ids)
		ids = appendState(ids, p.state[v])
		if i == 0 {
			loop = len(ids) - 1
			if len(ids) == before {
				loop = before - 1
			}
		}
	}
	if len(ids)-1 > loop && ids[len(ids)-1] == ids[loop] {
		ids = ids[:len(ids)-1]
	}
	steps, err := c.stepsOf(ids)
	return steps, loop, err
}

func appendState(ids []int32, s int32) []int32 {
	if len(ids) > 0 && ids[len(ids)-1] == s {
		return ids
	}
	return append(ids, s)
}

func isInitTab(tb *tableau, q int32) bool { return slices.Contains(tb.init, int(q)) }

func edgeSource(p *product, e int32) int32 {
	v, _ := slices.BinarySearch(p.off, e+1)
	return int32(v - 1)
}

// pathWithin returns a shortest path (excluding from) inside the component
// to a node satisfying target; empty if from satisfies it.
func (p *product) pathWithin(in map[int32]bool, from int32, target func(int32) bool) []int32 {
	if target(from) {
		return nil
	}
	parent := map[int32]int32{from: -1}
	queue := []int32{from}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		for e := p.off[v]; e < p.off[v+1]; e++ {
			w := p.adj[e]
			if !in[w] {
				continue
			}
			if _, seen := parent[w]; seen {
				continue
			}
			parent[w] = v
			if target(w) {
				var path []int32
				for x := w; x != from; x = parent[x] {
					path = append(path, x)
				}
				slices.Reverse(path)
				return path
			}
			queue = append(queue, w)
		}
	}
	return nil
}

// loopWithin returns a shortest non-empty cycle from v back to v inside the
// component (excluding the starting v, including the final v).
func (p *product) loopWithin(in map[int32]bool, v int32) []int32 {
	for e := p.off[v]; e < p.off[v+1]; e++ {
		if p.adj[e] == v {
			return []int32{v}
		}
	}
	for e := p.off[v]; e < p.off[v+1]; e++ {
		w := p.adj[e]
		if in[w] {
			return append([]int32{w}, p.pathWithin(in, w, func(x int32) bool { return x == v })...)
		}
	}
	return []int32{v}
}

// stepsOf turns state ids into steps, naming the action of each step.
func (c *checker) stepsOf(ids []int32) ([]Step, error) {
	steps := make([]Step, len(ids))
	for i, id := range ids {
		steps[i].State = c.g.states[id]
		if i == 0 {
			continue
		}
		a, err := c.actionBetween(c.g.states[ids[i-1]], c.g.states[id])
		if err != nil {
			return nil, err
		}
		steps[i].Action = a
	}
	return steps, nil
}

func (c *checker) actionBetween(s, t eval.State) (*eval.Action, error) {
	want, err := c.fingerprint(t)
	if err != nil {
		return nil, err
	}
	var found *eval.Action
	err = c.succ.Next(s, func(u eval.State, a *eval.Action) {
		if found != nil {
			return
		}
		if fp, err := c.fingerprint(u); err == nil && fp == want {
			found = a
		}
	})
	if found == nil && err == nil {
		found = &eval.Action{Name: "Stuttering"}
	}
	return found, err
}
