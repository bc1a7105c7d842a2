package conformance

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/roomspec/roomspec/spec/model"
)

// WriteText prints a result: one summary line, and for a failure the
// counterexample as a step table (step, action, what changed in the spec,
// and where the implementation's state differs from the spec's).
func WriteText(w io.Writer, r *Result) {
	verdict := "holds"
	if !r.Holds {
		verdict = "FAILS"
	}
	fmt.Fprintf(w, "%s (%s) %s: %s after %d cases (seed %d)", r.Impl, r.Variant, r.Property, verdict, r.Cases, r.Seed)
	if r.Property == Liveness {
		fmt.Fprintf(w, ", fair round-robin bound %d rounds, most needed %d", r.Bound, r.MaxRounds)
	}
	fmt.Fprintln(w)
	if len(r.SpecViolations) > 0 {
		fmt.Fprintf(w, "  note: the spec itself violates %s under %s (not held against the implementation)\n",
			strings.Join(r.SpecViolations, ", "), r.Variant)
	}
	if r.Holds || r.Config == nil {
		return
	}
	fmt.Fprintf(w, "  %s\n", r.Failure)
	fmt.Fprintf(w, "  counterexample: %d steps (gopter shrank to %d, then 1-minimized)\n", len(r.Steps), r.Shrunk)
	WriteSteps(w, r.Config, r.Steps, r.FailStep, r.Property == Refinement)
	if r.Property == Liveness {
		fmt.Fprintf(w, "  then the environment stops; the implementation's threads run fair round-robin:\n")
		prev := model.State{}
		if n := len(r.Steps); n > 0 {
			prev = r.Steps[n-1].Impl
		} else {
			prev = r.Config.Init()
		}
		writeTable(w, r.Config, r.Quiesce, prev, -2, false)
		fmt.Fprintf(w, "  not terminated: %s\n", strings.Join(r.Pinned, ", "))
	}
}

// WriteSteps prints steps as a table. failAt marks the failing step;
// withImpl adds the implementation's state where it differs.
func WriteSteps(w io.Writer, c *model.Config, steps []Step, failAt int, withImpl bool) {
	writeTable(w, c, steps, c.Init(), failAt, withImpl)
}

func writeTable(w io.Writer, c *model.Config, steps []Step, prev model.State, failAt int, withImpl bool) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  step\taction\tspec: changed\timplementation")
	prevVals := varValues(c, &prev)
	for i, st := range steps {
		mark := fmt.Sprint(i + 1)
		if i == failAt {
			mark += " <-"
		}
		name := c.ActionString(st.Action)
		if st.Stutter {
			name = "(stutter)"
		}
		vals := varValues(c, &st.Spec)
		var changed []string
		for j, v := range model.Vars {
			changed = append(changed, changedEntries(v, prevVals[j], vals[j])...)
		}
		var implCol []string
		if st.ImplErr != "" {
			implCol = append(implCol, "error: "+st.ImplErr)
		}
		if withImpl && !st.Impl.Equal(&st.Spec) && st.Impl.RequestStatus != nil {
			iv := varValues(c, &st.Impl)
			for j, v := range model.Vars {
				for _, d := range diffEntries(v, vals[j], iv[j]) {
					implCol = append(implCol, d[0]+" = "+d[2]+" (spec: "+d[1]+")")
				}
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

// JSONStep is one step of a counterexample in JSON output.
type JSONStep struct {
	Action string            `json:"action"`
	Params []string          `json:"params"`
	State  map[string]string `json:"state"`
	Error  string            `json:"error,omitempty"`
}

// JSONResult is one property run in JSON output.
type JSONResult struct {
	Impl           string     `json:"impl"`
	Variant        string     `json:"variant"`
	Property       string     `json:"property"`
	Holds          bool       `json:"holds"`
	Cases          int        `json:"cases"`
	Seed           int64      `json:"seed"`
	Steps          []JSONStep `json:"steps"`
	Failure        string     `json:"failure,omitempty"`
	FailStep       *int       `json:"fail_step,omitempty"`
	Quiesce        []JSONStep `json:"quiesce,omitempty"`
	Pinned         []string   `json:"pinned,omitempty"`
	Bound          int        `json:"bound,omitempty"`
	MaxRounds      int        `json:"max_rounds,omitempty"`
	SpecViolations []string   `json:"spec_violations,omitempty"`
}

// ToJSON converts r for JSON output: steps carry the implementation's
// observed state, variable by variable, as TLA+ values.
func ToJSON(r *Result) JSONResult {
	j := JSONResult{Impl: r.Impl, Variant: r.Variant, Property: r.Property, Holds: r.Holds, Cases: r.Cases,
		Seed: r.Seed, Steps: []JSONStep{}, Failure: r.Failure, Pinned: r.Pinned, SpecViolations: r.SpecViolations}
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
			if st.Impl.RequestStatus != nil {
				for i, v := range varValues(r.Config, &st.Impl) {
					js.State[model.Vars[i]] = v
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

// changedEntries describes how variable v's value text went from a to b:
// for a function, one "v[k] = value" per key whose value changed (as
// roomspec check prints steps), else "v = b". Nothing if a == b.
func changedEntries(v, a, b string) []string {
	var out []string
	for _, d := range diffEntries(v, a, b) {
		out = append(out, d[0]+" = "+d[2])
	}
	return out
}

// diffEntries compares variable v's value texts a and b: for a function,
// one {"v[k]", a's value, b's value} per key whose value differs, else
// {"v", a, b}; nothing if a == b.
func diffEntries(v, a, b string) [][3]string {
	if a == b {
		return nil
	}
	whole := [][3]string{{v, a, b}}
	ka, okA := fnEntries(a)
	kb, okB := fnEntries(b)
	if !okA || !okB || len(ka) != len(kb) {
		return whole
	}
	var out [][3]string
	for i := range kb {
		if kb[i][0] != ka[i][0] {
			return whole
		}
		if kb[i][1] != ka[i][1] {
			out = append(out, [3]string{v + "[" + kb[i][0] + "]", ka[i][1], kb[i][1]})
		}
	}
	return out
}

// fnEntries splits a function printed as "(k1 :> v1 @@ k2 :> v2)" into
// its key/value texts, in order.
func fnEntries(s string) ([][2]string, bool) {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return nil, false
	}
	var out [][2]string
	for _, part := range splitTop(s[1:len(s)-1], " @@ ") {
		kv := splitTop(part, " :> ")
		if len(kv) != 2 {
			return nil, false
		}
		out = append(out, [2]string{kv[0], kv[1]})
	}
	return out, true
}

// splitTop splits s on sep where sep is outside brackets and strings.
func splitTop(s, sep string) []string {
	var out []string
	depth, start, inStr := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case inStr:
			if ch == '\\' {
				i++
			} else if ch == '"' {
				inStr = false
			}
		case ch == '"':
			inStr = true
		case ch == '(' || ch == '[' || ch == '{' || (ch == '<' && i+1 < len(s) && s[i+1] == '<'):
			depth++
			if ch == '<' {
				i++
			}
		case ch == ')' || ch == ']' || ch == '}' || (ch == '>' && i+1 < len(s) && s[i+1] == '>'):
			depth--
			if ch == '>' {
				i++
			}
		case depth == 0 && strings.HasPrefix(s[i:], sep):
			out = append(out, s[start:i])
			i += len(sep) - 1
			start = i + 1
		}
	}
	return append(out, s[start:])
}
