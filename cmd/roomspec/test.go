package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/captured"
	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/spec/model"
)

func runTest(e *env, args []string) int {
	fs := newFlagSet(e, "test", "",
		"Runs the gopter property suite generated from Room.tla against an implementation:\n"+
			"refinement (each step matches the spec's) and liveness (after the environment stops\n"+
			"and prefill's threads run fair round-robin, every aborted request is terminated).\n"+
			"A failure is shrunk to a 1-minimal counterexample and printed as a step table.\n\n"+
			"-impl is a built-in Go port ("+strings.Join(conformance.BuiltinNames(), ", ")+";\n"+
			"default: all of them), exec:COMMAND, an implementation speaking the JSON-lines\n"+
			"protocol of conformance/PROTOCOL.md, or sglang:SOURCE, SGLang's own prefill code run by\n"+
			"roomspec's harness (SOURCE: a checkout, its python/ folder, a site-packages folder, or\n"+
			"GITDIR@COMMIT); its ingredients are probed and pick the variant unless -variant is given.\n\n"+
			"With -captures, the properties run on captured traffic instead: for each room, every\n"+
			"schedule the capture leaves open (where prefill's unseen steps fall, the order of\n"+
			"events within -skew) is enumerated, up to -schedules of them, then -cases random\n"+
			"ones; the seed and the bound are printed first. Exit status 1 if a property fails.")
	implName := fs.String("impl", "", "implementation: a built-in `name`, exec:COMMAND or sglang:SOURCE (default: every built-in)")
	var sglangEnv envList
	fs.Var(&sglangEnv, "sglang-env", "with sglang: an environment variable for SGLang's code, `KEY=VALUE` (repeatable)")
	variant := fs.String("variant", "", "bundled spec `variant` to check against (default: the built-in's own; upstream for exec:)")
	base := fs.String("base", "", "with sglang: code of no known commit (a fork's tree): expect what the lifecycle PRs of `COMMIT` bring (a commit of the source's repository, or GITDIR@COMMIT)")
	property := fs.String("property", "both", "`property` to run: refinement, liveness or both")
	seed := fs.Int64("seed", 0, "random `seed` (default: from the clock, printed)")
	cases := fs.PositiveInt("cases", 100, "generated `cases` per property")
	steps := fs.PositiveInt("steps", 30, "longest generated sequence")
	bound := fs.PositiveInt("bound", conformance.DefaultBound, "fair round-robin `rounds` allowed for quiescence (liveness)")
	format := fs.String("format", "text", "output `format`: text or json (one object per property run)")
	itfDir := fs.String("itf", "", "write each counterexample as ITF JSON into `dir`")
	captures := fs.String("captures", "", "run on the schedules that captured traffic allows: a capture `file` or a folder of them")
	timeout := fs.PositiveDuration("timeout", subprocess.DefaultTimeout, "exec: the longest wait for a reply")
	startTimeout := fs.PositiveDuration("start-timeout", subprocess.DefaultStartTimeout, "exec: the longest wait for the first reply (the process starting)")
	skew := skewFlag(fs) // with -captures, as replay's and watch's

	schedules := fs.PositiveInt("schedules", captured.DefaultMaxSchedules, "with -captures: the schedules of a room enumerated before random ones (-cases of them) are generated")
	htmlDir := fs.String("html", "", "write each counterexample as a sequence diagram (HTML) into `DIR` (with -captures: DIR/captures.html, every room)")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return exitBadInput
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(e.stderr, "roomspec test: -format must be text or json, not %q\n", *format)
		return exitBadInput
	}
	var props []string
	switch *property {
	case "both":
		props = []string{conformance.Refinement, conformance.Liveness}
	case conformance.Refinement, conformance.Liveness:
		props = []string{*property}
	default:
		fmt.Fprintf(e.stderr, "roomspec test: -property must be refinement, liveness or both, not %q\n", *property)
		return exitBadInput
	}
	if *seed == 0 {
		*seed = time.Now().UnixNano() % 1_000_000_007
	}
	names := conformance.BuiltinNames()
	if *implName != "" {
		names = []string{*implName}
	}
	if *captures != "" {
		files, err := captureFiles(*captures)
		if err != nil {
			fmt.Fprintf(e.stderr, "roomspec test: %v\n", err)
			return exitBadInput
		}
		opt := captured.Options{Seed: *seed, Cases: *cases, Skew: skewOption(*skew), Bound: *bound, MaxSchedules: *schedules}
		cr := &capturedRun{e: e, impls: names, opt: opt}
		if *htmlDir != "" {
			cr.page = capturedPage(names, *seed, *cases, args)
			cr.html = *htmlDir
		}
		return cr.run(files)
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	code := exitOK
	for _, name := range names {
		var im conformance.Implementation
		var rc *realCode
		var c *model.Config
		v := *variant
		if given, ok := strings.CutPrefix(name, "sglang:"); ok {
			var err error
			rc, err = loadRealCode(context.Background(), given, sglang.LoadOptions{Env: sglang.Env(sglangEnv), Variant: v, Base: *base,
				Warn: warnTo(e.stderr, "roomspec test")})
			if err != nil {
				fmt.Fprintf(e.stderr, "roomspec test: %v\n", err)
				return exitBadInput
			}
			if c, err = rc.config(); err != nil {
				fmt.Fprintf(e.stderr, "roomspec test: %v\n", err)
				return exitBadInput
			}
			v = rc.Variant
			fmt.Fprintf(e.stderr, "roomspec test: %s: SGLang %s, variant %s\n", name, rc.Source.Label(), v)
			if rc.report(e.stdout, e.stderr, "roomspec test: "+name) {
				code = exitViolation
			}
			im = rc.implementation(subprocess.Options{Timeout: *timeout, StartTimeout: *startTimeout})
			defer onSignal(subprocess.KillAll)()
		} else if cmd, ok := strings.CutPrefix(name, "exec:"); ok {
			im = subprocess.New(cmd, subprocess.Options{Timeout: *timeout, StartTimeout: *startTimeout})
			defer onSignal(subprocess.KillAll)()
			if v == "" {
				v = "upstream"
			}
		} else {
			b, own, err := conformance.Builtin(name)
			if err != nil {
				fmt.Fprintf(e.stderr, "roomspec test: %v (built-in: %s)\n", err, strings.Join(conformance.BuiltinNames(), ", "))
				return exitBadInput
			}
			im = b
			if v == "" {
				v = own
			}
		}
		if c == nil {
			var err error
			if c, err = conformance.LoadVariant(v); err != nil {
				fmt.Fprintf(e.stderr, "roomspec test: %v\n", err)
				return exitBadInput
			}
		}
		for _, p := range props {
			r, err := conformance.Target{Name: name, Impl: im, Config: c}.Check(p, conformance.Options{Seed: *seed, Cases: *cases, MaxSteps: *steps, Bound: *bound})
			if err != nil {
				im.Close()
				fmt.Fprintf(e.stderr, "roomspec test: %s: %v\n", name, err)
				return exitBadInput
			}
			if *format == "json" {
				if rc != nil {
					enc.Encode(rc.annotate(conformance.ToJSON(r)))
				} else {
					enc.Encode(conformance.ToJSON(r))
				}
			} else {
				conformance.WriteText(e.stdout, r)
			}
			if !r.Holds {
				code = exitViolation
				if *htmlDir != "" {
					if err := writeResultHTML(*htmlDir, r); err != nil {
						fmt.Fprintf(e.stderr, "roomspec test: %v\n", err)
						return exitBadInput
					}
				}
				if *itfDir != "" {
					if err := writeITF(*itfDir, r); err != nil {
						fmt.Fprintf(e.stderr, "roomspec test: %v\n", err)
						return exitBadInput
					}
				}
			}
		}
		if err := im.Close(); err != nil {
			fmt.Fprintf(e.stderr, "roomspec test: %s: close: %v\n", name, err)
		}
	}
	return code
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
