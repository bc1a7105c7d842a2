package conformance

import (
	"fmt"

	"github.com/roomspec/roomspec/conformance/tour"
	"github.com/roomspec/roomspec/spec/model"
)

// walk is the tour of a property run: the implementation driven along a
// planner's walk of the spec's state graph until it has taken every edge
// (tour.Planner), before any random case. A step is followed by the edge
// whose target the implementation's observed state is; refinement fails
// where there is none, and a step the implementation refuses fails either
// property. Under liveness, fair quiescence runs from every state reached
// (once per state), and the walk goes on from where it ends.
type walk struct {
	r       *run
	g       *tour.Graph
	p       *tour.Planner
	cur     int32          // the implementation's node; -1: reset first
	seq     []model.Action // the case: the steps since the last reset
	obs     model.State    // the implementation's observed state
	checked []bool         // liveness: quiescence ran from the node
	refused []bool         // refinement: the node's disabled steps were asked for
	fair    []model.Action // the implementation's own actions
	stats   *TourStats
}

// tourFailure is a failing case of the tour, to be minimized.
type tourFailure struct {
	seq []model.Action
}

func (r *run) tour(stats *TourStats) (*tourFailure, error) {
	w := &walk{r: r, g: r.graph, p: tour.NewPlanner(r.cov, r.resetCost), cur: -1, stats: stats}
	if r.property == Liveness {
		w.checked = make([]bool, len(w.g.States))
	} else {
		w.refused = make([]bool, len(w.g.States))
		w.fair = r.cfg.FairActions(nil)
	}
	// idle counts resets in a row after which no edge was taken.
	idle, pending := 0, w.p.Pending()
	for !w.p.Done() {
		if w.cur < 0 {
			if w.p.Pending() < pending {
				idle, pending = 0, w.p.Pending()
			}
			if idle++; idle > 2 {
				// Nowhere left to go from the initial state the
				// implementation starts in (a spec with several).
				stats.Stopped = fmt.Sprintf("%d edges not reached from the initial state the implementation starts in", w.p.Pending())
				break
			}
			if f, err := w.reset(); f != nil || err != nil {
				return f, err
			}
			if w.cur < 0 {
				break // stats.Stopped says why
			}
		}
		e, reset := w.p.Next(w.cur)
		if reset {
			if f, err := w.refusals(); f != nil || err != nil {
				return f, err
			}
			w.cur = -1
			continue
		}
		if f, err := w.step(e); f != nil || err != nil {
			return f, err
		}
	}
	if w.cur >= 0 {
		if f, err := w.refusals(); f != nil || err != nil {
			return f, err
		}
	}
	return w.sweep()
}

// SweepMaxStates bounds the graphs whose every node has its refusals
// asked: on a larger one (sglang-35360-rooms: 11,562 states, where the
// sweep would cost more than the tour) only where a case ends, and
// TourStats.Unswept counts the rest.
const SweepMaxStates = 5000

// sweep asks for the refusals of every node no case of the tour ended
// at: each is reached on a shortest path from a reset.
func (w *walk) sweep() (*tourFailure, error) {
	if w.refused == nil {
		return nil, nil
	}
	if len(w.g.States) > SweepMaxStates {
		for n := range w.g.States {
			if !w.refused[n] {
				w.stats.Unswept++
			}
		}
		return nil, nil
	}
	for n := range w.g.States {
		if w.refused[n] {
			continue
		}
		init, path := w.g.PathTo(int32(n))
		if f, err := w.reset(); f != nil || err != nil {
			return f, err
		}
		if w.cur != init {
			continue // another initial state: not reached from this one
		}
		for _, e := range path {
			if f, err := w.step(e); f != nil || err != nil {
				return f, err
			}
		}
		if f, err := w.refusals(); f != nil || err != nil {
			return f, err
		}
	}
	return nil, nil
}

// reset starts a new case from the implementation's initial state.
func (w *walk) reset() (*tourFailure, error) {
	r := w.r
	w.stats.Cases++
	w.seq = w.seq[:0]
	if err := r.k.impl.Reset(r.cfg); err != nil {
		return nil, fmt.Errorf("tour: reset: %w", err)
	}
	obs, err := r.k.impl.Observe()
	if err != nil {
		return nil, fmt.Errorf("tour: observe: %w", err)
	}
	n, ok := w.g.Node(&obs)
	if !ok || w.g.Depth(n) != 0 {
		if r.property == Refinement {
			return &tourFailure{}, nil
		}
		w.stats.Stopped = "the implementation's initial state is not the spec's (refinement fails)"
		return nil, nil
	}
	w.cur, w.obs = n, obs
	r.cov.See(n)
	if r.property == Refinement {
		_, sv := r.k.judge(nil, &obs, &w.g.States[n])
		r.noteSpecViolations(sv)
		return nil, nil
	}
	if w.checked[n] {
		return nil, nil
	}
	return w.quiesce()
}

// step takes edge e.
func (w *walk) step(e int32) (*tourFailure, error) {
	r := w.r
	a := w.g.Edges[e].Action
	w.seq = append(w.seq, a)
	w.stats.Steps++
	if err := r.k.impl.Apply(a); err != nil {
		return w.failure(), nil
	}
	obs, err := r.k.impl.Observe()
	if err != nil {
		return nil, fmt.Errorf("tour: observe after %s: %w", r.cfg.ActionString(a), err)
	}
	got, ok := w.g.Find(w.cur, a, &obs)
	if !ok {
		if r.property == Refinement {
			return w.failure(), nil
		}
		// Liveness does not judge the step; the walk cannot follow it.
		w.p.GiveUp(e, "the implementation's state after it is not the spec's (refinement fails)")
		w.stats.Diverged++
		w.cur = -1
		return nil, nil
	}
	if r.property == Refinement {
		_, sv := r.k.judge(&w.obs, &obs, &w.g.States[w.g.Edges[got].To])
		r.noteSpecViolations(sv)
	}
	w.p.Took(e, got)
	w.cur, w.obs = w.g.Edges[got].To, obs
	if r.property == Liveness && !w.checked[w.cur] {
		return w.quiesce()
	}
	return nil, nil
}

// refusals asks the implementation, once at each node, for each of its
// own actions (the fair ones: prefill's threads) that the spec does not
// enable there: it must refuse it, or take it without changing its
// state. A step the spec does not have (an ABORT handled while a write
// of its room is in flight, where the spec makes it wait) fails
// refinement, with the case that reached the node and that action.
// It is asked only where the case ends (a reset follows): a refusal may
// leave what the state does not show (a thread that read a message and
// waits in its handler), which must not steer the case's later steps.
func (w *walk) refusals() (*tourFailure, error) {
	if w.refused == nil || w.refused[w.cur] {
		return nil, nil
	}
	w.refused[w.cur] = true
	k := w.r.k
	for _, a := range w.fair {
		if w.g.Ways(w.cur, a) > 0 {
			continue
		}
		w.stats.Refusals++
		// Refused or taken, the state must be as it was: a refusal
		// changes nothing (PROTOCOL.md), and the harness refuses a
		// pass only after running it.
		_ = k.impl.Apply(a)
		obs, err := k.impl.Observe()
		if err != nil {
			return nil, fmt.Errorf("tour: observe after %s: %w", w.r.cfg.ActionString(a), err)
		}
		if obs.Equal(&w.obs) {
			continue
		}
		f := w.failure()
		f.seq = append(f.seq, a)
		return f, nil
	}
	return nil, nil
}

func (w *walk) failure() *tourFailure {
	return &tourFailure{seq: append([]model.Action(nil), w.seq...)}
}

// quiesce stops the environment and runs the implementation's fair
// round-robin from the current node: every aborted request must end
// terminated. The fair run's steps are edges of the graph (where the
// implementation refines the spec): the walk takes them, and since the
// rest of a fair run is a fair run, every node it passes is checked too.
func (w *walk) quiesce() (*tourFailure, error) {
	r := w.r
	k := r.k
	fair := r.cfg.FairActions(nil)
	failing := w.failure()
	node, inGraph := w.cur, true
	passed := []int32{node}
	obs := w.obs
	rounds := 0
	for round := 1; ; round++ {
		if round > k.bound {
			rounds = k.bound + 1
			break
		}
		changed := false
		for _, a := range fair {
			if k.impl.Apply(a) != nil {
				continue
			}
			o, err := k.impl.Observe()
			if err != nil {
				return nil, fmt.Errorf("tour: observe after %s: %w", r.cfg.ActionString(a), err)
			}
			if o.Equal(&obs) {
				continue
			}
			changed, obs = true, o
			w.stats.QuiesceSteps++
			if !inGraph {
				continue
			}
			if e, ok := w.g.Find(node, a, &o); ok {
				w.p.Took(-1, e)
				node = w.g.Edges[e].To
				passed = append(passed, node)
				w.seq = append(w.seq, a)
			} else {
				inGraph = false
			}
		}
		if !changed {
			rounds = round
			break
		}
	}
	w.stats.Quiesces++
	r.rounds = max(r.rounds, rounds)
	if rounds > k.bound || len(pinned(r.cfg, &obs)) > 0 {
		return failing, nil
	}
	for _, n := range passed {
		w.checked[n] = true
	}
	w.obs = obs
	if !inGraph {
		w.stats.Diverged++
		w.cur = -1
		return nil, nil
	}
	w.cur = node
	return nil, nil
}
