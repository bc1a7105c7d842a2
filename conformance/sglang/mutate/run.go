package mutate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/subprocess"
)

// outcome is what one run of the suite (and probe) says of some code.
type outcome struct {
	refinement     bool
	refinementText string
	liveness       bool
	pinned         []string
	livenessText   string
}

// suite runs refinement and, with liveness, liveness on impl against
// the code's configuration, as roomspec test does.
func suite(c *sglang.Code, impl conformance.Implementation, opt Options, liveness bool) (outcome, error) {
	conf, err := c.Config()
	if err != nil {
		return outcome{}, err
	}
	t := conformance.Target{Name: "sglang:" + c.Source.Label(), Impl: impl, Config: conf}
	so := conformance.Options{Seed: opt.Seed, Cases: opt.Cases, Crowd: sglang.Crowd(conf.Name)}
	var o outcome
	r, err := t.Check(conformance.Refinement, so)
	if err != nil {
		return o, err
	}
	o.refinement = r.Holds
	if !r.Holds {
		o.refinementText = fmt.Sprintf("%s (%d steps)", r.Failure, len(r.Steps))
		return o, nil // a mutant that fails refinement is killed: liveness would add nothing
	}
	if !liveness {
		return o, nil
	}
	if r, err = t.Check(conformance.Liveness, so); err != nil {
		return o, err
	}
	o.liveness, o.pinned, o.livenessText = r.Holds, r.Pinned, r.Failure
	return o, nil
}

// tracedArgv is the harness's command line run under the mutator's
// line tracer, writing coverage.
func tracedArgv(c *sglang.Code, coverage string) (argv, env []string) {
	argv, env = c.Argv()
	// argv: python -m roomspec_sglang ARGS...
	return append([]string{argv[0], "-m", "roomspec_sglang.mutate", "serve", "--coverage", coverage, "--"}, argv[3:]...), env
}

// baseline runs the probe and the suite on the unmutated code with the
// line tracer on, and merges what ran into coverage.
func baseline(ctx context.Context, c *sglang.Code, coverage string, opt Options) (Baseline, error) {
	start := time.Now()
	b := Baseline{Differences: c.Differences}
	probeCov, suiteCov := coverage+".probe", coverage+".suite"
	argv, env := tracedArgv(c, probeCov)
	if _, err := subprocess.Output(ctx, append(argv, "--probe"), subprocess.OutputOptions{Timeout: 5 * time.Minute, Env: env}); err != nil {
		return b, fmt.Errorf("mutate: the probe of the unmutated code: %w", err)
	}
	o, err := tracedSuite(c, suiteCov, opt, true)
	if err != nil {
		return b, fmt.Errorf("mutate: the unmutated code: %w", err)
	}
	if !o.refinement {
		return b, fmt.Errorf("mutate: %w against %s: %s", ErrBaseline, c.Variant, o.refinementText)
	}
	b.Refinement, b.Liveness, b.Pinned = o.refinement, o.liveness, o.pinned
	covs := []string{probeCov, suiteCov}
	// The deferred form, as roomspec test runs it: its lines count as run,
	// and a mutant is held to it too.
	d, err := c.DeferredForm(ctx)
	if err != nil {
		return b, fmt.Errorf("mutate: the unmutated code's deferred form: %w", err)
	}
	if d != nil {
		deferredCov := coverage + ".deferred"
		o, err := tracedSuite(d, deferredCov, opt, false)
		if err != nil {
			return b, fmt.Errorf("mutate: the unmutated code's deferred form: %w", err)
		}
		if !o.refinement {
			return b, fmt.Errorf("mutate: %w against %s (its deferred form): %s", ErrBaseline, d.Variant, o.refinementText)
		}
		b.Deferred = &DeferredBaseline{Variant: d.Variant, Differences: d.Differences}
		covs = append(covs, deferredCov)
	}
	b.Seconds = time.Since(start).Seconds()
	return b, mergeCoverage(coverage, covs...)
}

// tracedSuite runs the suite on c under the line tracer, which writes
// the lines run into coverage.
func tracedSuite(c *sglang.Code, coverage string, opt Options, liveness bool) (outcome, error) {
	argv, env := tracedArgv(c, coverage)
	im := subprocess.NewArgv(argv, env, subprocess.Options{Timeout: 10 * opt.Timeout, StartTimeout: 2 * subprocess.DefaultStartTimeout})
	o, err := suite(c, im, opt, liveness)
	if cerr := im.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return o, err
}

// mergeCoverage writes the union of the line sets of files into out.
func mergeCoverage(out string, files ...string) error {
	all := map[string][]int{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return fmt.Errorf("mutate: the line tracer wrote no coverage: %w", err)
		}
		var cov map[string][]int
		if err := json.Unmarshal(b, &cov); err != nil {
			return fmt.Errorf("mutate: %s: %w", f, err)
		}
		for file, lines := range cov {
			all[file] = append(all[file], lines...)
		}
	}
	for file, lines := range all {
		slices.Sort(lines)
		all[file] = slices.Compact(lines)
	}
	b, _ := json.Marshal(all)
	return os.WriteFile(out, b, 0o644)
}

// errMutantTimeout: a mutant ran longer than Options.MutantTimeout.
var errMutantTimeout = errors.New("timeout")

// runMutant writes the mutant into a copy of the source and runs it.
func runMutant(ctx context.Context, m Mutant, work, keys string, base Baseline, opt Options) Result {
	start := time.Now()
	r := Result{Mutant: m, Verdict: Killed}
	how, err := judge(ctx, m, work, keys, base, opt)
	if errors.Is(err, subprocess.ErrTimeout) || errors.Is(err, errMutantTimeout) {
		// A busy machine, or the mutant hangs: once more, with four
		// times the time; a mutant that times out again is killed by
		// the timeout, and says so.
		r.Timeout = true
		slow := opt
		slow.Timeout, slow.MutantTimeout = 4*opt.Timeout, 4*opt.MutantTimeout
		how, err = judge(ctx, m, work, keys, base, slow)
		r.Timeout = errors.Is(err, subprocess.ErrTimeout) || errors.Is(err, errMutantTimeout)
	}
	switch {
	case err != nil:
		r.How = "error: " + err.Error()
	case how == "":
		r.Verdict = Survived
	default:
		r.How = how
	}
	r.Seconds = time.Since(start).Seconds()
	return r
}

// judge runs the mutant: "" if nothing tells it from the unmutated
// code, else what does; an error where the harness cannot run it.
func judge(ctx context.Context, m Mutant, work, keys string, base Baseline, opt Options) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, opt.MutantTimeout)
	defer cancel()
	c := *opt.Code
	dir, err := os.MkdirTemp(work, "mutant-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := copySource(c.Source.Root, dir); err != nil {
		return "", fmt.Errorf("copy of the source: %w", err)
	}
	var out bytes.Buffer
	if err := python(ctx, &c, &out, "apply", "--sglang", c.Source.Root, "--id", m.ID, "--out", dir, "--env-keys", keys); err != nil {
		return "", fmt.Errorf("the mutator: %w", err)
	}
	c.Source = mutantSource(c.Source, dir, m.ID)
	ing, err := sglang.Probe(ctx, c.Harness, c.Source, c.Env)
	if err != nil {
		return "", err
	}
	if how := probeDiffers(opt.Code, ing, base); how != "" {
		return how, nil
	}
	o, err := supervisedSuite(ctx, &c, opt, true)
	if err != nil {
		return "", err
	}
	switch {
	case !o.refinement:
		return "refinement: " + o.refinementText, nil
	case o.liveness && !base.Liveness:
		return fmt.Sprintf("liveness: holds, where the unmutated code leaves %v", base.Pinned), nil
	case pinKinds(o.pinned) != pinKinds(base.Pinned):
		return "liveness: " + o.livenessText, nil
	}
	if base.Deferred == nil {
		return "", nil
	}
	// Nothing told it apart yet: its deferred form, held as the unmutated
	// code's is.
	c.Ingredients = ing
	d, err := c.DeferredForm(ctx)
	switch {
	case errors.Is(err, sglang.ErrNoDeferredRelease):
		return "probe: " + err.Error(), nil
	case err != nil:
		return "", err
	case d == nil:
		return "", fmt.Errorf("the unmutated code has a deferred form (%s) and the mutant none", base.Deferred.Variant)
	}
	if how := newDifferences(d.Differences, base.Deferred.Differences); how != "" {
		return fmt.Sprintf("with %s=1, %s", sglang.DeferredEnv, how), nil
	}
	if o, err = supervisedSuite(ctx, d, opt, false); err != nil {
		return "", err
	}
	if !o.refinement {
		return fmt.Sprintf("refinement with %s=1 (%s): %s", sglang.DeferredEnv, d.Variant, o.refinementText), nil
	}
	return "", nil
}

// mutantSource is the source of mutant id, written into dir: the
// unmutated source's backend, so that the mutant runs under the same
// harness (Mooncake's, or NIXL's).
func mutantSource(orig sglang.Source, dir, id string) sglang.Source {
	return sglang.Source{Root: dir, Given: "mutant " + id, Backend: orig.Backend}
}

// supervisedSuite runs the suite on c's harness, killed when ctx (the
// mutant's time) ends.
func supervisedSuite(ctx context.Context, c *sglang.Code, opt Options, liveness bool) (outcome, error) {
	im := c.Implementation(subprocess.Options{Timeout: opt.Timeout})
	stop := context.AfterFunc(ctx, func() { im.Close() }) // the mutant's time is up: kill its harness
	o, err := suite(c, im, opt, liveness)
	stop()
	im.Close()
	if ctx.Err() != nil {
		return o, fmt.Errorf("%w: it ran longer than %v", errMutantTimeout, opt.MutantTimeout)
	}
	return o, err
}

// pinKinds says how a liveness run failed: requests left unterminated,
// left unACKed (AbortsAcked), both or neither.
func pinKinds(pinned []string) string {
	var unacked, unterminated bool
	for _, p := range pinned {
		if strings.HasSuffix(p, "(not ACKed)") {
			unacked = true
		} else {
			unterminated = true
		}
	}
	return fmt.Sprint(unacked, unterminated)
}

// probeDiffers says which probed switch of the mutant differs from the
// unmutated code's expectation (or, without one, from its probe) where
// the unmutated code's does not.
func probeDiffers(c *sglang.Code, ing sglang.Ingredients, base Baseline) string {
	if c.Expect != nil {
		return newDifferences(c.Expect.Compare(ing), base.Differences)
	}
	var out []string
	for k, v := range ing.Switches {
		if was, ok := c.Ingredients.Switches[k]; ok && was != v {
			out = append(out, fmt.Sprintf("%s: the unmutated code has %v, the mutant %v", k, was, v))
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return ""
	}
	return "probe: " + strings.Join(out, "; ")
}

// newDifferences says which of got the unmutated code's base does not
// have, as "probe: ..." ("" if none).
func newDifferences(got, base []sglang.Difference) string {
	var out []string
	for _, d := range got {
		if !slices.Contains(base, d) {
			out = append(out, d.String())
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return ""
	}
	return "probe: " + strings.Join(out, "; ")
}

// copySource copies what the harness loads from root (a folder holding
// sglang/srt) into dir, without Python's caches.
func copySource(root, dir string) error {
	for _, p := range sglang.Paths {
		rel := strings.TrimPrefix(p, "python/")
		from := filepath.Join(root, rel)
		if _, err := os.Stat(from); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			r, _ := filepath.Rel(root, path)
			to := filepath.Join(dir, r)
			if d.IsDir() {
				return os.MkdirAll(to, 0o755)
			}
			if !d.Type().IsRegular() {
				return nil
			}
			return copyFile(path, to)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
