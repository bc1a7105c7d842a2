package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/captured"
	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/conformance/tour"
	"github.com/roomspec/roomspec/spec"
)

const testHelp = "Runs the property suite generated from Room.tla against an implementation:\n" +
	"refinement (each step matches the spec's) and liveness (after the environment stops\n" +
	"and prefill's threads run fair round-robin, every aborted request is terminated).\n" +
	"First the tour: the implementation is driven through every edge of the spec's\n" +
	"reachable state graph (under liveness, fair quiescence runs from every state), in as\n" +
	"few steps and resets as it can; then -cases random cases, each aiming at a kind of\n" +
	"ending (a room in Success, an abort, a timeout) as often as the others. Each run\n" +
	"prints its coverage: edges and states taken, per action, the rooms' statuses\n" +
	"reached. A step the implementation refuses is a failure. A failure is shrunk to a\n" +
	"1-minimal counterexample and printed as a step table.\n\n" +
	"-impl is a built-in Go port (%s;\n" +
	"default: all of them), exec:COMMAND, an implementation speaking the JSON-lines\n" +
	"protocol of conformance/PROTOCOL.md, or sglang:SOURCE, SGLang's own prefill code run by\n" +
	"roomspec's harness (SOURCE: a checkout, its python/ folder, a site-packages folder, or\n" +
	"GITDIR@COMMIT); its ingredients are probed and pick the variant unless -variant is given.\n\n" +
	"With -captures, the properties run on captured traffic instead: for each room, every\n" +
	"schedule the capture leaves open (where prefill's unseen steps fall, the order of\n" +
	"events within -skew) is enumerated, up to -schedules of them, then -cases random\n" +
	"ones; the seed and the bound are printed first. Exit status 1 if a property fails."

// testRun is one `roomspec test` over generated cases: its options, and
// where results go.
type testRun struct {
	e         *env
	props     []string
	opt       conformance.Options
	variant   string
	sglangEnv sglang.Env
	base      string // with sglang: the commit whose lifecycle PRs a fork's tree is expected to have
	fix       string // with sglang: the fix applied to a copy of the code
	backend   string // with sglang: the KV-transfer backend driven
	proc      subprocess.Options
	json      *json.Encoder // nil: text
	itfDir    string
	htmlDir   string
}

func runTest(e *env, args []string) int {
	fs := newFlagSet(e, "test", "", fmt.Sprintf(testHelp, strings.Join(conformance.BuiltinNames(), ", ")))
	implName := fs.String("impl", "", "implementation: a built-in `name`, exec:COMMAND or sglang:SOURCE (default: every built-in)")
	sglangSrc := fs.String("sglang", "", "SGLang's code at `SOURCE`, checked against the configuration it calls for (the same as -impl sglang:SOURCE; with -captures, the captured rooms are judged under that configuration and run on that code)")
	tr := &testRun{e: e}
	fs.Var((*envList)(&tr.sglangEnv), "sglang-env", "with sglang: an environment variable for SGLang's code, `KEY=VALUE` (repeatable)")
	fs.StringVar(&tr.variant, "variant", "", "bundled spec `variant` to check against (default: the built-in's own; upstream for exec:)")
	fs.StringVar(&tr.fix, "fix", "", "with sglang: apply the fix `NAME` (complete) to a copy of the code first; expected then: the fix's configuration (fixed-complete) unless -variant says")
	fs.StringVar(&tr.backend, "backend", sglang.NIXL, "with sglang: the KV-transfer `backend` whose conn.py is driven: "+strings.Join(sglang.Backends, " or "))
	fs.StringVar(&tr.base, "base", "", "with sglang: code of no known commit (a fork's tree): expect what the lifecycle PRs of `COMMIT` bring (a commit of the source's repository, or GITDIR@COMMIT)")
	property := fs.String("property", "both", "`property` to run: refinement, liveness or both")
	seed := fs.Int64("seed", 0, "random `seed` (default: from the clock, printed)")
	cases := fs.PositiveInt("cases", 100, "random `cases` per property, after the tour")
	steps := fs.PositiveInt("steps", 30, "longest random case")
	bound := fs.PositiveInt("bound", conformance.DefaultBound, "fair round-robin `rounds` allowed for quiescence (liveness)")
	noTour := fs.Bool("no-tour", false, "skip the tour of the spec's graph: random cases only")
	maxStates := fs.PositiveInt("max-states", tour.DefaultMaxStates, "the most `states` of the spec's graph explored for the tour (over it: random cases only, said so)")
	format := fs.String("format", "text", "output `format`: text or json (one object per property run)")
	fs.StringVar(&tr.itfDir, "itf", "", "write each counterexample as ITF JSON into `dir`")
	captures := fs.String("captures", "", "run on the schedules that captured traffic allows: a capture `file` or a folder of them")
	timeout := fs.PositiveDuration("timeout", subprocess.DefaultTimeout, "exec: the longest wait for a reply")
	startTimeout := fs.PositiveDuration("start-timeout", subprocess.DefaultStartTimeout, "exec: the longest wait for the first reply (the process starting)")
	skew := skewFlag(fs) // with -captures, as replay's and watch's
	schedules := fs.PositiveInt("schedules", captured.DefaultMaxSchedules, "with -captures: the schedules of a room enumerated before random ones (-cases of them) are generated")
	fs.StringVar(&tr.htmlDir, "html", "", "write each counterexample as a sequence diagram (HTML) into `DIR` (with -captures: DIR/captures.html, every room)")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if code, ok := tr.validate(fs, *format, *property); !ok {
		return code
	}
	if *seed == 0 {
		*seed = time.Now().UnixNano() % 1_000_000_007
	}
	names := conformance.BuiltinNames()
	if *sglangSrc != "" {
		if *implName != "" && *implName != "sglang:"+*sglangSrc {
			fmt.Fprintf(e.stderr, "roomspec test: -sglang %s and -impl %s: give one of them\n", *sglangSrc, *implName)
			return exitBadInput
		}
		*implName = "sglang:" + *sglangSrc
	}
	if *implName != "" {
		names = []string{*implName}
	}
	if *captures != "" {
		opt := captured.Options{Seed: *seed, Cases: *cases, Skew: skewOption(*skew), Bound: *bound, MaxSchedules: *schedules}
		load := sglang.LoadOptions{Env: tr.sglangEnv, Variant: tr.variant, Base: tr.base, Fix: tr.fix, Backend: tr.backend, Warn: warnTo(e.stderr, "roomspec test")}
		return runCaptures(e, names, *captures, opt, load, tr.htmlDir, args)
	}
	tr.opt = conformance.Options{Seed: *seed, Cases: *cases, MaxSteps: *steps, Bound: *bound, NoTour: *noTour, MaxStates: *maxStates}
	tr.proc = subprocess.Options{Timeout: *timeout, StartTimeout: *startTimeout}
	defer onSignal(subprocess.KillAll)() // child processes die with roomspec
	code := exitOK
	for _, name := range names {
		c := tr.one(name)
		if c == exitBadInput {
			return c
		}
		code = max(code, c)
	}
	return code
}

// validate checks the arguments that flags cannot: no positional ones,
// the format and the property.
func (tr *testRun) validate(fs *flagSet, format, property string) (int, bool) {
	if fs.NArg() != 0 {
		fs.Usage()
		return exitBadInput, false
	}
	if err := checkVariant(tr.variant); err != nil {
		fmt.Fprintf(tr.e.stderr, "roomspec test: %v\n", err)
		return exitBadInput, false
	}
	if err := sglang.CheckBackend(tr.backend); err != nil {
		fmt.Fprintf(tr.e.stderr, "roomspec test: -backend: %v\n", err)
		return exitBadInput, false
	}
	switch format {
	case "text":
	case "json":
		tr.json = json.NewEncoder(tr.e.stdout)
		tr.json.SetEscapeHTML(false)
	default:
		fmt.Fprintf(tr.e.stderr, "roomspec test: -format must be text or json, not %q\n", format)
		return exitBadInput, false
	}
	switch property {
	case "both":
		tr.props = []string{conformance.Refinement, conformance.Liveness}
	case conformance.Refinement, conformance.Liveness:
		tr.props = []string{property}
	default:
		fmt.Fprintf(tr.e.stderr, "roomspec test: -property must be refinement, liveness or both, not %q\n", property)
		return exitBadInput, false
	}
	return 0, true
}

// runCaptures is `roomspec test -captures`.
func runCaptures(e *env, names []string, arg string, opt captured.Options, load sglang.LoadOptions, htmlDir string, args []string) int {
	files, err := captureFiles(arg)
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec test: %v\n", err)
		return exitBadInput
	}
	cr := &capturedRun{e: e, impls: names, opt: opt, load: load}
	if htmlDir != "" {
		cr.page = capturedPage(names, opt.Seed, opt.Cases, args)
		cr.html = htmlDir
	}
	return cr.run(files)
}

// one runs the properties on the implementation name (and, for SGLang's
// code, its deferred form).
func (tr *testRun) one(name string) int {
	t, rc, err := tr.target(name)
	if err != nil {
		fmt.Fprintf(tr.e.stderr, "roomspec test: %v\n", err)
		return exitBadInput
	}
	code := tr.form(name, t, rc, tr.props)
	if code == exitBadInput || rc == nil || rc.ClockDiffers() {
		return code
	}
	return max(code, tr.deferredForm(name, rc))
}

// form runs props on the implementation t, against its configuration,
// and closes it.
func (tr *testRun) form(name string, t conformance.Target, rc *realCode, props []string) (code int) {
	defer func() {
		if err := t.Impl.Close(); err != nil {
			fmt.Fprintf(tr.e.stderr, "roomspec test: %s: close: %v\n", name, err)
		}
	}()
	code = exitOK
	// The probe's findings beside what the commit is expected to hold: a
	// difference is a failure, whatever the properties say.
	if rc != nil && rc.report(tr.e.stdout, tr.e.stderr, "roomspec test: "+name) {
		code = exitViolation
	}
	if rc != nil && rc.ClockDiffers() {
		fmt.Fprintf(tr.e.stdout, "%s: the properties are not run: the code's bootstrap timeout is not the configuration's (%s)\n", name, rc.Variant)
		return exitViolation
	}
	opt := tr.opt
	opt.Crowd = sglang.Crowd(t.Config.Name)
	for _, p := range props {
		r, err := t.Check(p, opt)
		if err != nil {
			fmt.Fprintf(tr.e.stderr, "roomspec test: %s: %v\n", name, err)
			return exitBadInput
		}
		tr.print(r, rc)
		if r.Holds {
			continue
		}
		code = exitViolation
		if err := tr.save(r); err != nil {
			fmt.Fprintf(tr.e.stderr, "roomspec test: %v\n", err)
			return exitBadInput
		}
	}
	return code
}

// deferredForm runs refinement of SGLang's code in its deferred form
// (sglang.Code.DeferredForm: the decode-side release on, against
// sglang-X-deferred), where it has one.
func (tr *testRun) deferredForm(name string, rc *realCode) int {
	d, err := rc.DeferredForm(context.Background())
	switch {
	case errors.Is(err, sglang.ErrNoDeferredRelease):
		fmt.Fprintf(tr.e.stdout, "%s: %v\n", name, err)
		return exitViolation
	case err != nil:
		fmt.Fprintf(tr.e.stderr, "roomspec test: %s: %v\n", name, err)
		return exitBadInput
	case d == nil || !slices.Contains(tr.props, conformance.Refinement):
		return exitOK
	}
	// Refinement only: the release is off by default, and its liveness
	// fails on #35360's own code (AbortsAcked, the ACK-target bugs in
	// README), which -sglang-env DeferredEnv=1 runs in full.
	fmt.Fprintf(tr.e.stderr, "roomspec test: %s: and with %s=1, refinement against %s\n", name, sglang.DeferredEnv, d.Variant)
	drc := &realCode{d}
	t := conformance.Target{Name: name, Impl: drc.implementation(tr.proc)}
	if t.Config, err = drc.config(); err != nil {
		t.Impl.Close()
		fmt.Fprintf(tr.e.stderr, "roomspec test: %s: %v\n", name, err)
		return exitBadInput
	}
	return tr.form(name, t, drc, []string{conformance.Refinement})
}

// target loads the implementation name and the configuration it is
// checked against; rc is set for SGLang's real code.
func (tr *testRun) target(name string) (conformance.Target, *realCode, error) {
	t := conformance.Target{Name: name}
	v := tr.variant
	var rc *realCode
	switch {
	case strings.HasPrefix(name, "sglang:"):
		var err error
		rc, err = loadRealCode(context.Background(), strings.TrimPrefix(name, "sglang:"), sglang.LoadOptions{Env: tr.sglangEnv,
			Variant: v, Base: tr.base, Fix: tr.fix, Backend: tr.backend, Warn: warnTo(tr.e.stderr, "roomspec test")})
		if err != nil {
			return t, nil, err
		}
		if t.Config, err = rc.config(); err != nil {
			return t, nil, err
		}
		fmt.Fprintf(tr.e.stderr, "roomspec test: %s: SGLang %s, %s's backend, variant %s\n", name, rc.Source.Label(),
			rc.Source.BackendName(), rc.Variant)
		t.Impl = rc.implementation(tr.proc)
		return t, rc, nil
	case tr.fix != "":
		return t, nil, fmt.Errorf("-fix %s: a fix edits SGLang's code, so it needs -impl sglang:SOURCE (not %s)", tr.fix, name)
	case strings.HasPrefix(name, "exec:"):
		t.Impl = subprocess.New(strings.TrimPrefix(name, "exec:"), tr.proc)
		if v == "" {
			v = "upstream"
		}
	default:
		b, own, err := conformance.Builtin(name)
		if err != nil {
			return t, nil, fmt.Errorf("%w (built-in: %s)", err, strings.Join(conformance.BuiltinNames(), ", "))
		}
		t.Impl = b
		if v == "" {
			v = own
		}
	}
	c, err := spec.Compiled(v)
	if err != nil {
		t.Impl.Close()
		return t, nil, err
	}
	t.Config = c
	return t, nil, nil
}

// print writes a result as text or JSON.
func (tr *testRun) print(r *conformance.Result, rc *realCode) {
	switch {
	case tr.json == nil:
		conformance.WriteText(tr.e.stdout, r)
	case rc != nil:
		tr.json.Encode(rc.annotate(conformance.ToJSON(r)))
	default:
		tr.json.Encode(conformance.ToJSON(r))
	}
}

// save writes a counterexample where -html and -itf say.
func (tr *testRun) save(r *conformance.Result) error {
	if tr.htmlDir != "" {
		if err := writeResultHTML(tr.htmlDir, r); err != nil {
			return err
		}
	}
	if tr.itfDir != "" {
		return writeITF(tr.itfDir, r)
	}
	return nil
}

func writeITF(dir string, r *conformance.Result) error {
	data, err := conformance.SaveITF(r)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := fileName(r.Impl)
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s.itf.json", name, r.Property)), append(data, '\n'), 0o644)
}

func init() {
	register(&command{
		name:    "test",
		summary: "run the generated property suite against implementation models",
		run:     runTest,
	})
}
