package history

import (
	"fmt"
	"slices"
)

// Gate holds each row to the one before it (the last one that ran) and
// sets its Worse: what the commit makes worse. A commit fails the gate
// when
//
//   - it cannot run (the whole reason);
//   - its probe finds a behaviour its lifecycle PRs do not account for
//     that the commit before did not have (where nothing says what a
//     fork's first commit must refine, its probe's findings are what the
//     commits after it are held to);
//   - it fails refinement, or a property of the suite, that held at the
//     commit before, or that failed there too but on other behaviours
//     (the commit before passes this one's counterexample: Run.Before);
//   - suite and checker disagree, or a checker counterexample is not
//     reproduced on the real code, where they did not at the commit
//     before.
//
// The first row is held to nothing before it: whatever fails there but
// a liveness property fails the gate. Gate returns the number of rows
// that fail.
func Gate(rows []*Row) int {
	var prev *Row
	failing := 0
	for _, r := range rows {
		r.Worse = worse(r, prev)
		if len(r.Worse) > 0 {
			failing++
		}
		if r.Error == "" {
			prev = r
		}
	}
	return failing
}

func worse(r, prev *Row) []string {
	if r.Error != "" {
		return []string{"cannot run: " + r.Error}
	}
	var out []string
	for _, d := range r.Differences {
		if prev == nil || !slices.Contains(prev.Differences, d) {
			out = append(out, "behaviour changed with no lifecycle PR: "+d.String())
		}
	}
	for _, run := range r.Runs {
		if w := runWorse(r, run, prev); w != "" {
			out = append(out, w)
		}
	}
	for _, rp := range r.Replays {
		if !rp.Reproduced && (prev == nil || !slices.ContainsFunc(prev.Replays, func(p Replay) bool {
			return p.Property == rp.Property && p.Config == rp.Config && !p.Reproduced
		})) {
			out = append(out, fmt.Sprintf("the checker's %s counterexample (%s) is not reproduced: the real code %s", rp.Property, rp.Config, rp.RealCode))
		}
	}
	return out
}

// runWorse says how run makes r worse than prev, if it does.
func runWorse(r *Row, run Run, prev *Row) string {
	var before *Run
	if prev != nil {
		if i := slices.IndexFunc(prev.Runs, func(p Run) bool { return p.Property == run.Property }); i >= 0 {
			before = &prev.Runs[i]
		}
	}
	if !run.Agrees && (before == nil || before.Agrees) {
		return fmt.Sprintf("%s: the suite says %s on the real code, the model checker %s", run.Property, holds(run.Holds), run.Check)
	}
	if run.Holds || !run.Known {
		return ""
	}
	what := fmt.Sprintf("%s fails (%d steps, the step table below)", run.Property, run.Steps)
	if run.Property == Refinement {
		what = fmt.Sprintf("refinement fails: the real code departs from %s (%d steps, the step table below)", r.Variant, run.Steps)
	}
	switch {
	case before == nil && (prev == nil || run.Property == Refinement):
		if run.Property == Refinement {
			return what
		}
		return ""
	case before == nil || !before.Known:
		return ""
	case before.Holds:
		return fmt.Sprintf("%s; it held at %s", what, prev.Commit)
	case run.Before == "passes":
		return fmt.Sprintf("%s; it failed at %s too, but %s passes this counterexample: a new failure", what, prev.Commit, prev.Commit)
	}
	return ""
}

func holds(b bool) string {
	if b {
		return "holds"
	}
	return "fails"
}
