package conformance

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/roomspec/roomspec/internal/statediff"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/value"
)

// WriteText prints a result: one summary line, the coverage, and for a
// failure the counterexample as a step table (step, action, what changed
// in the spec, and where the implementation's state differs from the
// spec's).
func WriteText(w io.Writer, r *Result) {
	verdict := "holds"
	if !r.Holds {
		verdict = "FAILS"
	}
	fmt.Fprintf(w, "%s (%s) %s: %s %s (seed %d)", r.Impl, r.Variant, r.Property, verdict, r.runText(), r.Seed)
	if r.Property == Liveness {
		fmt.Fprintf(w, ", fair round-robin bound %d rounds, most needed %d", r.Bound, r.MaxRounds)
	}
	fmt.Fprintln(w)
	if r.Coverage != nil {
		WriteCoverage(w, r.Coverage)
	}
	if c := r.Crowd; c != nil {
		fmt.Fprintf(w, "  crowded queues: %d cases of %s (%d steps), each pass from each shape of its queues\n", c.Cases, c.Variant, c.Steps)
	}
	if len(r.SpecViolations) > 0 {
		fmt.Fprintf(w, "  note: the spec itself violates %s under %s (not held against the implementation)\n",
			strings.Join(r.SpecViolations, ", "), r.Variant)
	}
	if r.Holds || r.Config == nil {
		return
	}
	fmt.Fprintf(w, "  %s\n", r.Failure)
	switch r.FoundBy {
	case "tour":
		fmt.Fprintf(w, "  counterexample: %d steps (the tour's case of %d, then 1-minimized)\n", len(r.Steps), r.Shrunk)
	case "crowd":
		fmt.Fprintf(w, "  counterexample: %d steps (a shortest path to the crowded queue, then the pass)\n", len(r.Steps))
	default:
		fmt.Fprintf(w, "  counterexample: %d steps (gopter shrank to %d, then 1-minimized)\n", len(r.Steps), r.Shrunk)
	}
	WriteSteps(w, r.Config, r.Steps, r.FailStep, r.Property == Refinement)
	if r.Property == Liveness {
		fmt.Fprintf(w, "  then the environment stops; the implementation's threads run fair round-robin:\n")
		prev := model.State{}
		if n := len(r.Steps); n > 0 {
			prev = r.Steps[n-1].Impl
		} else {
			prev = r.Config.Init()
		}
		// The implementation's own steps: where one diverged from the
		// spec's, the table shows how.
		writeTable(w, r.Config, r.Quiesce, prev, -2, true)
		fmt.Fprintf(w, "  not terminated: %s\n", strings.Join(r.Pinned, ", "))
	}
}

// runText says what ran: the tour (its cases) and the random cases.
func (r *Result) runText() string {
	t := TourStats{}
	if r.Coverage != nil {
		t = r.Coverage.Tour
	}
	switch {
	case t.Cases == 0:
		return fmt.Sprintf("after %d cases", r.Cases)
	case r.FoundBy == "tour":
		return fmt.Sprintf("in the tour's case %d", t.Cases)
	case r.FoundBy == "crowd":
		return fmt.Sprintf("after the tour (%d cases, %d steps), in a crowded-queue case", t.Cases, t.Steps)
	default:
		return fmt.Sprintf("after the tour (%d cases, %d steps) and %d random cases", t.Cases, t.Steps, r.Cases)
	}
}

// WriteCoverage prints a run's coverage: edges and states of the spec's
// graph taken, per action, the rooms' statuses reached, and what the
// random cases did to the rooms.
func WriteCoverage(w io.Writer, c *Coverage) {
	if c.States == 0 {
		fmt.Fprintf(w, "  coverage: the spec's graph has more than %d states: no tour, edges not counted; random cases only\n", c.Bound)
	} else {
		fmt.Fprintf(w, "  coverage: %d of %d edges (%.1f%%), %d of %d states\n", c.EdgesTaken, c.Edges, c.Percent(), c.StatesSeen, c.States)
		var parts []string
		for _, a := range c.Actions {
			parts = append(parts, fmt.Sprintf("%s %d/%d", a.Action, a.Taken, a.Edges))
		}
		writeWrapped(w, "    per action: ", parts)
		parts = parts[:0]
		room := ""
		reached, all := 0, 0
		for _, s := range c.Statuses {
			all++
			if !s.Reached {
				continue
			}
			reached++
			if s.Room != room {
				room = s.Room
				parts = append(parts, s.Room+": "+s.Status)
			} else {
				parts = append(parts, s.Status)
			}
		}
		writeWrapped(w, fmt.Sprintf("    statuses reached (%d of %d): ", reached, all), parts)
		for _, s := range c.Statuses {
			if !s.Reached {
				fmt.Fprintf(w, "    status not reached: %s: %s\n", s.Room, s.Status)
			}
		}
		for _, u := range c.Unforced {
			fmt.Fprintf(w, "    edge not taken: %s\n", u)
		}
		if c.Tour.Stopped != "" {
			fmt.Fprintf(w, "    the tour stopped: %s\n", c.Tour.Stopped)
		}
		if c.Tour.Unswept > 0 {
			fmt.Fprintf(w, "    steps the spec does not enable asked for where a case ended; not at %d states (over %d states, no sweep)\n", c.Tour.Unswept, SweepMaxStates)
		}
		if c.Tour.Diverged > 0 {
			fmt.Fprintf(w, "    the tour could not follow %d steps (the implementation's state is not the spec's)\n", c.Tour.Diverged)
		}
	}
	if rs := c.Random; rs.Cases > 0 {
		keys := make([]string, 0, len(rs.Ends))
		for k := range rs.Ends {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if rs.Ends[keys[i]] != rs.Ends[keys[j]] {
				return rs.Ends[keys[i]] > rs.Ends[keys[j]]
			}
			return keys[i] < keys[j]
		})
		var parts []string
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s %d", k, rs.Ends[k]))
		}
		fmt.Fprintf(w, "    random cases: %d; a room reached Success in %d, decode's abort of a request won over its room's Success in %d\n",
			rs.Cases, rs.Completed, rs.Aborted)
		writeWrapped(w, "    random cases end with: ", parts)
	}
}

// writeWrapped prints parts after prefix, comma-separated, in lines of
// about 100 columns.
func writeWrapped(w io.Writer, prefix string, parts []string) {
	line := prefix
	indent := strings.Repeat(" ", 6)
	for i, p := range parts {
		if i > 0 {
			line += ","
			if len(line)+1+len(p) > 100 {
				fmt.Fprintln(w, line)
				line = indent + p
				continue
			}
			line += " "
		}
		line += p
	}
	fmt.Fprintln(w, line)
}

// WriteSteps prints steps as a table. failAt marks the failing step;
// withImpl adds the implementation's state where it differs.
func WriteSteps(w io.Writer, c *model.Config, steps []Step, failAt int, withImpl bool) {
	writeTable(w, c, steps, c.Init(), failAt, withImpl)
}

func writeTable(w io.Writer, c *model.Config, steps []Step, prev model.State, failAt int, withImpl bool) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  step\taction\tspec: changed\timplementation")
	prevVals := c.Values(&prev)
	for i, st := range steps {
		mark := fmt.Sprint(i + 1)
		if i == failAt {
			mark += " <-"
		}
		name := c.ActionString(st.Action)
		if st.Stutter {
			name = "(stutter)"
		}
		vals := c.Values(&st.Spec)
		changed := statediff.States(model.Vars, prevVals, vals)
		var implCol []string
		if st.ImplErr != "" {
			implCol = append(implCol, "error: "+st.ImplErr)
		}
		if withImpl && !st.Impl.Equal(&st.Spec) && !st.Impl.Equal(&model.State{}) {
			for _, d := range differences(c, &st.Spec, &st.Impl) {
				implCol = append(implCol, d.path+" = "+d.impl+" (spec: "+d.spec+")")
			}
		} else if len(implCol) == 0 {
			implCol = append(implCol, "= spec")
		}
		n := max(len(changed), len(implCol), 1)
		for k := range n {
			a, b, d := "", "", ""
			if k == 0 {
				a, b = mark, name
			}
			col := ""
			if k < len(changed) {
				col = changed[k]
			}
			if k < len(implCol) {
				d = implCol[k]
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", a, b, col, d)
		}
		prevVals = vals
	}
	tw.Flush()
}

// diffVars lists where the implementation's state b differs from the
// spec's a.
func diffVars(c *model.Config, a, b *model.State) string {
	var parts []string
	for _, d := range differences(c, a, b) {
		parts = append(parts, fmt.Sprintf("%s: spec %s, implementation %s", d.path, d.spec, d.impl))
	}
	return strings.Join(parts, "; ")
}

// difference is a part where the implementation's state differs from the
// spec's, with both values printed.
type difference struct{ path, spec, impl string }

// differences lists them: statediff names each part with its new value,
// so the two directions name the same parts, in the same order, with
// either state's value.
func differences(c *model.Config, spec, impl *model.State) []difference {
	sv, iv := c.Values(spec), c.Values(impl)
	toImpl := statediff.States(model.Vars, sv, iv)
	toSpec := statediff.States(model.Vars, iv, sv)
	out := make([]difference, len(toImpl))
	for i := range toImpl {
		path, implVal, _ := strings.Cut(toImpl[i], " = ")
		_, specVal, _ := strings.Cut(toSpec[i], " = ")
		out[i] = difference{path, specVal, implVal}
	}
	return out
}

// JSONStep is one step of a counterexample in JSON output.
type JSONStep struct {
	Action string            `json:"action"`
	Params []string          `json:"params"`
	State  map[string]string `json:"state"`
	Error  string            `json:"error,omitempty"`
}

// JSONResult is one property run in JSON output.
type JSONResult struct {
	Impl           string      `json:"impl"`
	Variant        string      `json:"variant"`
	Property       string      `json:"property"`
	Holds          bool        `json:"holds"`
	Cases          int         `json:"cases"`
	Seed           int64       `json:"seed"`
	Steps          []JSONStep  `json:"steps"`
	Failure        string      `json:"failure,omitempty"`
	FailStep       *int        `json:"fail_step,omitempty"`
	Quiesce        []JSONStep  `json:"quiesce,omitempty"`
	Pinned         []string    `json:"pinned,omitempty"`
	Bound          int         `json:"bound,omitempty"`
	MaxRounds      int         `json:"max_rounds,omitempty"`
	SpecViolations []string    `json:"spec_violations,omitempty"`
	FoundBy        string      `json:"found_by,omitempty"`
	Crowd          *CrowdStats `json:"crowd,omitempty"`
	Coverage       *Coverage   `json:"coverage,omitempty"`
}

// ToJSON converts r for JSON output: steps carry the implementation's
// observed state, variable by variable, as TLA+ values.
func ToJSON(r *Result) JSONResult {
	j := JSONResult{Impl: r.Impl, Variant: r.Variant, Property: r.Property, Holds: r.Holds, Cases: r.Cases,
		Seed: r.Seed, Steps: []JSONStep{}, Failure: r.Failure, Pinned: r.Pinned, SpecViolations: r.SpecViolations,
		FoundBy: r.FoundBy, Crowd: r.Crowd, Coverage: r.Coverage}
	if r.Property == Liveness {
		j.Bound, j.MaxRounds = r.Bound, r.MaxRounds
	}
	if r.Holds || r.Config == nil {
		return j
	}
	conv := func(steps []Step) []JSONStep {
		out := []JSONStep{}
		for _, st := range steps {
			js := JSONStep{Action: model.Actions[st.Action.ID].Name, Params: paramTexts(r.Config, st.Action),
				State: map[string]string{}, Error: st.ImplErr}
			if !st.Impl.Equal(&model.State{}) {
				for i, v := range r.Config.Values(&st.Impl) {
					js.State[model.Vars[i]] = value.Format(v)
				}
			}
			out = append(out, js)
		}
		return out
	}
	j.Steps = conv(r.Steps)
	if r.Property == Refinement {
		fs := r.FailStep
		j.FailStep = &fs
	} else {
		j.Quiesce = conv(r.Quiesce)
	}
	return j
}

// paramTexts prints an action's parameters as the spec prints them.
func paramTexts(c *model.Config, a model.Action) []string {
	info := model.Actions[a.ID]
	out := []string{}
	for i, t := range info.ParamTypes {
		d := c.Domain(t)
		if d == nil || a.Params[i] < 0 || a.Params[i] >= d.Size() {
			out = append(out, fmt.Sprint(a.Params[i]))
			continue
		}
		var b strings.Builder
		d.Format(&b, a.Params[i])
		out = append(out, b.String())
	}
	return out
}
