package conformance

import (
	"fmt"
	"slices"
	"strings"

	"github.com/roomspec/roomspec/conformance/tour"
	"github.com/roomspec/roomspec/spec/model"
)

// Crowded queues. A configuration with one request never shows how a
// scheduler pass treats a queue of several: which requests it moves,
// which it keeps. Options.Crowd is a configuration of the same variant
// with several requests (e.g. sglang-35360-rooms); its graph is too large
// to tour on slow implementations, so the run takes, for each scheduler
// pass (an implementation action without parameters) and each shape of
// the queues it can meet (where each request is, and how many the pass
// moves), the shortest case that reaches that shape and then asks for
// the pass. Where the spec lets the pass move no request (it is not
// enabled), the implementation must refuse it or change nothing: a pass
// that drops a waiting request, or moves one the spec keeps, fails.

// crowdCase is one case: the path to a node, then the pass.
type crowdCase struct {
	path  []model.Action
	pass  model.Action
	shape string
}

// crowdCases lists the cases of g: for each pass and shape, the
// shallowest node that has it, where at least two requests are in one
// scheduler queue.
func crowdCases(g *tour.Graph) []crowdCase {
	c := g.Config
	var passes []model.Action
	for _, a := range c.FairActions(nil) {
		if info := model.Actions[a.ID]; len(info.Params) == 0 && info.Kind == "implementation" {
			passes = append(passes, a)
		}
	}
	best := map[string]int32{}
	var keys []string
	for n := range g.States {
		s := &g.States[n]
		if !crowded(c, s) {
			continue
		}
		for _, p := range passes {
			moved := -1
			if t, ok := c.Step(s, p); ok {
				moved = 0
				for q := range s.Sender {
					if t.Sender[q] != s.Sender[q] {
						moved++
					}
				}
			}
			key := fmt.Sprintf("%s from %s, %s", c.ActionString(p), positions(c, s), movedText(moved))
			if m, ok := best[key]; !ok || g.Depth(int32(n)) < g.Depth(m) {
				if !ok {
					keys = append(keys, key)
				}
				best[key] = int32(n)
			}
		}
	}
	slices.Sort(keys)
	var out []crowdCase
	for _, key := range keys {
		n := best[key]
		_, edges := g.PathTo(n)
		cc := crowdCase{shape: key}
		for _, e := range edges {
			cc.path = append(cc.path, g.Edges[e].Action)
		}
		name, _, _ := strings.Cut(key, " from ")
		for _, p := range passes {
			if c.ActionString(p) == name {
				cc.pass = p
			}
		}
		out = append(out, cc)
	}
	return out
}

// crowded: at least two requests wait in one scheduler queue.
func crowded(c *model.Config, s *model.State) bool {
	seen := map[model.Str]int{}
	for _, p := range s.Sender {
		if p == model.StrBootstrapQueue || p == model.StrInflightQueue || p == model.StrWaitingQueue {
			seen[p]++
		}
	}
	for _, n := range seen {
		if n >= 2 {
			return true
		}
	}
	return false
}

// positions names where each request is, as a sorted multiset (the
// shape, whichever request is where).
func positions(c *model.Config, s *model.State) string {
	var ps []string
	for _, p := range s.Sender {
		ps = append(ps, p.String())
	}
	slices.Sort(ps)
	return strings.Join(ps, "+")
}

func movedText(moved int) string {
	if moved < 0 {
		return "not enabled"
	}
	return fmt.Sprintf("moves %d", moved)
}

// crowd runs the crowded-queue cases of c on the implementation; a
// failing case fills res (its steps under c) and is returned true.
func (r *run) crowd(res *Result, c *model.Config, maxStates int) (failed bool, err error) {
	g, err := tour.Build(c, maxStates)
	if err != nil {
		return false, fmt.Errorf("crowd %s: %w", c.Name, err)
	}
	k := newChecker(c, r.k.impl, r.k.bound)
	cases := crowdCases(g)
	res.Crowd = &CrowdStats{Variant: c.Name, Cases: len(cases)}
	for _, cc := range cases {
		res.Crowd.Steps += len(cc.path) + 1
		// The pass the spec does not enable ends the case: refine holds
		// the implementation to refusing it (or changing nothing).
		steps, at, msg, sv, err := k.refine(append(slices.Clone(cc.path), cc.pass))
		if err != nil {
			return false, fmt.Errorf("crowd %s: %s: %w", c.Name, cc.shape, err)
		}
		r.noteSpecViolations(sv)
		if msg != "" {
			fillCrowd(res, c, cc, steps, at, msg)
			return true, nil
		}
	}
	return false, nil
}

func fillCrowd(res *Result, c *model.Config, cc crowdCase, steps []Step, at int, msg string) {
	res.Holds = false
	res.FoundBy = "crowd"
	res.Variant = c.Name
	res.Config = c
	res.Steps, res.FailStep = steps, at
	res.Shrunk = len(cc.path) + 1
	res.Failure = fmt.Sprintf("crowded queue (%s): %s", cc.shape, msg)
}

// CrowdStats say what the crowded-queue cases did.
type CrowdStats struct {
	Variant string `json:"variant"`
	Cases   int    `json:"cases"`
	Steps   int    `json:"steps"`
}
