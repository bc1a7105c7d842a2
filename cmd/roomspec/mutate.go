package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/sglang/mutate"
	"github.com/roomspec/roomspec/conformance/subprocess"
)

func init() {
	register(&command{
		name:    "mutate",
		summary: "mutation campaign on SGLang's real code: which mutants of the room lifecycle the suite kills",
		run:     runMutate,
	})
}

const mutateHelp = `Makes mutants of SGLang's room-lifecycle functions (prefill.py, nixl/conn.py, common/conn.py,
and the defaults in environ.py of the variables that code reads) with Python's ast: a statement
or a call deleted, a KVPoll member swapped, a condition negated or dropped, a number or a bytes
constant changed, a slice narrowed; only on lines the suite runs on the unmutated code (-all: on
every line). Each mutant is written into a temporary copy of the source (never into SOURCE) and
run as roomspec test -impl sglang: runs code, at the suite's default budget: probed and held to the
unmutated code's expectation (its commit's lifecycle PRs, -base or -variant), then refinement and
liveness against the expected configuration. It is killed when anything differs from the
unmutated code's run (the probe, refinement, liveness, or the harness cannot run it); a survivor is
equivalent only where roomspec's reviewed table says which configuration could tell it apart.
Mutants run in parallel, -j at once; progress on stderr. Exit status 1 if a mutant survives that
is not shown equivalent, 2 for bad usage or if the unmutated code fails refinement.`

func runMutate(e *env, args []string) int {
	fs := newFlagSet(e, "mutate", "-impl sglang:SOURCE", mutateHelp)
	implName := fs.String("impl", "", "the code to mutate: sglang:`SOURCE` (a checkout, its python/ folder, a site-packages folder, or GITDIR@COMMIT)")
	var sglangEnv envList
	fs.Var(&sglangEnv, "sglang-env", "an environment variable for SGLang's code, `KEY=VALUE` (repeatable)")
	variant := fs.String("variant", "", "expect the bundled `variant` (default: what the commit's lifecycle PRs bring)")
	backend := fs.String("backend", sglang.NIXL, "the KV-transfer `backend` whose conn.py is driven: "+strings.Join(sglang.Backends, " or "))
	base := fs.String("base", "", "code of no known commit: expect what the lifecycle PRs of `COMMIT` bring (GITDIR@COMMIT)")
	seed := fs.Int64("seed", 1, "random `seed` of the suite")
	cases := fs.Int("cases", 0, "generated `cases` per property (0: the suite's default budget)")
	jobs := fs.PositiveInt("j", runtime.NumCPU(), "mutants run at `once`")
	only := fs.String("only", "", "run only these mutant `IDs` (comma-separated, as the report names them)")
	all := fs.Bool("all", false, "also mutate lines the suite never runs on the unmutated code")
	listOnly := fs.Bool("list", false, "list the mutants (after the unmutated run) and exit")
	rejudge := fs.String("rejudge", "", "run nothing: read a campaign's JSON report from `FILE` and judge its survivors again with the current table of equivalent mutants")
	format := fs.String("format", "text", "output `format`: text or json")
	timeout := fs.PositiveDuration("timeout", subprocess.DefaultTimeout, "the longest wait for one reply of the harness")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if *rejudge != "" {
		return rejudgeReport(e, *rejudge, *format)
	}
	given, ok := strings.CutPrefix(*implName, "sglang:")
	if fs.NArg() != 0 || !ok || given == "" || (*format != "text" && *format != "json") {
		fs.Usage()
		return exitBadInput
	}
	defer onSignal(subprocess.KillAll)()
	ctx := context.Background()
	rc, err := loadRealCode(ctx, given, sglang.LoadOptions{Env: sglang.Env(sglangEnv), Variant: *variant, Base: *base,
		Backend: *backend, Warn: warnTo(e.stderr, "roomspec mutate")})
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec mutate: %v\n", err)
		return exitBadInput
	}
	rc.report(e.stderr, e.stderr, "roomspec mutate: "+*implName)
	opt := mutate.Options{Code: rc.Code, Seed: *seed, Cases: *cases, Workers: *jobs, Timeout: *timeout, All: *all,
		Progress: func(done, total int, r mutate.Result) {
			how, _, _ := strings.Cut(r.How, ":") // probe, refinement, liveness, error
			if how != "" {
				how += ", "
			}
			fmt.Fprintf(e.stderr, "roomspec mutate: [%d/%d] %s %s %s (%s%.1fs)\n", done, total, strings.ToUpper(r.Verdict), r.ID, r.What, how, r.Seconds)
		}}
	if *only != "" {
		opt.Only = strings.Split(*only, ",")
	}
	if *listOnly {
		return listMutants(e, opt, *format)
	}
	rep, err := mutate.Run(ctx, opt)
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec mutate: %v\n", err)
		return exitBadInput
	}
	return writeCampaign(e, rep, *format)
}

// writeCampaign prints the report; exit status 1 while a mutant survives
// that is not shown equivalent.
func writeCampaign(e *env, rep *mutate.Report, format string) int {
	if format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		enc.Encode(rep)
	} else {
		mutate.WriteText(e.stdout, rep)
	}
	fmt.Fprintf(e.stderr, "roomspec mutate: %s\n", rep.Summary())
	if rep.Survived > 0 {
		return exitViolation
	}
	return exitOK
}

// rejudgeReport judges a saved campaign's survivors again.
func rejudgeReport(e *env, file, format string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec mutate: %v\n", err)
		return exitBadInput
	}
	var rep mutate.Report
	if err := json.Unmarshal(b, &rep); err != nil || rep.Results == nil {
		fmt.Fprintf(e.stderr, "roomspec mutate: %s: not a campaign's JSON report (roomspec mutate -format json): %v\n", file, err)
		return exitBadInput
	}
	rep.Rejudge(mutate.TableFor(rep.Backend))
	return writeCampaign(e, &rep, format)
}

// listMutants prints the mutants a campaign would run.
func listMutants(e *env, opt mutate.Options, format string) int {
	rep, mutants, err := mutate.List(context.Background(), opt)
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec mutate: %v\n", err)
		return exitBadInput
	}
	if format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		for _, m := range mutants {
			enc.Encode(m)
		}
	} else {
		for _, m := range mutants {
			fmt.Fprintf(e.stdout, "%s\t%d\t%s\t%s\t%s\n", m.ID, m.Line, m.Function, m.Operator, m.What)
		}
	}
	fmt.Fprintf(e.stderr, "roomspec mutate: %d mutants (%d mutations on lines the suite never runs not made)\n", len(mutants), rep.NotReached)
	return exitOK
}
