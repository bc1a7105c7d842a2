package sglang

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

// Code is SGLang's real code ready to run under the suite: its source,
// what it must refine (its expectation), what the probe found in it, and
// the installed harness that runs it.
type Code struct {
	Source      Source
	Env         Env
	Ingredients Ingredients
	// Expect is what the code must refine; nil where nothing says
	// (NoExpectation tells why): the probe's choice is run then.
	Expect        *Expectation
	NoExpectation string
	// Differences are the probed switches that are not the expected ones.
	Differences []Difference
	// Variant and ConfigText are the configuration the suite checks the
	// code against: Expect's, or else the probe's choice.
	Variant    string
	ConfigText []byte
	// Harness is the folder to put on PYTHONPATH.
	Harness string
}

// LoadOptions say how to load and what to expect.
type LoadOptions struct {
	Env Env
	// Variant: expect this bundled configuration.
	Variant string
	// Base: expect what the lifecycle PRs of this commit bring, for code
	// of no known commit (a fork's tree): COMMIT of the source's own
	// repository, or GITDIR@COMMIT.
	Base string
	// Cache is roomspec's cache folder; "" for CacheDir().
	Cache string
	// EnvChecked: the caller checked Env against the code of another
	// commit (history: the newest), so a key this code does not read is
	// no error.
	EnvChecked bool
	// Warn, if set, is told each of the source's warnings as soon as they
	// are known (before anything else can fail).
	Warn func(string)
	// Fix names a fix (Fixes) applied to a copy of the code before it is
	// run; without Variant or Base the code is then expected to refine
	// the fix's configuration.
	Fix string
}

// Load resolves given, checks env against the variables the code reads,
// finds the expectation, installs the harness and probes the code.
// Code older than the modelled range, or of which the expectation is
// known and no configuration models it, is an error; code of no known
// commit without Variant or Base loads with no expectation.
func Load(ctx context.Context, given string, opt LoadOptions) (*Code, error) {
	cache := opt.Cache
	if cache == "" {
		var err error
		if cache, err = CacheDir(); err != nil {
			return nil, err
		}
	}
	src, err := Resolve(ctx, given, cache)
	if err != nil {
		return nil, err
	}
	if opt.Fix != "" {
		fix, err := FindFix(opt.Fix)
		if err != nil {
			return nil, err
		}
		if src, err = ApplyFix(src, fix, cache); err != nil {
			return nil, err
		}
	}
	if opt.Warn != nil {
		for _, w := range src.Warnings {
			opt.Warn(w)
		}
	}
	if !opt.EnvChecked {
		if err := CheckEnv(src, opt.Env); err != nil {
			return nil, err
		}
	}
	c := &Code{Source: src, Env: opt.Env}
	c.Expect, err = expectationOf(ctx, src, opt)
	switch {
	case errors.Is(err, ErrNoExpectation):
		c.NoExpectation = err.Error()
	case err != nil:
		return nil, fmt.Errorf("sglang: %s: %w", src.Label(), err)
	}
	if c.Harness, err = InstallHarness(cache); err != nil {
		return nil, err
	}
	if c.Ingredients, err = Probe(ctx, c.Harness, src, opt.Env); err != nil {
		return nil, err
	}
	if c.Expect == nil {
		c.Variant, c.ConfigText, err = Choose(c.Ingredients)
		return c, err
	}
	c.Variant, c.ConfigText = c.Expect.Variant, c.Expect.Text
	c.Differences = c.compare()
	return c, nil
}

// compare is the expectation's differences from the probe; a bootstrap
// timeout the environment (-sglang-env) sets is the user's choice, not
// a difference (the harness's reset names it).
func (c *Code) compare() []Difference {
	out := c.Expect.Compare(c.Ingredients)
	for _, kv := range c.Env {
		if k, _, _ := strings.Cut(kv, "="); k == TimeoutEnv {
			return slices.DeleteFunc(out, func(d Difference) bool { return d.Switch == TimeoutSwitch })
		}
	}
	return out
}

// ClockDiffers says the code's bootstrap timeout is not the
// configuration's: the suite cannot run it against that configuration.
func (c *Code) ClockDiffers() bool {
	return slices.ContainsFunc(c.Differences, func(d Difference) bool { return d.Switch == TimeoutSwitch })
}

// expectationOf finds what src must refine: -variant, -base, its commit,
// or its checkout's HEAD; else ErrNoExpectation.
func expectationOf(ctx context.Context, src Source, opt LoadOptions) (*Expectation, error) {
	switch {
	case opt.Variant != "":
		return ExpectVariant(opt.Variant)
	case opt.Fix != "" && opt.Base == "":
		fix, err := FindFix(opt.Fix)
		if err != nil {
			return nil, err
		}
		e, err := ExpectVariant(fix.Variant)
		if err == nil {
			e.From = "the configuration of -fix " + fix.Name
		}
		return e, err
	case opt.Base != "":
		e, err := expectBase(ctx, src, opt)
		if err != nil {
			return nil, fmt.Errorf("-base %s: %w", opt.Base, err)
		}
		return e, nil
	case src.Commit != "":
		return ExpectCommit(ctx, src.GitDir, src.Commit, opt.Env)
	case src.Head != "":
		e, err := ExpectCommit(ctx, src.GitDir, src.Head, opt.Env)
		if err == nil {
			e.From = "the checkout's HEAD: " + e.From
		}
		return e, err
	}
	return nil, fmt.Errorf("%w: %s is of no known commit; the probe chose the configuration from the code itself (give -variant or -base GITDIR@COMMIT to check it against one)",
		ErrNoExpectation, src.Given)
}

// expectBase is the expectation of -base: what the lifecycle PRs of the
// base commit bring, and those of the source's own commit where it has
// one (a fork's commit may cherry-pick a PR its base lacks).
func expectBase(ctx context.Context, src Source, opt LoadOptions) (*Expectation, error) {
	gitDir, commit := src.GitDir, opt.Base
	if i := strings.LastIndex(opt.Base, "@"); i > 0 {
		repo, err := Repository(ctx, opt.Base[:i])
		if err != nil {
			return nil, err
		}
		gitDir, commit = repo.GitDir, opt.Base[i+1:]
	}
	if gitDir == "" {
		return nil, fmt.Errorf("%s is in no git repository: give -base GITDIR@COMMIT", src.Given)
	}
	sha, err := Git(ctx, gitDir, "rev-parse", "--verify", "--quiet", commit+"^{commit}")
	if err != nil || sha == "" {
		return nil, fmt.Errorf("no commit %q in %s", commit, gitDir)
	}
	e, err := ExpectCommit(ctx, gitDir, sha, opt.Env)
	if err != nil {
		return nil, err
	}
	from := "-base " + opt.Base + ": " + e.From
	own := cmp.Or(src.Commit, src.Head)
	if own == "" || src.GitDir == "" {
		e.From = from
		return e, nil
	}
	prs, err := PRsIn(ctx, src.GitDir, own)
	if err != nil {
		return nil, err
	}
	var more []string
	for _, p := range e.PRs {
		prs[p] = true
	}
	prs[Floor.Number] = true
	for _, p := range Lifecycle {
		if prs[p.Number] && !slices.Contains(e.PRs, p.Number) {
			more = append(more, "#"+p.Number)
		}
	}
	if len(more) == 0 {
		e.From = from
		return e, nil
	}
	if e, err = Expect(prs, opt.Env); err != nil {
		return nil, err
	}
	e.From = fmt.Sprintf("%s, and %s in the history of %.12s", from, strings.Join(more, " "), own)
	return e, nil
}

// Config is the configuration the suite checks the code against,
// compiled.
func (c *Code) Config() (*model.Config, error) {
	v, err := spec.Parse(c.Variant, c.ConfigText)
	if err != nil {
		return nil, fmt.Errorf("sglang: configuration %s: %w", c.Variant, err)
	}
	m, err := v.Compiled()
	if err != nil {
		return nil, fmt.Errorf("sglang: configuration %s: %w", c.Variant, err)
	}
	return m, nil
}

// Argv is the harness's command line and environment for the code
// (package subprocess runs it without a shell).
func (c *Code) Argv() (argv, env []string) {
	return append([]string{Python()}, args(c.Source, c.Env)...), append(os.Environ(), "PYTHONPATH="+c.Harness)
}

// Implementation starts the harness on the code as a supervised child
// process.
func (c *Code) Implementation(opt subprocess.Options) conformance.Implementation {
	argv, env := c.Argv()
	return subprocess.NewArgv(argv, env, opt)
}

// Notes are what the user should know before the verdict: the source's
// warnings, where the expectation comes from (or that there is none),
// and each difference between the probe and the expectation.
func (c *Code) Notes() []string {
	notes := append([]string(nil), c.Source.Warnings...)
	if c.Expect == nil {
		return append(notes, c.NoExpectation)
	}
	notes = append(notes, fmt.Sprintf("expected to refine %s (%s)", c.Expect.Variant, c.Expect.From))
	for _, d := range c.Differences {
		notes = append(notes, "PROBE DIFFERS: "+d.String())
	}
	return notes
}

// Hold makes e the code's expectation: the configuration it is checked
// against, and what its probe is compared with.
func (c *Code) Hold(e *Expectation) {
	c.Expect = e
	c.Variant, c.ConfigText = e.Variant, e.Text
	c.Differences = c.compare()
}

// AsFound is the expectation that other code behaves as c does: c's
// probed switches and the configuration they chose, for code of no
// known commit held to code before it (a fork's first commit).
func (c *Code) AsFound(label string) *Expectation {
	return &Expectation{Variant: c.Variant, Text: c.ConfigText, Switches: maps.Clone(c.Ingredients.Switches),
		From: "as found in " + label + ", whose probe chose it (no expectation exists)"}
}

// Crowd is the configuration of variant with several requests whose
// crowded-queue cases refinement runs too (conformance.Options.Crowd):
// the bundled VARIANT-rooms, where there is one (nil otherwise).
func Crowd(variant string) *model.Config {
	if !slices.Contains(spec.Variants(), variant+"-rooms") {
		return nil
	}
	c, err := spec.Compiled(variant + "-rooms")
	if err != nil {
		return nil
	}
	return c
}
