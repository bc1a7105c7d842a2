package check

import (
	"fmt"
	"sync"

	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// liveness checks temporal properties on the explored state graph: for a
// property P it searches for a fair behaviour of the spec satisfying ~P,
// as a strongly connected component of the product of the state graph
// (with stuttering steps) and a tableau of ~P.
type liveness struct {
	atoms    *atomTable
	props    []*ltl // negated properties
	index    []int  // index[i]: position of props[i] in Model.Properties
	fairness []fairCond
	// allVars[i]: atom i's subscript is the tuple of every variable.
	allVars []bool
	// warning reports an ENABLED taken from the explored graph.
	warnOnce sync.Once
	warning  string
}

type fairCond struct {
	strong  bool
	en, ang int // atom indices
	text    string
}

func newLiveness(m *Model) (*liveness, error) {
	lv := &liveness{atoms: &atomTable{index: map[string]int{}}}
	for i, p := range m.Properties {
		if p.Liveness == nil {
			continue // safety only, checked during the search
		}
		f, err := lv.atoms.toLTL(p.Liveness, true)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", p.Name, err)
		}
		lv.props = append(lv.props, f)
		lv.index = append(lv.index, i)
	}
	var addFair func(t *eval.Temporal)
	addFair = func(t *eval.Temporal) {
		if t.Op == eval.TAnd {
			for _, a := range t.Args {
				addFair(a)
			}
			return
		}
		en, ang := lv.atoms.fairAtoms(t)
		lv.fairness = append(lv.fairness, fairCond{strong: t.Op == eval.TStrongFair, en: en, ang: ang, text: t.String()})
	}
	for _, f := range m.Fairness {
		addFair(f)
	}
	return lv, nil
}

// bitset is a fixed-width set of atom indices.
type bitset []uint64

func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }

// stateGraph is the explored graph in compact form, with atom values.
type stateGraph struct {
	n      int
	off    []int32 // successors of s: adj[off[s]:off[s+1]]
	adj    []int32
	words  int
	sbits  []uint64 // state atoms of s: sbits[s*words:(s+1)*words]
	ebits  []uint64 // action atoms of edge e: ebits[e*words:(e+1)*words]
	stbits []uint64 // action atoms of the stuttering step s -> s
	init   []int32
}

func (g *stateGraph) stateAtoms(s int32) bitset {
	return bitset(g.sbits[int(s)*g.words : int(s+1)*g.words])
}

// edgeAtoms returns the action atoms of the k-th edge out of s, where
// k == -1 is the stuttering step.
func (g *stateGraph) edgeAtoms(s int32, e int32) bitset {
	if e < 0 {
		return bitset(g.stbits[int(s)*g.words : int(s+1)*g.words])
	}
	return bitset(g.ebits[int(e)*g.words : int(e+1)*g.words])
}

func (lv *liveness) buildGraph(c *checker) (*stateGraph, error) {
	sp := c.m.Spec
	n := len(c.g.states)
	g := &stateGraph{n: n, words: (len(lv.atoms.atoms) + 63) / 64}
	if g.words == 0 {
		g.words = 1
	}
	g.off = make([]int32, n+1)
	for s := 0; s < n; s++ {
		seen := map[int32]bool{}
		for _, t := range c.g.succ[s] {
			if !seen[t] {
				seen[t] = true
				g.adj = append(g.adj, t)
			}
		}
		g.off[s+1] = int32(len(g.adj))
		if c.nodes[s].parent < 0 {
			g.init = append(g.init, int32(s))
		}
	}
	g.sbits = make([]uint64, n*g.words)
	g.ebits = make([]uint64, len(g.adj)*g.words)
	g.stbits = make([]uint64, n*g.words)
	atoms := lv.atoms.atoms
	// <<Next>>_v for the spec's own Next holds exactly on the graph's
	// steps that change v, and ENABLED <<Next>>_v where such a step leaves.
	// Only when nothing cuts the graph: constraints drop successors (Next
	// stays enabled where the graph has no step), and symmetry or a view
	// fold a step into a self-loop.
	exact := len(c.m.Constraints) == 0 && len(c.m.ActionConstraints) == 0 && c.m.Symmetry == nil && c.m.View == nil
	isNext := func(a *atom) bool { return exact && c.m.Next != nil && a.formula.SameAction(c.m.Next) }
	evalAction := func(a *atom, s, t eval.State, stutter bool) (bool, error) {
		if a.angle && isNext(a) {
			if stutter {
				return false, nil // a stuttering step changes no v
			}
			same, err := unchangedSub(sp, a.sub, s, t)
			return !same, err
		}
		if a.angle {
			ok, err := sp.HoldsStep(a.formula, s, t)
			if err != nil || !ok {
				return false, err
			}
			same, err := unchangedSub(sp, a.sub, s, t)
			return !same, err
		}
		return sp.HoldsStep(a.formula, s, t)
	}
	labels := lv.labelAtoms(c, exact)
	// Atoms are evaluated for every state and step, in parallel: each
	// state writes only its own bits. Action atoms first, since the
	// ENABLED fallback reads them.
	err := parallel(n, c.opts.Workers, func(_, s int) error {
		st := c.g.states[s]
		if labels != nil {
			if err := lv.evalLabelled(c, g, labels, int32(s)); err != nil {
				return err
			}
		}
		for i, a := range atoms {
			if !a.action || labels != nil && labels[i] != "" {
				continue
			}
			ok, err := evalAction(a, st, st, true)
			if err != nil {
				return fmt.Errorf("evaluating %s: %w", a.text, err)
			}
			if ok {
				bitset(g.stbits[s*g.words : (s+1)*g.words]).set(i)
			}
			for e := g.off[s]; e < g.off[s+1]; e++ {
				ok, err := evalAction(a, st, c.g.states[g.adj[e]], false)
				if err != nil {
					return fmt.Errorf("evaluating %s: %w", a.text, err)
				}
				if ok {
					bitset(g.ebits[int(e)*g.words : int(e+1)*g.words]).set(i)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = parallel(n, c.opts.Workers, func(_, s int) error {
		st := c.g.states[s]
		for i, a := range atoms {
			if a.action || labels != nil && labels[i] != "" {
				continue
			}
			var ok bool
			var err error
			switch {
			case a.enabled && isNext(a):
				ok = lv.enabledFromGraph(g, a, int32(s))
			case a.enabled:
				ok, err = lv.enabled(c, g, a, int32(s))
			default:
				ok, err = sp.Holds(a.formula, st)
			}
			if err != nil {
				return fmt.Errorf("evaluating %s: %w", a.text, err)
			}
			if ok {
				g.stateAtoms(int32(s)).set(i)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// enabled decides ENABLED <<A>>_v in state s by enumerating the steps A
// allows. Where A cannot be enumerated (an action of an instance whose
// variables are replaced by expressions, so that A constrains a primed
// expression rather than assigning a variable), it falls back to the steps
// of the explored graph, which is exact for the spec's own actions and an
// under-approximation otherwise; the fallback is reported as a warning,
// never taken silently.
func (lv *liveness) enabled(c *checker, g *stateGraph, a *atom, s int32) (bool, error) {
	ok, err := c.m.Spec.EnabledAngle(a.formula, a.sub, c.g.states[s])
	if err == nil {
		return ok, nil
	}
	lv.warnOnce.Do(func() {
		lv.warning = fmt.Sprintf("%s cannot be computed by enumerating the action (%v); it is taken from the explored steps, "+
			"which is exact only for the spec's own actions", a.text, err)
	})
	return lv.enabledFromGraph(g, a, s), nil
}

// enabledFromGraph decides ENABLED <<A>>_v from the <<A>>_v values of the
// explored steps out of s.
func (lv *liveness) enabledFromGraph(g *stateGraph, a *atom, s int32) bool {
	ang := a.angleAtom
	if g.edgeAtoms(s, -1).has(ang) {
		return true
	}
	for e := g.off[s]; e < g.off[s+1]; e++ {
		if g.edgeAtoms(s, e).has(ang) {
			return true
		}
	}
	return false
}

func unchangedSub(sp *eval.Spec, sub *eval.Formula, s, t eval.State) (bool, error) {
	a, err := sp.Eval(sub, s)
	if err != nil {
		return false, err
	}
	b, err := sp.Eval(sub, t)
	if err != nil {
		return false, err
	}
	return value.Equal(a, b), nil
}
