package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/sglang/history"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/tla/check"
)

func init() {
	register(&command{
		name:    "history",
		summary: "run the property suite on SGLang's real code commit by commit, and gate a fork's commits",
		run:     runHistory,
	})
}

const historyHelp = `Runs the property suite on SGLang's real prefill code (the sglang: harness of roomspec test)
at each commit of REPO (a bare repository, a .git folder or a checkout): refinement against the
configuration the commit's lifecycle PRs say it must refine (found by their subjects in the git
log; -base or -variant for a fork's commits whose history names none), the probe's findings
beside it, and liveness (AbortedRoomsTerminate, AbortsAcked, and PromptTermination with timeouts
not fair), each next to the model checker's verdict; then every counterexample the model
checker finds in that configuration, run step by step on the real code.

Commits: none given, the boundaries of the pull requests that changed the room lifecycle and the
newest commit (in a repository whose history names none of them, every commit that changed the
code the harness loads); BASE..TIP, BASE and then every commit after it that changed that code
(a fork's own commits); or the commits given.

Each commit is held to the one before it (the gate): it fails if it cannot run (the whole
reason is printed), if its probe finds a behaviour its lifecycle PRs do not account for, if it
fails refinement, if a property that held at the commit before fails, if suite and checker
disagree, or if a checker counterexample is not reproduced on the real code. Exit status 1 if
any commit fails the gate, 2 for bad usage.`

func runHistory(e *env, args []string) int {
	fs := newFlagSet(e, "history", "REPO [COMMIT... | BASE..TIP]", historyHelp)
	cases := fs.PositiveInt("cases", 1000, "generated `cases` per property and commit")
	seed := fs.Int64("seed", 1, "random `seed`")
	format := fs.String("format", "text", "output `format`: text or json (one object per commit)")
	var sglangEnv envList
	fs.Var(&sglangEnv, "sglang-env", "an environment variable for SGLang's code, `KEY=VALUE` (repeatable; a key the newest commit's code does not read is an error)")
	base := fs.String("base", "", "for commits whose history names no lifecycle PR: expect what `GITDIR@COMMIT`'s PRs bring")
	variant := fs.String("variant", "", "for commits whose history names no lifecycle PR: expect the bundled `variant`")
	timeout := fs.PositiveDuration("timeout", subprocess.DefaultTimeout, "the longest wait for one reply of the harness")
	backend := fs.String("backend", sglang.NIXL, "the KV-transfer `backend` whose conn.py is driven: "+strings.Join(sglang.Backends, " or ")+" (mooncake, no commits given: the PRs of Mooncake's table, conformance/sglang/mooncake.go)")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if fs.NArg() < 1 || (*format != "text" && *format != "json") {
		fs.Usage()
		return exitBadInput
	}
	if err := sglang.CheckBackend(*backend); err != nil {
		fmt.Fprintf(e.stderr, "roomspec history: -backend: %v\n", err)
		return exitBadInput
	}
	defer onSignal(subprocess.KillAll)()
	ctx := context.Background()
	commits, opt, err := historyPlan(ctx, fs.Arg(0), fs.Args()[1:], sglang.Env(sglangEnv), *backend)
	if err != nil {
		fmt.Fprintf(e.stderr, "roomspec history: %v\n", err)
		return exitBadInput
	}
	opt.Cases, opt.Seed, opt.Timeout, opt.Base, opt.Variant = *cases, *seed, *timeout, *base, *variant
	opt.Check = func(name string, text []byte) ([]check.Verdict, error) {
		vr, err := checkConfigText(name, text, 2, false, e.stderr)
		return vr.res.Verdicts, err
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	var rows []*history.Row
	var prev *history.Row
	failing := 0
	for i, commit := range commits {
		fmt.Fprintf(e.stderr, "roomspec history: [%d/%d] %s\n", i+1, len(commits), commit)
		row := history.Commit(ctx, opt.GitDir, commit, prev, opt.Options)
		if row.Error == "" {
			prev = row
		}
		rows = append(rows, row)
		failing = history.Gate(rows)
		if *format == "json" {
			enc.Encode(rows[len(rows)-1])
		}
	}
	if *format == "text" {
		history.WriteText(e.stdout, rows)
	}
	if failing > 0 {
		return exitViolation
	}
	return exitOK
}

// historyRun is what history runs: the repository and the options.
type historyRun struct {
	history.Options
	GitDir string
}

// historyPlan finds the repository, the commits and checks env against
// the newest commit's code.
func historyPlan(ctx context.Context, repoPath string, args []string, env sglang.Env, backend string) ([]string, historyRun, error) {
	repo, err := sglang.Repository(ctx, repoPath)
	if err != nil {
		return nil, historyRun{}, err
	}
	commits, err := history.Commits(ctx, repo.GitDir, args)
	if backend == sglang.Mooncake && len(args) == 0 {
		commits, err = history.MooncakeCommits(ctx, repo.GitDir)
	}
	if err != nil {
		return nil, historyRun{}, err
	}
	opt := historyRun{GitDir: repo.GitDir, Options: history.Options{Env: env, Backend: backend}}
	if len(env) > 0 {
		cache, err := sglang.CacheDir()
		if err != nil {
			return nil, historyRun{}, err
		}
		tip, err := sglang.Resolve(ctx, repo.GitDir+"@"+commits[len(commits)-1], cache)
		if err != nil {
			return nil, historyRun{}, err
		}
		if err := sglang.CheckEnv(tip, env); err != nil {
			return nil, historyRun{}, err
		}
		opt.EnvChecked = true
	}
	return commits, opt, nil
}
