// Package mutate is roomspec's mutation campaign on SGLang's real code,
// the engine of `roomspec mutate`: a suite is judged by the bugs it
// catches. The harness's mutator (roomspec_sglang/mutate.py) makes
// mutants of the room lifecycle's functions with Python's ast; each is
// written into a temporary copy of the source and run as
// `roomspec test -impl sglang:` runs code: probed, its findings held to
// the expectation of the unmutated code, and the property suite at its
// default budget against the expected configuration. A mutant is killed
// when anything differs from the unmutated code's run; one that
// survives is equivalent only where the reviewed table Equivalents says
// why no configuration could tell it from the original.
package mutate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/subprocess"
)

// Mutant is one mutation of the source, as the mutator lists it.
type Mutant struct {
	// ID names the mutant in its source: FILE:INDEX.
	ID   string `json:"id"`
	File string `json:"file"`
	Line int    `json:"line"`
	// Function is the qualified name of the function mutated.
	Function string `json:"function"`
	Operator string `json:"operator"`
	What     string `json:"what"`
	// Ran: the suite runs the mutated line on the unmutated code.
	Ran  bool   `json:"ran"`
	Diff string `json:"diff"`
}

// Verdicts of a mutant.
const (
	Killed     = "killed"
	Survived   = "survived"
	Equivalent = "equivalent"
)

// Result is one mutant's verdict.
type Result struct {
	Mutant
	Verdict string `json:"verdict"`
	// How the suite told it from the original: "probe: ...",
	// "refinement: ...", "liveness: ...", "error: ..." (the harness could
	// not run it: the real code raised, a thread died, a timeout).
	How string `json:"how,omitempty"`
	// Reason a survivor is equivalent (Equivalents).
	Reason string `json:"reason,omitempty"`
	// Timeout: killed by a timeout, twice (the second time with four
	// times the time): the mutant hangs, or the machine is very busy.
	Timeout bool    `json:"timeout,omitempty"`
	Seconds float64 `json:"seconds"`
}

// Baseline is the unmutated code's run, what every mutant is held to.
type Baseline struct {
	Refinement  bool                `json:"refinement"`
	Liveness    bool                `json:"liveness"`
	Pinned      []string            `json:"pinned,omitempty"`
	Differences []sglang.Difference `json:"differences,omitempty"`
	// Deferred is the unmutated code's deferred form, where it has one
	// (sglang.Code.DeferredForm): it refines Deferred.Variant, and a
	// mutant nothing else tells apart is run in that form too.
	Deferred *DeferredBaseline `json:"deferred,omitempty"`
	Seconds  float64           `json:"seconds"`
}

// DeferredBaseline is the unmutated code's deferred form: the
// configuration it refines and its probe's differences from it.
type DeferredBaseline struct {
	Variant     string              `json:"variant"`
	Differences []sglang.Difference `json:"differences,omitempty"`
}

// Report is a campaign.
type Report struct {
	Source string `json:"source"`
	// Backend is the KV-transfer backend mutated ("" is NIXL's).
	Backend  string   `json:"backend,omitempty"`
	Commit   string   `json:"commit,omitempty"`
	Variant  string   `json:"variant"`
	Expected string   `json:"expected,omitempty"`
	Seed     int64    `json:"seed"`
	Cases    int      `json:"cases"`
	Baseline Baseline `json:"baseline"`
	// NotReached counts the mutations on lines the suite never runs on
	// the unmutated code: not made (no test could kill them).
	NotReached int      `json:"not_reached"`
	Results    []Result `json:"mutants"`
	Killed     int      `json:"killed"`
	Survived   int      `json:"survived"`
	Equivalent int      `json:"equivalent"`
}

// Options of a campaign.
type Options struct {
	// Code is the unmutated code, loaded (sglang.Load): its expectation
	// holds for every mutant.
	Code *sglang.Code
	// Seed and Cases of the suite (Cases 0: the suite's default budget).
	Seed  int64
	Cases int
	// Workers run mutants at once (0: the cores).
	Workers int
	// Timeout bounds one reply of the harness; MutantTimeout a whole
	// mutant (0: ten times the unmutated run, at least two minutes).
	Timeout, MutantTimeout time.Duration
	// Only runs these mutant IDs (each must be made); Select, if set,
	// only the mutants it selects. All also makes mutants on lines the
	// suite never runs.
	Only   []string
	Select func(Mutant) bool
	All    bool
	// Progress, if set, is called after each mutant, one call at a time.
	Progress func(done, total int, r Result)
	// Equivalents is the table of equivalent mutants (nil: the package's).
	Equivalents []Equivalence
}

// ErrBaseline: the unmutated code does not hold refinement, so no
// mutant can be judged against it.
var ErrBaseline = errors.New("the unmutated code fails refinement")

// Run makes the mutants and runs each.
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	if opt.Equivalents == nil {
		opt.Equivalents = TableFor(opt.Code.Source.Backend)
	}
	work, err := os.MkdirTemp("", "roomspec-mutate-")
	if err != nil {
		return nil, fmt.Errorf("mutate: %w", err)
	}
	defer os.RemoveAll(work)
	rep, mutants, keys, err := prepare(ctx, work, opt)
	if err != nil {
		return nil, err
	}
	if opt.MutantTimeout <= 0 {
		opt.MutantTimeout = max(2*time.Minute, time.Duration(10*rep.Baseline.Seconds*float64(time.Second)))
	}
	rep.Results = runAll(ctx, mutants, work, keys, rep.Baseline, opt)
	rep.Rejudge(opt.Equivalents)
	return rep, nil
}

// Rejudge applies table to the mutants that were not killed (a survivor
// it matches is equivalent, an equivalent it no longer matches survived)
// and counts the verdicts again: a reviewed entry added to the table
// takes effect on a saved report without running any mutant again.
func (r *Report) Rejudge(table []Equivalence) {
	r.Killed, r.Survived, r.Equivalent = 0, 0, 0
	for i := range r.Results {
		m := &r.Results[i]
		if m.Verdict != Killed {
			m.Verdict, m.Reason = Survived, ""
			if reason, ok := equivalent(table, m.Mutant); ok {
				m.Verdict, m.Reason = Equivalent, reason
			}
		}
		switch m.Verdict {
		case Killed:
			r.Killed++
		case Survived:
			r.Survived++
		case Equivalent:
			r.Equivalent++
		}
	}
}

// List runs the unmutated code (what the mutants are held to, and which
// lines the suite runs) and returns the report without results, and the
// mutants Run would run.
func List(ctx context.Context, opt Options) (*Report, []Mutant, error) {
	work, err := os.MkdirTemp("", "roomspec-mutate-")
	if err != nil {
		return nil, nil, fmt.Errorf("mutate: %w", err)
	}
	defer os.RemoveAll(work)
	rep, mutants, _, err := prepare(ctx, work, opt)
	return rep, mutants, err
}

// prepare runs the unmutated code and lists the mutants.
func prepare(ctx context.Context, work string, opt Options) (*Report, []Mutant, string, error) {
	c := opt.Code
	rep := &Report{Source: c.Source.Given, Backend: c.Source.Backend, Commit: c.Source.Commit, Variant: c.Variant, Seed: opt.Seed, Cases: opt.Cases}
	if c.Expect != nil {
		rep.Expected = c.Expect.From
	}
	coverage := filepath.Join(work, "coverage.json")
	var err error
	if rep.Baseline, err = baseline(ctx, c, coverage, opt); err != nil {
		return nil, nil, "", err
	}
	keys, err := sglang.EnvKeys(c.Source)
	if err != nil {
		return nil, nil, "", err
	}
	mutants, notReached, err := list(ctx, c, coverage, keys, opt.All)
	if err != nil {
		return nil, nil, "", err
	}
	rep.NotReached = notReached
	if opt.Select != nil {
		mutants = slices.DeleteFunc(mutants, func(m Mutant) bool { return !opt.Select(m) })
	}
	if len(opt.Only) > 0 {
		mutants = slices.DeleteFunc(mutants, func(m Mutant) bool { return !slices.Contains(opt.Only, m.ID) })
		if len(mutants) != len(opt.Only) {
			return nil, nil, "", fmt.Errorf("mutate: of the mutants %s, only %d are made in %s", strings.Join(opt.Only, ", "), len(mutants), c.Source.Label())
		}
	}
	return rep, mutants, strings.Join(keys, ","), nil
}

// runAll runs the mutants on opt.Workers workers, results in the
// mutants' order.
func runAll(ctx context.Context, mutants []Mutant, work, keys string, base Baseline, opt Options) []Result {
	results := make([]Result, len(mutants))
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range min(opt.Workers, max(len(mutants), 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = runMutant(ctx, mutants[i], work, keys, base, opt)
				mu.Lock()
				done++
				if opt.Progress != nil {
					opt.Progress(done, len(mutants), results[i])
				}
				mu.Unlock()
			}
		}()
	}
	for i := range mutants {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// python runs the harness's mutator, supervised.
func python(ctx context.Context, c *sglang.Code, stdout *bytes.Buffer, args ...string) error {
	argv := append([]string{sglang.Python(), "-m", "roomspec_sglang.mutate"}, args...)
	_, err := subprocess.Output(ctx, argv, subprocess.OutputOptions{Timeout: 10 * time.Minute, Stdout: stdout,
		Env: append(os.Environ(), "PYTHONPATH="+c.Harness)})
	return err
}

// list asks the mutator for the mutants of the code's lifecycle files
// (on the lines coverage says the suite ran, unless all).
func list(ctx context.Context, c *sglang.Code, coverage string, keys []string, all bool) ([]Mutant, int, error) {
	args := []string{"list", "--sglang", c.Source.Root, "--coverage", coverage, "--env-keys", strings.Join(keys, ",")}
	if all {
		args = append(args, "--all")
	}
	var out bytes.Buffer
	if err := python(ctx, c, &out, args...); err != nil {
		return nil, 0, fmt.Errorf("mutate: the mutator: %w", err)
	}
	var mutants []Mutant
	notReached := 0
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, subprocess.MaxOutput)
	for sc.Scan() {
		var m struct {
			Mutant
			NotReached *int `json:"not_reached"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, 0, fmt.Errorf("mutate: the mutator wrote %.80q: %w", sc.Text(), err)
		}
		if m.NotReached != nil {
			notReached = *m.NotReached
			continue
		}
		mutants = append(mutants, m.Mutant)
	}
	return mutants, notReached, sc.Err()
}
