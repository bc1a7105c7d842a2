package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/compiled"
	"github.com/roomspec/roomspec/tla/check"
)

func init() {
	register(&command{
		name:    "history",
		summary: "run the property suite on SGLang's real code at the commits that changed the room lifecycle",
		run:     runHistory,
	})
}

// lifecyclePRs are the pull requests that changed SGLang's NIXL room
// lifecycle, in history order; before marks those whose parent commit
// the table shows too.
var lifecyclePRs = []struct {
	pr     string
	before bool
	what   string
}{
	{"27011", true, "failure_exception() clears the room"},
	{"30352", true, "the bootstrap thread handles ABORT"},
	{"31075", false, "Bootstrapping in flight raises RuntimeError"},
	{"32025", false, "worker queues sharded by destination"},
	{"30545", false, "_staging_outstanding counts chunks"},
	{"34692", true, "bootstrap timeout for NIXL"},
	{"35360", false, "deferred decode-side release; chunks counted at dequeue"},
}

// historyRow is one commit of the table.
type historyRow struct {
	Commit      string          `json:"commit"`
	Date        string          `json:"date"`
	Subject     string          `json:"subject"`
	Variant     string          `json:"variant,omitempty"`
	Ingredients map[string]bool `json:"ingredients,omitempty"`
	Error       string          `json:"error,omitempty"`
	Runs        []historyRun    `json:"runs,omitempty"`
	// Replays are the model checker's counterexamples for the chosen
	// configuration, each run on the real code.
	Replays []historyReplay `json:"replays,omitempty"`

	results []*conformance.Result
}

// historyReplay is one counterexample of the model checker run step by
// step on the real code: Reproduced if the real code follows every step
// in agreement with the spec and the property fails on it too (an
// invariant or step property on the state it reaches; a liveness lasso:
// the request is left pinned once decode stops and prefill's threads run
// fairly).
type historyReplay struct {
	Config     string `json:"config"`
	Property   string `json:"property"`
	Check      string `json:"check"`
	Steps      int    `json:"steps"`
	Reproduced bool   `json:"reproduced"`
	RealCode   string `json:"real_code"`

	result *conformance.Result // the real code's steps where not reproduced
}

// historyRun is one property of one commit: the suite's verdict on the
// real code and the model checker's on the chosen configuration.
type historyRun struct {
	Property string `json:"property"` // refinement, AbortedRoomsTerminate, AbortsAcked, PromptTermination
	Holds    bool   `json:"holds"`
	Cases    int    `json:"cases"`
	Steps    int    `json:"steps,omitempty"` // the minimal counterexample's length
	Check    string `json:"check,omitempty"` // the checker's verdict for liveness properties
	Agrees   bool   `json:"agrees"`          // suite and checker say the same (always true for refinement)
}

func runHistory(e *env, args []string) int {
	fs := newFlagSet(e, "history", "GITDIR [COMMIT...]",
		"Runs the property suite on SGLang's real prefill code (the sglang: harness of roomspec test)\n"+
			"at each commit: refinement against the configuration its probed ingredients choose, and\n"+
			"liveness (AbortedRoomsTerminate, and PromptTermination with timeouts not fair), each next\n"+
			"to the model checker's verdict for that configuration; then every counterexample the model\n"+
			"checker finds in that configuration, run step by step on the real code. Without commits it takes the\n"+
			"boundaries of the pull requests that changed the room lifecycle, found by their subjects\n"+
			"in GITDIR's log, and the newest commit. A commit the harness cannot load is a row with the\n"+
			"reason. Exit status 1 if a commit fails refinement, suite and checker disagree, or a\n"+
			"checker counterexample is not reproduced on the real code.")
	cases := fs.PositiveInt("cases", 1000, "generated `cases` per property and commit")
	seed := fs.Int64("seed", 1, "random `seed`")
	format := fs.String("format", "text", "output `format`: text or json (one object per commit)")
	var sglangEnv envList
	fs.Var(&sglangEnv, "sglang-env", "an environment variable for SGLang's code, `KEY=VALUE` (repeatable)")
	timeout := fs.PositiveDuration("timeout", subprocess.DefaultTimeout, "the longest wait for one reply of the harness")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if fs.NArg() < 1 || (*format != "text" && *format != "json") {
		fs.Usage()
		return exitBadInput
	}
	defer onSignal(subprocess.KillAll)()
	ctx := context.Background()
	gitDir := fs.Arg(0)
	commits := fs.Args()[1:]
	if len(commits) == 0 {
		var err error
		if commits, err = lifecycleCommits(ctx, gitDir); err != nil {
			fmt.Fprintf(e.stderr, "roomspec history: %v\n", err)
			return exitBadInput
		}
	}
	var rows []*historyRow
	code := exitOK
	for i, commit := range commits {
		fmt.Fprintf(e.stderr, "roomspec history: [%d/%d] %s\n", i+1, len(commits), commit)
		row := historyOf(ctx, e, gitDir+"@"+commit, sglang.Env(sglangEnv), *cases, *seed, *timeout)
		for _, r := range row.Runs {
			if !r.Agrees || (r.Property == conformance.Refinement && !r.Holds) {
				code = exitViolation
			}
		}
		for _, rp := range row.Replays {
			if !rp.Reproduced {
				code = exitViolation
			}
		}
		rows = append(rows, row)
		if *format == "json" {
			enc := json.NewEncoder(e.stdout)
			enc.SetEscapeHTML(false)
			enc.Encode(row)
		}
	}
	if *format == "text" {
		writeHistory(e.stdout, rows)
	}
	return code
}

// lifecycleCommits finds the table's commits in gitDir: for each PR of
// lifecyclePRs its commit (and, where asked, its parent), then the newest
// commit of the branch that has them.
func lifecycleCommits(ctx context.Context, gitDir string) ([]string, error) {
	git := func(args ...string) (string, error) { return sglang.Git(ctx, gitDir, args...) }
	last := lifecyclePRs[len(lifecyclePRs)-1].pr
	tipOf := "HEAD"
	if ids, err := git("log", "--all", "--format=%H", "--fixed-strings", "--grep=(#"+last+")"); err == nil && ids != "" {
		sha := strings.Fields(ids)[0]
		if tips, err := git("for-each-ref", "--sort=-committerdate", "--contains", sha, "--format=%(objectname)", "refs/heads", "refs/remotes"); err == nil && tips != "" {
			tipOf = strings.Fields(tips)[0]
		}
	}
	var out []string
	for _, p := range lifecyclePRs {
		ids, err := git("log", tipOf, "--format=%H", "--fixed-strings", "--grep=(#"+p.pr+")")
		if err != nil {
			return nil, fmt.Errorf("%s: git log: %w", gitDir, err)
		}
		f := strings.Fields(ids)
		if len(f) == 0 {
			continue // not in this repository's history: no row
		}
		sha := f[len(f)-1] // the oldest, where a subject repeats
		if p.before {
			out = append(out, sha[:12]+"^")
		}
		out = append(out, sha[:12])
	}
	tip, err := git("rev-parse", "--short=12", tipOf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", gitDir, err)
	}
	if len(out) == 0 || !strings.HasPrefix(out[len(out)-1], tip) {
		out = append(out, tip)
	}
	if len(out) == 1 {
		return nil, fmt.Errorf("%s: none of the room-lifecycle pull requests (#%s ... #%s) is in its history", gitDir, lifecyclePRs[0].pr, last)
	}
	return out, nil
}

// historyOf runs one commit: probe, choose, suite, checker.
func historyOf(ctx context.Context, e *env, given string, env sglang.Env, cases int, seed int64, timeout time.Duration) *historyRow {
	row := &historyRow{Commit: given}
	rc, err := loadRealCode(ctx, given, env, "")
	if err != nil {
		row.Error = oneLine(err)
		return row
	}
	row.Commit, row.Date, row.Subject = rc.src.Commit[:12], rc.src.Date, rc.src.Subject
	row.Variant, row.Ingredients = rc.variant, rc.ingredients.Switches
	promptName, promptText, err := sglang.Prompt(rc.variant, rc.cfgText)
	if err != nil {
		row.Error = oneLine(err)
		return row
	}
	runs := []struct {
		property, cfgName string
		cfgText           []byte
		suite             string
	}{
		{conformance.Refinement, rc.variant, rc.cfgText, conformance.Refinement},
		{"AbortedRoomsTerminate", rc.variant, rc.cfgText, conformance.Liveness},
		{"PromptTermination", promptName, promptText, conformance.Liveness},
	}
	verdicts := map[string]check.Verdict{}
	checked := map[string]variantResult{}
	for _, run := range runs[1:] {
		vr, err := checkConfigText(run.cfgName, run.cfgText, 2, false, e.stderr)
		if err != nil {
			row.Error = oneLine(err)
			return row
		}
		checked[run.cfgName] = vr
		for _, v := range vr.res.Verdicts {
			if v.Name == run.property || v.Name == "AbortsAcked" && run.property == "AbortedRoomsTerminate" {
				verdicts[v.Name] = v
			}
		}
	}
	im := rc.implementation(subprocess.Options{Timeout: timeout})
	defer im.Close()
	for _, run := range runs {
		sv, err := spec.Parse(run.cfgName, run.cfgText)
		if err != nil {
			row.Error = oneLine(err)
			return row
		}
		c, err := sv.Compiled()
		if err != nil {
			row.Error = oneLine(err)
			return row
		}
		r, err := conformance.Target{Name: "sglang:" + row.Commit, Impl: im, Config: c}.Check(run.suite,
			conformance.Options{Seed: seed, Cases: cases})
		if err != nil {
			row.Error = oneLine(err)
			return row
		}
		if !r.Holds {
			row.results = append(row.results, r)
		}
		if run.suite == conformance.Refinement {
			row.Runs = append(row.Runs, historyRun{Property: run.property, Holds: r.Holds, Cases: r.Cases, Steps: failSteps(r), Agrees: true})
			continue
		}
		// One liveness run holds the suite's verdict on the spec's
		// liveness properties: a request left unterminated fails
		// AbortedRoomsTerminate (or PromptTermination), one left "not
		// ACKed" fails AbortsAcked (not separately known when the other
		// failed first).
		unacked, unterminated := splitPinned(r.Pinned)
		props := []struct {
			name   string
			failed bool
			known  bool
		}{{run.property, unterminated, true}}
		if run.property == "AbortedRoomsTerminate" {
			props = append(props, struct {
				name   string
				failed bool
				known  bool
			}{"AbortsAcked", unacked, !unterminated})
		}
		for _, p := range props {
			hr := historyRun{Property: p.name, Holds: !p.failed, Cases: r.Cases, Agrees: true}
			if p.failed {
				hr.Steps = failSteps(r)
			}
			if v, ok := verdicts[p.name]; ok {
				hr.Check = verdictCell(v)
				hr.Agrees = !p.known || v.Holds == !p.failed
			}
			if !p.known {
				hr.Check = "not tested (" + run.property + " failed first); check: " + hr.Check
			}
			row.Runs = append(row.Runs, hr)
		}
	}
	// Every violation the checker finds in the configuration (and the
	// prompt one's PromptTermination), run on the real code: what the
	// model says of SGLang is then what SGLang does.
	for _, run := range runs[1:] {
		sv, err := spec.Parse(run.cfgName, run.cfgText)
		if err != nil {
			row.Error = oneLine(err)
			return row
		}
		c, err := sv.Compiled()
		if err != nil {
			row.Error = oneLine(err)
			return row
		}
		for _, v := range checked[run.cfgName].res.Verdicts {
			if v.Holds || run.cfgName == promptName && v.Name != run.property {
				continue
			}
			rp, err := replayCounterexample(conformance.Target{Name: "sglang:" + row.Commit, Impl: im, Config: c}, v)
			if err != nil {
				row.Error = oneLine(err)
				return row
			}
			row.Replays = append(row.Replays, rp)
		}
	}
	return row
}

// replayCounterexample runs the checker's counterexample v on the target:
// first in lockstep with the spec (refinement), then, for a liveness
// lasso, with prefill's threads left to run fairly after it.
func replayCounterexample(t conformance.Target, v check.Verdict) (historyReplay, error) {
	rp := historyReplay{Config: t.Config.Name, Property: v.Name, Check: verdictCell(v)}
	seq, err := compiled.Behaviour(t.Config, v.Trace)
	if err != nil {
		return rp, fmt.Errorf("%s counterexample of %s: %w", v.Name, t.Config.Name, err)
	}
	rp.Steps = len(seq)
	r, err := t.CheckSequence(conformance.Refinement, seq, 0)
	if err != nil {
		return rp, err
	}
	if !r.Holds {
		rp.RealCode = fmt.Sprintf("departs from the spec at step %d", r.FailStep+1)
		rp.result = r
		return rp, nil
	}
	if v.LoopStart < 0 {
		rp.Reproduced = slices.Contains(r.SpecViolations, v.Name)
		rp.RealCode = fmt.Sprintf("follows all %d steps; %s violated on its state", len(seq), v.Name)
		if !rp.Reproduced {
			rp.RealCode = fmt.Sprintf("follows all %d steps, but %s holds on its states", len(seq), v.Name)
		}
		return rp, nil
	}
	r, err = t.CheckSequence(conformance.Liveness, seq, 0)
	if err != nil {
		return rp, err
	}
	unacked, unterminated := splitPinned(r.Pinned)
	rp.Reproduced = unterminated
	what := "pinned"
	if v.Name == "AbortsAcked" {
		rp.Reproduced, what = unacked, "not ACKed"
	}
	var left []string
	for _, p := range r.Pinned {
		left = append(left, strings.TrimSuffix(p, " (not ACKed)"))
	}
	rp.RealCode = fmt.Sprintf("follows all %d steps; then, run fairly, %s: %s", len(seq), what, strings.Join(left, ", "))
	if !rp.Reproduced {
		rp.RealCode = fmt.Sprintf("follows all %d steps; then, run fairly, nothing is %s", len(seq), what)
		rp.result = r
	}
	return rp, nil
}

// failSteps is the length of a failing result's minimal counterexample.
func failSteps(r *conformance.Result) int {
	if r.Holds {
		return 0
	}
	return len(r.Steps)
}

// splitPinned tells requests left "not ACKed" (AbortsAcked) from those
// left unterminated; a refusal counts as unterminated.
func splitPinned(pinned []string) (unacked, unterminated bool) {
	for _, p := range pinned {
		if strings.HasSuffix(p, "(not ACKed)") {
			unacked = true
		} else {
			unterminated = true
		}
	}
	return unacked, unterminated
}

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// writeHistory prints the table, then each failure's minimal
// counterexample on the real code.
func writeHistory(w io.Writer, rows []*historyRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMIT\tDATE\tVARIANT\tREFINEMENT\tAbortedRoomsTerminate\tAbortsAcked\tPromptTermination\tCASES\tSUBJECT")
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t-\tcannot run: %s\t\t\t\t\t%s\n", r.Commit, r.Date, r.Error, r.Subject)
			continue
		}
		cells := map[string]string{}
		cases := 0
		counted := map[string]bool{}
		for _, run := range r.Runs {
			if run.Property != "AbortsAcked" && !counted[run.Property] {
				counted[run.Property] = true
				cases += run.Cases
			}
			cell := "holds"
			if !run.Holds {
				switch run.Property {
				case conformance.Refinement:
					cell = fmt.Sprintf("FAILS (%d steps)", run.Steps)
				case "AbortsAcked":
					cell = fmt.Sprintf("UNACKED (%d steps)", run.Steps)
				default:
					cell = fmt.Sprintf("PINS (%d steps)", run.Steps)
				}
			}
			switch {
			case run.Check == "":
			case strings.HasPrefix(run.Check, "not tested"):
				cell = "-"
			case run.Agrees:
				cell += " = check"
			default:
				cell += " ≠ check " + run.Check
			}
			cells[run.Property] = cell
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Commit, r.Date, r.Variant,
			cells[conformance.Refinement], cells["AbortedRoomsTerminate"], cells["AbortsAcked"], cells["PromptTermination"], cases, r.Subject)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMIT\tCONFIGURATION\tPROPERTY\tCHECKER\tITS COUNTEREXAMPLE ON THE REAL CODE")
	for _, r := range rows {
		for _, rp := range r.Replays {
			verdict := "REPRODUCED"
			if !rp.Reproduced {
				verdict = "NOT REPRODUCED"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s: %s\n", r.Commit, rp.Config, rp.Property, rp.Check, verdict, rp.RealCode)
		}
	}
	tw.Flush()
	for _, r := range rows {
		for _, res := range r.results {
			var b bytes.Buffer
			conformance.WriteText(&b, res)
			fmt.Fprintf(w, "\n%s %s %s:\n%s", r.Commit, r.Variant, res.Property, b.String())
		}
		for _, rp := range r.Replays {
			if rp.result == nil {
				continue
			}
			fmt.Fprintf(w, "\n%s %s: the checker's %s counterexample on the real code:\n", r.Commit, rp.Config, rp.Property)
			conformance.WriteSteps(w, rp.result.Config, rp.result.Steps, rp.result.FailStep, true)
		}
	}
}
