package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/captured"
	"github.com/roomspec/roomspec/internal/statediff"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/itf"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/value"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/explain"
	"github.com/roomspec/roomspec/traces/observe"
)

// RoomDiagram draws a replayed room from its witness (replay's
// Options.Witness): the observed steps with their frames and log lines,
// the unseen steps replay inferred, the status along the way, and for a
// pinned room the state it is pinned from and the completion that pins
// it. It returns nil when the room has no witness.
func RoomDiagram(room *judge.Room) *Diagram { return roomDiagram(room, nil) }

// roomDiagram draws room on the skeleton of its witness's steps, which
// rooms of one pattern share (replay shares their steps): cache, if not
// nil, keeps the skeletons by the witness's steps.
func roomDiagram(room *judge.Room, cache map[*judge.WitnessStep]*Diagram) *Diagram {
	w := room.Witness
	if w == nil {
		return nil
	}
	var skel *Diagram
	if cache != nil {
		skel = cache[&w.Steps[0]]
	}
	if skel == nil {
		skel = skeleton(w)
		if cache != nil {
			cache[&w.Steps[0]] = skel
		}
	}
	d := *skel // the steps are shared, read-only; the rest is the room's
	d.lanes = slices.Clone(skel.lanes)
	d.Title = fmt.Sprintf("room %d", room.Room)
	if room.Prefill.IsValid() {
		d.Title += " on " + room.Prefill.String()
	}
	d.Verdict, d.Reason, d.Why = string(room.Verdict), room.Reason, room.Why
	for i := range w.Observations {
		o := &w.Observations[i]
		ob := observation{what: obsText(o), frame: o.Frame, line: o.Line, t: o.Time}
		if o.Kind.Wire() {
			ob.where = o.Rank.String()
		}
		d.obs = append(d.obs, ob)
		if d.t0.IsZero() || o.Time.Before(d.t0) {
			d.t0 = o.Time
		}
	}
	for _, st := range d.steps {
		for _, m := range st.sends {
			if m.obs >= 0 {
				d.nameRank(m.lane, d.obs[m.obs].where)
			}
		}
	}
	d.unexplained = w.Unexplained
	if u := w.Unexplained; u >= 0 && !w.Observations[u].Kind.Wire() {
		d.addLogLane()
	}
	switch room.Start {
	case judge.StartBlind:
		d.Notes = append(d.Notes, "The capture joined the room's connections mid-stream: messages sent before it saw them may be missing.")
	case judge.StartUnknown:
		d.Notes = append(d.Notes, "The room's life began before the capture and the log: the steps before its first observation are one past that explains it.")
	}
	if !w.Aligned {
		d.Notes = append(d.Notes, "Some observations could not be placed on this behaviour; they are listed unmatched.")
	}
	if room.BoundHit {
		d.Notes = append(d.Notes, "A search bound was hit: the explanation may not be the only one.")
	}
	return &d
}

// skeleton draws a witness's steps: what all rooms of its pattern share,
// including which of their observations (by index) each step shows.
func skeleton(w *judge.Witness) *Diagram {
	states := make([]model.State, len(w.Steps))
	actions := make([]model.Action, len(w.Steps))
	for i := range w.Steps {
		states[i], actions[i] = w.Steps[i].State, w.Steps[i].Action
	}
	d := newDiagram(w.Config, states, actions, func(i int) stepKind {
		switch {
		case w.Pin >= 0 && i >= w.Pin:
			return kindPin
		case w.Steps[i].Unseen():
			return kindUnseen
		}
		return kindSeen
	})
	d.stuck, d.pin = w.Stuck, w.Pin
	logs := len(w.Steps[0].Quiet) > 0
	for i := 1; i < len(w.Steps); i++ {
		ws, st := &w.Steps[i], &d.steps[i]
		// The step's wire marks are its sent messages, in order (replay's
		// marks are the @wire sends of the spec).
		var wire []int
		for k, m := range ws.Marks {
			if m.Kind.Wire() {
				wire = append(wire, ws.Obs[k])
			} else if ws.Obs[k] >= 0 {
				st.obs = append(st.obs, ws.Obs[k])
				logs = true
			}
		}
		if len(wire) == len(st.sends) {
			for k, o := range wire {
				st.sends[k].obs = o
			}
		} else {
			for _, o := range wire {
				if o >= 0 {
					st.obs = append(st.obs, o)
				}
			}
		}
		st.quiet = ws.Quiet
		logs = logs || len(st.quiet) > 0
	}
	d.steps[0].quiet = w.Steps[0].Quiet
	if logs {
		d.addLogLane()
	}
	return d
}

// nameRank names lane l (a decode rank) by the endpoint seen for it.
func (d *Diagram) nameRank(l int, where string) {
	if d.lanes[l].side == "env" && d.lanes[l].sub == "" {
		d.lanes[l].sub = where
	}
}

func obsText(o *observe.Observation) string {
	switch o.Kind {
	case observe.Status:
		return "status " + o.From + " → " + o.To
	case observe.Poll:
		return "poll " + o.Queue + " saw " + o.Status
	}
	return o.Kind.String()
}

// ResultDiagram draws the counterexample of a failed property run of
// roomspec test: its steps, the step at which refinement failed (with
// where the implementation's state differed), and for liveness the
// implementation's steps under fair scheduling after it, which never let
// the aborted requests go. It returns nil when the property held.
func ResultDiagram(r *conformance.Result) *Diagram {
	if r.Holds || r.Config == nil {
		return nil
	}
	c := r.Config
	states := []model.State{c.Init()}
	actions := []model.Action{{}}
	for _, st := range r.Steps {
		states, actions = append(states, st.Spec), append(actions, st.Action)
	}
	n := len(states)
	for _, st := range r.Quiesce {
		states, actions = append(states, st.Spec), append(actions, st.Action)
	}
	d := newDiagram(c, states, actions, func(i int) stepKind {
		if i >= n {
			return kindQuiesce
		}
		return kindPlain
	})
	d.Title = fmt.Sprintf("%s: %s", r.Impl, r.Property)
	d.Verdict, d.Reason = "fails", r.Failure
	found := fmt.Sprintf("shrunk to %d steps", r.Shrunk)
	if r.FoundBy == "tour" {
		found = fmt.Sprintf("found by the tour of the spec's graph in a case of %d steps", r.Shrunk)
	}
	d.Notes = append(d.Notes, fmt.Sprintf("Variant %s, seed %d; %s, then 1-minimized.", r.Variant, r.Seed, found))
	for i, st := range r.Steps {
		ds := &d.steps[i+1]
		ds.fail = i == r.FailStep
		if st.ImplErr != "" {
			ds.impl = append(ds.impl, "implementation refused: "+st.ImplErr)
		}
		if st.Impl.RequestStatus != nil && !st.Impl.Equal(&st.Spec) {
			sv, iv := c.Values(&st.Spec), c.Values(&st.Impl)
			for j, name := range model.Vars {
				ds.impl = statediff.Append(ds.impl, "implementation: "+name, sv[j], iv[j])
			}
		}
	}
	if r.Property == conformance.Liveness {
		d.end = "then nothing changes: not terminated " + strings.Join(r.Pinned, ", ")
	}
	return d
}

// CapturedDiagram draws the failing schedule of a captured room (roomspec
// test -captures): the events of the capture and log at their frames and
// lines, the internal steps the schedule chose, and the implementation's
// steps under fair scheduling. It returns nil when the room holds.
func CapturedDiagram(r *captured.Result) *Diagram {
	if r.Holds || r.Result == nil || r.Room.Match == nil || len(r.Schedule.States) == 0 {
		return nil
	}
	c := r.Result.Config
	sc, m := &r.Schedule, r.Room.Match
	marks := m.Inst.Marks()
	states := slices.Clone(sc.States)
	actions := append([]model.Action{{}}, sc.Actions...)
	n := len(states)
	for _, st := range r.Result.Quiesce {
		states, actions = append(states, st.Spec), append(actions, st.Action)
	}
	d := newDiagram(c, states, actions, func(i int) stepKind {
		switch {
		case i >= n:
			return kindQuiesce
		case sc.Obs[i-1] >= 0:
			return kindSeen
		}
		return kindUnseen
	})
	d.Title = fmt.Sprintf("room %d: %s", r.Room.Room, r.Impl)
	d.Verdict, d.Reason = "pinned", r.Result.Failure
	if r.Property != conformance.Liveness {
		d.Verdict = "fails " + r.Property
	}
	d.Notes = append(d.Notes, fmt.Sprintf("%s of %s (variant %s) fails after %d schedules.", r.Property, r.Impl, r.Variant, r.Schedules))
	// event adds observation j of the room's history.
	event := func(j int) int {
		o := &m.Hist[j]
		mk := marks.Mark(o.Mark)
		ob := observation{what: mk.Kind.String(), t: time.Unix(0, o.T).UTC()}
		if mk.Kind.Wire() {
			ob.frame = int(o.Ev)
			if mk.Rank >= 0 && mk.Rank < len(r.Room.Ranks) {
				ob.where = r.Room.Ranks[mk.Rank].String()
			}
		} else {
			ob.what, ob.line = mk.String(), int(o.Ev)
		}
		if d.t0.IsZero() || ob.t.Before(d.t0) {
			d.t0 = ob.t
		}
		d.obs = append(d.obs, ob)
		return len(d.obs) - 1
	}
	logs := false
	used := make([]bool, len(m.Hist))
	for i, first := range sc.Obs {
		if first < 0 {
			continue
		}
		st := &d.steps[i+1]
		// The step's wire marks are its sent messages, in order.
		var wire []explain.Mark
		for _, mk := range explain.Marks(c, sc.Actions[i], &states[i], &states[i+1], m.Inst.Log()) {
			if mk.Kind.Wire() {
				wire = append(wire, mk)
			}
		}
		for _, j := range append([]int{first}, sc.Also[i]...) {
			used[j] = true
			o, mk := event(j), marks.Mark(m.Hist[j].Mark)
			if !mk.Kind.Wire() {
				logs = true
				st.obs = append(st.obs, o)
				continue
			}
			if k := slices.Index(wire, mk); k >= 0 && k < len(st.sends) {
				wire[k] = explain.Mark{Rank: -1} // taken
				st.sends[k].obs = o
				if ob := &d.obs[o]; ob.where != "" {
					d.nameRank(st.sends[k].lane, ob.where)
				}
			} else {
				st.obs = append(st.obs, o)
			}
		}
	}
	// The log's polls that moved nothing (no step explains them) are
	// taken between steps; the schedule does not say where, so they are
	// drawn after the last observed step before them.
	for j := range m.Hist {
		if used[j] || marks.Mark(m.Hist[j].Mark).Kind != observe.Poll {
			continue
		}
		logs = true
		at := 0
		for i, first := range sc.Obs {
			if first >= 0 && first < j {
				at = i + 1
			}
		}
		d.steps[at].quiet = append(d.steps[at].quiet, event(j))
	}
	if logs {
		d.addLogLane()
	}
	if r.Property == conformance.Liveness {
		d.end = "then nothing changes: not terminated " + strings.Join(r.Result.Pinned, ", ")
	}
	return d
}

// ErrNotBehaviour says that states are not a behaviour of the spec under
// the configuration tried.
var ErrNotBehaviour = itf.ErrNotBehaviour

// TraceDiagram draws a counterexample of roomspec check on the bundled
// spec (its states as the interpreter printed them, in the order of vars)
// under c, the variant's configuration; loop >= 0 marks a lasso's return.
func TraceDiagram(c *model.Config, vars []string, trace []check.Step, loop int) (*Diagram, error) {
	idx := make([]int, len(model.Vars))
	for j, name := range model.Vars {
		idx[j] = -1
		for k, v := range vars {
			if v == name {
				idx[j] = k
			}
		}
		if idx[j] < 0 {
			return nil, fmt.Errorf("report: the trace has no variable %s", name)
		}
	}
	states, actions, err := itf.Follow(c, len(trace), func(i int, s *model.State) bool {
		vals := c.Values(s)
		for j := range vals {
			if !value.Equal(vals[j], trace[i].State[idx[j]]) {
				return false
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	d := newDiagram(c, states, actions, func(int) stepKind { return kindPlain })
	d.loop = loop
	if loop >= 0 {
		d.end = fmt.Sprintf("then back to step %d, forever", loop)
	}
	return d, nil
}

// ITF is an ITF trace read for drawing.
type ITF struct {
	// Diagram draws the trace; Variant is the bundled variant whose steps
	// it follows.
	Diagram *Diagram
	Variant string
}

// ReadITF draws an ITF trace of the bundled spec: one written by roomspec
// test -itf (its variant is in the trace's metadata), replay -itf (a
// room's instance), or any tool that prints Room.tla's states as ITF.
// The states must be a behaviour of the variant given (or, if none, of the
// one named in the trace, else of the first bundled variant they follow),
// on its configuration or on replay's one-room instance with as many
// decode ranks as the trace shows.
func ReadITF(data []byte, variant string) (*ITF, error) {
	meta, n, err := itf.ReadMeta(data)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if n == 0 {
		return nil, fmt.Errorf("report: ITF: no states")
	}
	variants := spec.Variants()
	switch {
	case variant != "":
		variants = []string{variant}
	case meta.Roomspec != nil && meta.Roomspec.Variant != "":
		variants = []string{meta.Roomspec.Variant}
	case meta.Capture != nil && slices.Contains(variants, meta.Capture.Variant):
		// Replay's: the variant the room was judged against (one built
		// from SGLang's switches is not bundled: every one is tried).
		variants = []string{meta.Capture.Variant}
	}
	var lastErr error
	var found *ITF
	var fits []string
	for _, v := range variants {
		bv, err := spec.Load(v)
		if err != nil {
			return nil, fmt.Errorf("report: unknown variant %q", v)
		}
		base, err := bv.Compiled()
		if err != nil {
			return nil, fmt.Errorf("report: variant %s: %w", v, err)
		}
		d, err := followVariant(base, data)
		if err != nil {
			lastErr = fmt.Errorf("variant %s: %w", v, err)
			continue
		}
		fits = append(fits, v)
		if found == nil {
			if rs := meta.Roomspec; rs != nil && rs.Property != "" {
				d.Title = fmt.Sprintf("%s: %s", rs.Impl, rs.Property)
				d.Verdict, d.Reason = "fails", rs.Failure
			}
			if cp := meta.Capture; cp != nil && cp.Verdict != "" {
				d.Title = fmt.Sprintf("room %d of %s", cp.Room, cp.Path)
				d.Verdict, d.Reason, d.Why = cp.Verdict, cp.Reason, cp.Why
				d.Notes = append(d.Notes, fmt.Sprintf("Evidence: frames %s; log lines %s.", intList(cp.Frames), intList(cp.LogLines)))
			}
			found = &ITF{Diagram: d, Variant: v}
		}
	}
	switch {
	case found == nil && len(variants) == 1:
		return nil, fmt.Errorf("report: ITF: %w", lastErr)
	case found == nil:
		return nil, fmt.Errorf("report: ITF: %w under any bundled variant (name one with -variant)", ErrNotBehaviour)
	case len(fits) == 1:
		found.Diagram.Notes = append(found.Diagram.Notes, fmt.Sprintf("The states follow the steps of variant %s.", fits[0]))
	default:
		found.Diagram.Notes = append(found.Diagram.Notes, fmt.Sprintf("The states follow the steps of variants %s; drawn under %s (-variant chooses).",
			strings.Join(fits, ", "), fits[0]))
	}
	return found, nil
}

// followVariant draws the trace data as a behaviour of a variant (its
// configuration base): on base, then on replay's one-room instances of it
// (explain.Instances), the first that the states follow.
func followVariant(base *model.Config, data []byte) (*Diagram, error) {
	instances, instErr := explain.NewInstances(base, 0, 0)
	var lastErr error
	for ranks := 0; ranks <= 8; ranks++ {
		c := base
		if ranks > 0 {
			if instErr != nil {
				break // not a one-room variant: no instances
			}
			inst, err := instances.Get(ranks, false)
			if err != nil {
				continue
			}
			c = inst.Config()
		}
		t, err := itf.Read(c, data)
		if err != nil {
			// Its states are not even states of this configuration.
			lastErr = fmt.Errorf("%w: %w", ErrNotBehaviour, err)
			continue
		}
		states, actions, err := itf.Follow(c, len(t.States), func(i int, s *model.State) bool { return s.Equal(&t.States[i]) })
		if err != nil {
			lastErr = err
			continue
		}
		d := newDiagram(c, states, actions, func(int) stepKind { return kindPlain })
		if t.Loop != nil {
			d.loop = *t.Loop
			d.end = fmt.Sprintf("then back to step %d, forever", *t.Loop)
		}
		return d, nil
	}
	return nil, lastErr
}

// relTime prints t relative to t0 in milliseconds.
func relTime(t, t0 time.Time) string {
	if t.IsZero() || t0.IsZero() {
		return ""
	}
	return fmt.Sprintf("+%.3f ms", float64(t.Sub(t0))/float64(time.Millisecond))
}

// intList prints xs comma-separated, or "none".
func intList(xs []int) string {
	if len(xs) == 0 {
		return "none"
	}
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
