// Package history runs SGLang's real code commit by commit, the engine of
// `roomspec history`: for each commit, the configuration its lifecycle
// PRs say it must refine (package sglang's expectation table), what the
// probe finds in the code beside it, the property suite's verdicts next
// to the model checker's, and every counterexample of the checker run
// step by step on the real code. Gate then holds each commit to the one
// before it: a commit that makes anything worse fails, which makes
// `roomspec history` a gate for a fork's own commits.
package history

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/compiled"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
)

// Options of a run.
type Options struct {
	// Cases per property and commit; Seed of the generated cases.
	Cases int
	Seed  int64
	// Timeout bounds the wait for one reply of the harness.
	Timeout time.Duration
	// Env is the environment of the loaded code (SGLANG_* variables);
	// EnvChecked: it was checked against the newest commit's code, so an
	// older commit that does not read a key still runs.
	Env        sglang.Env
	EnvChecked bool
	// Base and Variant say what to expect of commits whose history names
	// no lifecycle PR (sglang.LoadOptions).
	Base, Variant string
	// Cache is roomspec's cache folder ("" for sglang.CacheDir()).
	Cache string
	// Backend is the KV-transfer backend driven ("" for NIXL's).
	Backend string
	// Check runs the model checker on a configuration (cfg text, named
	// name) and returns its verdicts: the command's checker, so that the
	// checker runs as `roomspec check` runs it.
	Check func(name string, text []byte) ([]check.Verdict, error)
}

// StartTimeout bounds the harness's start (Python importing SGLang's
// modules): generous, as history's runs are long and the machine may be
// busy.
const StartTimeout = 2 * time.Minute

// Properties the suite reports per commit, in the table's order.
const (
	Refinement            = conformance.Refinement
	AbortedRoomsTerminate = "AbortedRoomsTerminate"
	AbortsAcked           = "AbortsAcked"
	PromptTermination     = "PromptTermination"
)

// Row is one commit.
type Row struct {
	Commit  string `json:"commit"`
	Date    string `json:"date"`
	Subject string `json:"subject"`
	// Variant is the configuration the code was checked against;
	// Expected says where it comes from ("" where no expectation exists,
	// and NoExpectation says why: the probe chose it then).
	Variant       string                `json:"variant,omitempty"`
	Expected      string                `json:"expected,omitempty"`
	NoExpectation string                `json:"no_expectation,omitempty"`
	Ingredients   map[string]bool       `json:"ingredients,omitempty"`
	Differences   []sglang.Difference   `json:"differences,omitempty"`
	Warnings      []string              `json:"warnings,omitempty"`
	Error         string                `json:"error,omitempty"`
	Runs          []Run                 `json:"runs,omitempty"`
	Replays       []Replay              `json:"replays,omitempty"`
	Worse         []string              `json:"worse,omitempty"`
	Results       []*conformance.Result `json:"-"` // the failed runs, for their step tables

	code *sglang.Code // to run another commit's counterexamples on
}

// Run is one property of one commit: the suite's verdict on the real
// code and the model checker's on the configuration.
type Run struct {
	Property string `json:"property"`
	Holds    bool   `json:"holds"`
	Cases    int    `json:"cases"`
	Steps    int    `json:"steps,omitempty"` // the minimal counterexample's length
	Check    string `json:"check,omitempty"` // the checker's verdict (liveness)
	Agrees   bool   `json:"agrees"`          // suite and checker say the same
	// Known is false where the suite could not tell (AbortsAcked once a
	// request was left unterminated).
	Known bool `json:"known"`
	// Before is what the code of the commit before did on this run's
	// counterexample, where the property failed there too: "passes" (this
	// commit's failure is new, masked there by another) or "fails".
	Before string `json:"before,omitempty"`

	result *conformance.Result
}

// Replay is one counterexample of the model checker run step by step on
// the real code: Reproduced if the real code follows every step in
// agreement with the spec and the property fails on it too (an
// invariant or step property on the state it reaches; a liveness lasso:
// the request is left pinned, or unACKed, once decode stops and
// prefill's threads run fairly).
type Replay struct {
	Config     string `json:"config"`
	Property   string `json:"property"`
	Check      string `json:"check"`
	Steps      int    `json:"steps"`
	Reproduced bool   `json:"reproduced"`
	RealCode   string `json:"real_code"`

	Result *conformance.Result `json:"-"` // the real code's steps where not reproduced
}

// Commit runs one commit of gitDir: load and probe, the suite on the
// expected configuration, the checker, the checker's counterexamples;
// and, where a property fails at prev (the row of the commit before) as
// well, this commit's counterexample on prev's code. A commit that
// cannot run is a Row with Error, the whole reason.
func Commit(ctx context.Context, gitDir, commit string, prev *Row, opt Options) *Row {
	row := &Row{Commit: commit}
	code, err := sglang.Load(ctx, gitDir+"@"+commit, sglang.LoadOptions{Env: opt.Env, EnvChecked: opt.EnvChecked,
		Base: opt.Base, Variant: opt.Variant, Cache: opt.Cache, Backend: opt.Backend})
	if err != nil {
		row.Error = err.Error()
		if meta, gerr := sglang.Git(ctx, gitDir, "log", "-1", "--format=%ad%x00%s", "--date=short", commit, "--"); gerr == nil {
			row.Date, row.Subject, _ = strings.Cut(meta, "\x00")
		}
		return row
	}
	src := code.Source
	row.Commit, row.Date, row.Subject = src.Commit[:12], src.Date, src.Subject
	if code.Expect == nil && prev != nil && prev.code != nil {
		// Nothing says what this commit must refine: what the commit
		// before did (the first such commit's probe is the baseline).
		e := prev.code.Expect
		if e == nil {
			e = prev.code.AsFound(prev.Commit)
		}
		code.Hold(e)
	}
	row.Variant, row.Ingredients, row.Differences = code.Variant, code.Ingredients.Switches, code.Differences
	row.Warnings = src.Warnings
	if code.Expect != nil {
		row.Expected = code.Expect.From
	} else {
		row.NoExpectation = code.NoExpectation
	}
	row.code = code
	if err := row.run(code, opt); err != nil {
		row.Error = err.Error()
		return row
	}
	if prev != nil && prev.Error == "" {
		if err := row.recheck(prev, opt); err != nil {
			row.Error = err.Error()
		}
	}
	return row
}

// recheck runs each counterexample by which row fails a property that
// failed at prev too on prev's code: where prev's code passes it, row's
// failure is new, masked at prev by another.
func (row *Row) recheck(prev *Row, opt Options) error {
	var im conformance.Implementation
	defer func() {
		if im != nil {
			im.Close()
		}
	}()
	for i := range row.Runs {
		run := &row.Runs[i]
		j := slices.IndexFunc(prev.Runs, func(p Run) bool { return p.Property == run.Property })
		if run.Holds || !run.Known || run.result == nil || j < 0 || prev.Runs[j].Holds {
			continue
		}
		if im == nil {
			im = prev.code.Implementation(subprocess.Options{Timeout: opt.Timeout, StartTimeout: StartTimeout})
		}
		t := conformance.Target{Name: "sglang:" + prev.Commit, Impl: im, Config: run.result.Config}
		r, err := t.CheckSequence(run.result.Property, conformance.Actions(run.result.Steps), run.result.Bound)
		if err != nil {
			return fmt.Errorf("%s's %s counterexample on %s: %w", row.Commit, run.Property, prev.Commit, err)
		}
		failed := !r.Holds
		if run.Property != Refinement {
			unacked, unterminated := splitPinned(r.Pinned)
			failed = unterminated && run.Property != AbortsAcked || unacked && run.Property == AbortsAcked
		}
		run.Before = "passes"
		if failed {
			run.Before = "fails"
		}
	}
	return nil
}

// config is one configuration a row runs: the expected one, and its
// PromptTermination form.
type config struct {
	name     string
	text     []byte
	c        *model.Config
	verdicts []check.Verdict
}

func (row *Row) run(code *sglang.Code, opt Options) error {
	promptName, promptText, err := sglang.Prompt(code.Variant, code.ConfigText)
	if err != nil {
		return err
	}
	main := &config{name: code.Variant, text: code.ConfigText}
	prompt := &config{name: promptName, text: promptText}
	for _, k := range []*config{main, prompt} {
		v, err := spec.Parse(k.name, k.text)
		if err != nil {
			return fmt.Errorf("configuration %s: %w", k.name, err)
		}
		if k.c, err = v.Compiled(); err != nil {
			return fmt.Errorf("configuration %s: %w", k.name, err)
		}
		if k.verdicts, err = opt.Check(k.name, k.text); err != nil {
			return fmt.Errorf("the model checker on %s: %w", k.name, err)
		}
	}
	im := code.Implementation(subprocess.Options{Timeout: opt.Timeout, StartTimeout: StartTimeout})
	defer im.Close()
	target := func(k *config) conformance.Target {
		return conformance.Target{Name: "sglang:" + row.Commit, Impl: im, Config: k.c}
	}
	suite := conformance.Options{Seed: opt.Seed, Cases: opt.Cases}
	r, err := target(main).Check(conformance.Refinement, suite)
	if err != nil {
		return err
	}
	row.add(r)
	row.Runs = append(row.Runs, Run{Property: Refinement, Holds: r.Holds, Cases: r.Cases, Steps: failSteps(r), Agrees: true, Known: true, result: r})
	for _, k := range []*config{main, prompt} {
		r, err := target(k).Check(conformance.Liveness, suite)
		if err != nil {
			return err
		}
		row.add(r)
		row.Runs = append(row.Runs, liveness(r, k == prompt, k.verdicts)...)
	}
	// Every violation the checker finds in the configuration (and the
	// prompt one's PromptTermination), run on the real code: what the
	// model says of SGLang is then what SGLang does.
	for _, k := range []*config{main, prompt} {
		for _, v := range k.verdicts {
			if v.Holds || k == prompt && v.Name != PromptTermination {
				continue
			}
			rp, err := replay(target(k), v)
			if err != nil {
				return err
			}
			row.Replays = append(row.Replays, rp)
		}
	}
	return nil
}

func (row *Row) add(r *conformance.Result) {
	if !r.Holds {
		row.Results = append(row.Results, r)
	}
}

// liveness reads one liveness run of the suite as the spec's liveness
// properties: a request left unterminated fails AbortedRoomsTerminate
// (PromptTermination in the prompt configuration), one left "not ACKed"
// fails AbortsAcked (not separately known when the other failed first).
func liveness(r *conformance.Result, prompt bool, verdicts []check.Verdict) []Run {
	unacked, unterminated := splitPinned(r.Pinned)
	type prop struct {
		name          string
		failed, known bool
	}
	props := []prop{{AbortedRoomsTerminate, unterminated, true}, {AbortsAcked, unacked, !unterminated}}
	if prompt {
		props = []prop{{PromptTermination, unterminated, true}}
	}
	var out []Run
	for _, p := range props {
		run := Run{Property: p.name, Holds: !p.failed, Cases: r.Cases, Agrees: true, Known: p.known, result: r}
		if p.failed {
			run.Steps = failSteps(r)
		}
		if i := slices.IndexFunc(verdicts, func(v check.Verdict) bool { return v.Name == p.name }); i >= 0 {
			run.Check = VerdictCell(verdicts[i])
			run.Agrees = !p.known || verdicts[i].Holds == !p.failed
		}
		out = append(out, run)
	}
	return out
}

// replay runs the checker's counterexample v on the target: first in
// lockstep with the spec (refinement), then, for a liveness lasso, with
// prefill's threads left to run fairly after it.
func replay(t conformance.Target, v check.Verdict) (Replay, error) {
	rp := Replay{Config: t.Config.Name, Property: v.Name, Check: VerdictCell(v)}
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
		rp.Result = r
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
	if r, err = t.CheckSequence(conformance.Liveness, seq, 0); err != nil {
		return rp, err
	}
	unacked, unterminated := splitPinned(r.Pinned)
	rp.Reproduced = unterminated
	what := "pinned"
	if v.Name == AbortsAcked {
		rp.Reproduced, what = unacked, "not ACKed"
	}
	var left []string
	for _, p := range r.Pinned {
		left = append(left, strings.TrimSuffix(p, " (not ACKed)"))
	}
	rp.RealCode = fmt.Sprintf("follows all %d steps; then, run fairly, %s: %s", len(seq), what, strings.Join(left, ", "))
	if !rp.Reproduced {
		rp.RealCode = fmt.Sprintf("follows all %d steps; then, run fairly, nothing is %s", len(seq), what)
		rp.Result = r
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

// VerdictCell is a checker verdict as the table shows it: "holds", or
// "VIOLATED (n)" with n the steps of the shortest counterexample
// ("+loop" for a liveness lasso).
func VerdictCell(v check.Verdict) string {
	if v.Holds {
		return "holds"
	}
	steps := len(v.Trace) - 1
	if v.LoopStart >= 0 {
		return fmt.Sprintf("VIOLATED (%d+loop)", steps)
	}
	return fmt.Sprintf("VIOLATED (%d)", steps)
}
