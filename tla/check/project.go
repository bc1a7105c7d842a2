package check

import (
	"fmt"
	"sort"

	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// Transition is a step of a projected state machine: the projection of the
// state before and after, and the actions (by name) that take it.
type Transition struct {
	From, To string
	Actions  []string
}

// Projection is a state graph seen through a state function: its distinct
// values are the nodes.
type Projection struct {
	Initial     []string // projected initial states
	Nodes       []string
	Transitions []Transition
}

// Project maps every state of g through f (a state-level expression of
// sp) and collects the transitions between distinct images, labelled with
// the actions that cause them. Steps that leave the image unchanged are
// dropped. The result is sorted, so it is stable across runs.
func Project(sp *eval.Spec, g *Graph, f *eval.Formula) (*Projection, error) {
	img := make([]string, len(g.States))
	nodes := map[string]bool{}
	for i, s := range g.States {
		v, err := sp.Eval(f, s)
		if err != nil {
			return nil, fmt.Errorf("projecting state %d: %w", i, err)
		}
		img[i] = value.Format(v)
		nodes[img[i]] = true
	}
	p := &Projection{}
	seenInit := map[string]bool{}
	for i := 0; i < g.Initial && i < len(img); i++ {
		if !seenInit[img[i]] {
			seenInit[img[i]] = true
			p.Initial = append(p.Initial, img[i])
		}
	}
	type key struct{ from, to string }
	acts := map[key]map[string]bool{}
	for _, e := range g.Edges {
		from, to := img[e.From], img[e.To]
		if from == to {
			continue
		}
		k := key{from, to}
		if acts[k] == nil {
			acts[k] = map[string]bool{}
		}
		acts[k][e.Action.Name] = true
	}
	for n := range nodes {
		p.Nodes = append(p.Nodes, n)
	}
	sort.Strings(p.Nodes)
	sort.Strings(p.Initial)
	for k, as := range acts {
		t := Transition{From: k.from, To: k.to}
		for a := range as {
			t.Actions = append(t.Actions, a)
		}
		sort.Strings(t.Actions)
		p.Transitions = append(p.Transitions, t)
	}
	sort.Slice(p.Transitions, func(i, j int) bool {
		a, b := p.Transitions[i], p.Transitions[j]
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
	return p, nil
}
