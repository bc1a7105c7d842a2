package check

// The tableau turns an LTL formula in negation normal form (built from
// atoms, /\, \/, [] and <>) into a generalized Büchi automaton, following
// Gerth, Peled, Vardi and Wolper, "Simple on-the-fly automatic verification
// of linear temporal logic" (1995). A state of the automaton holds the
// literals that must be true at the current position of a behaviour; a
// behaviour is accepted when, for every <>F, the run visits infinitely
// often a state that does not owe <>F or has F.

type tabNode struct {
	id       int
	incoming map[int]bool // predecessor node ids; -1 means "initial"
	old      map[string]*ltl
	next     map[string]*ltl
	// Literals of the node, split by level once construction is done.
	stateLits  []*ltl
	actionLits []*ltl
}

type tableau struct {
	nodes []*tabNode
	succ  [][]int // succ[i]: nodes reachable from node i in one step
	init  []int
	// accept[k] is the set of nodes of the k-th acceptance condition.
	accept [][]bool
}

type pending struct {
	incoming map[int]bool
	new      []*ltl
	old      map[string]*ltl
	next     map[string]*ltl
}

func buildTableau(f *ltl, atoms *atomTable) *tableau {
	tb := &tableau{}
	var nodes []*tabNode
	var expand func(p *pending)
	expand = func(p *pending) {
		if len(p.new) == 0 {
			for _, q := range nodes {
				if sameSet(q.old, p.old) && sameSet(q.next, p.next) {
					for k := range p.incoming {
						q.incoming[k] = true
					}
					return
				}
			}
			q := &tabNode{id: len(nodes), incoming: p.incoming, old: p.old, next: p.next}
			nodes = append(nodes, q)
			var nw []*ltl
			for _, g := range p.next {
				nw = append(nw, g)
			}
			expand(&pending{incoming: map[int]bool{q.id: true}, new: nw, old: map[string]*ltl{}, next: map[string]*ltl{}})
			return
		}
		g := p.new[0]
		rest := p.new[1:]
		if _, done := p.old[g.key]; done {
			expand(&pending{p.incoming, rest, p.old, p.next})
			return
		}
		switch g.op {
		case lFalse:
			return
		case lTrue:
			expand(&pending{p.incoming, rest, with(p.old, g), p.next})
		case lAtom:
			// A literal contradicting one already held kills the node.
			if neg, ok := p.old[mkAtom(g.atom, !g.neg).key]; ok && neg != nil {
				return
			}
			expand(&pending{p.incoming, rest, with(p.old, g), p.next})
		case lAnd:
			nw := append(append([]*ltl(nil), rest...), g.args...)
			expand(&pending{p.incoming, nw, with(p.old, g), p.next})
		case lOr:
			for _, a := range g.args {
				nw := append(append([]*ltl(nil), rest...), a)
				expand(&pending{copyInc(p.incoming), nw, with(p.old, g), copySet(p.next)})
			}
		case lAlways:
			// []A == A /\ X[]A
			nw := append(append([]*ltl(nil), rest...), g.args[0])
			expand(&pending{p.incoming, nw, with(p.old, g), with(p.next, g)})
		case lEventually:
			// <>A == A \/ X<>A
			nw1 := append(append([]*ltl(nil), rest...), g.args[0])
			expand(&pending{copyInc(p.incoming), nw1, with(p.old, g), copySet(p.next)})
			expand(&pending{copyInc(p.incoming), append([]*ltl(nil), rest...), with(p.old, g), with(p.next, g)})
		}
	}
	expand(&pending{incoming: map[int]bool{-1: true}, new: []*ltl{f}, old: map[string]*ltl{}, next: map[string]*ltl{}})
	tb.nodes = nodes
	tb.succ = make([][]int, len(nodes))
	for _, q := range nodes {
		for from := range q.incoming {
			if from == -1 {
				tb.init = append(tb.init, q.id)
			} else {
				tb.succ[from] = append(tb.succ[from], q.id)
			}
		}
		for _, l := range q.old {
			if l.op != lAtom {
				continue
			}
			if atoms.atoms[l.atom].action {
				q.actionLits = append(q.actionLits, l)
			} else {
				q.stateLits = append(q.stateLits, l)
			}
		}
	}
	// Acceptance: one condition per <>A subformula.
	var evs []*ltl
	seen := map[string]bool{}
	var collect func(g *ltl)
	collect = func(g *ltl) {
		if g.op == lEventually && !seen[g.key] {
			seen[g.key] = true
			evs = append(evs, g)
		}
		for _, a := range g.args {
			collect(a)
		}
	}
	collect(f)
	for _, ev := range evs {
		acc := make([]bool, len(nodes))
		for i, q := range nodes {
			_, owes := q.old[ev.key]
			_, has := q.old[ev.args[0].key]
			acc[i] = !owes || has
		}
		tb.accept = append(tb.accept, acc)
	}
	return tb
}

func with(m map[string]*ltl, g *ltl) map[string]*ltl {
	out := make(map[string]*ltl, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[g.key] = g
	return out
}

func copySet(m map[string]*ltl) map[string]*ltl {
	out := make(map[string]*ltl, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func copyInc(m map[int]bool) map[int]bool {
	out := make(map[int]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sameSet(a, b map[string]*ltl) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}
