package history

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/conformance/sglang"
)

// ErrNoCommits: nothing to run in the repository.
var ErrNoCommits = errors.New("no commit to run")

// Commits returns the commits of gitDir to run, oldest first, from the
// command line's arguments after the repository:
//
//   - none: the lifecycle table (each lifecycle PR's commit, and the one
//     before it where the PR says so, then the newest commit of the
//     branch that has them); in a repository whose history names none of
//     the lifecycle PRs (a fork's own repository), every commit on HEAD's
//     first-parent line that changed the code the harness loads, and
//     HEAD;
//   - BASE..TIP: BASE, then every commit after it on TIP's first-parent
//     line that changed that code, and TIP: a fork's own commits, each
//     held to the one before it;
//   - commits: those.
func Commits(ctx context.Context, gitDir string, args []string) ([]string, error) {
	switch {
	case len(args) == 1 && strings.Contains(args[0], ".."):
		base, tip, _ := strings.Cut(args[0], "..")
		if base == "" || tip == "" || strings.HasPrefix(tip, ".") {
			return nil, fmt.Errorf("%s: want BASE..TIP", args[0])
		}
		return changed(ctx, gitDir, base, tip)
	case len(args) > 0:
		return args, nil
	}
	out, err := lifecycleCommits(ctx, gitDir, sglang.Lifecycle)
	if errors.Is(err, ErrNoCommits) {
		return changed(ctx, gitDir, "", "HEAD")
	}
	return out, err
}

// changed is base (if given), the commits of base..tip on tip's
// first-parent line that changed sglang.Paths, and tip.
func changed(ctx context.Context, gitDir, base, tip string) ([]string, error) {
	rng := tip
	var out []string
	if base != "" {
		sha, err := sglang.Git(ctx, gitDir, "rev-parse", "--verify", "--quiet", base+"^{commit}")
		if err != nil || sha == "" {
			return nil, fmt.Errorf("%s: no commit %q", gitDir, base)
		}
		rng, out = base+".."+tip, []string{sha[:12]}
	}
	log, err := sglang.Git(ctx, gitDir, append([]string{"rev-list", "--first-parent", "--reverse", rng, "--"}, sglang.Paths...)...)
	if err != nil {
		return nil, fmt.Errorf("%s: git rev-list %s: %w", gitDir, rng, err)
	}
	for _, sha := range strings.Fields(log) {
		out = append(out, sha[:12])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: no commit of %s changed %s", gitDir, ErrNoCommits, rng, strings.Join(sglang.Paths, ", "))
	}
	last, err := sglang.Git(ctx, gitDir, "rev-parse", "--verify", "--quiet", tip+"^{commit}")
	if err != nil || last == "" {
		return nil, fmt.Errorf("%s: no commit %q", gitDir, tip)
	}
	if len(out) == 0 || !strings.HasPrefix(last, out[len(out)-1]) {
		out = append(out, last[:12])
	}
	return out, nil
}

// MooncakeCommits are the commits of gitDir that history runs with
// -backend mooncake and no commits given: those of
// sglang.MooncakeLifecycle's rows, then the newest commit.
func MooncakeCommits(ctx context.Context, gitDir string) ([]string, error) {
	return lifecycleCommits(ctx, gitDir, sglang.MooncakeLifecycle)
}

// lifecycleCommits finds the commits of table prs in gitDir: for each PR
// its commit (and, where asked, its parent), then the newest commit of the
// branch that has them. ErrNoCommits: the history names none of the PRs.
func lifecycleCommits(ctx context.Context, gitDir string, prs []sglang.PR) ([]string, error) {
	git := func(args ...string) (string, error) { return sglang.Git(ctx, gitDir, args...) }
	last := prs[len(prs)-1].Number
	tipOf := "HEAD"
	if ids, err := git("log", "--all", "--format=%H", "--fixed-strings", "--grep=(#"+last+")"); err == nil && ids != "" {
		sha := strings.Fields(ids)[0]
		if tips, err := git("for-each-ref", "--sort=-committerdate", "--contains", sha, "--format=%(objectname)", "refs/heads", "refs/remotes"); err == nil && tips != "" {
			tipOf = strings.Fields(tips)[0]
		}
	}
	var out []string
	for _, p := range prs {
		if !p.Row {
			continue
		}
		ids, err := git("log", tipOf, "--format=%H", "--fixed-strings", "--grep=(#"+p.Number+")")
		if err != nil {
			return nil, fmt.Errorf("%s: git log: %w", gitDir, err)
		}
		f := strings.Fields(ids)
		if len(f) == 0 {
			continue // not in this repository's history: no row
		}
		sha := f[len(f)-1] // the oldest, where a subject repeats
		if p.Parent {
			out = append(out, sha[:12]+"^")
		}
		out = append(out, sha[:12])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w: its history names none of the lifecycle PRs (#%s ... #%s)", gitDir, ErrNoCommits, prs[0].Number, last)
	}
	tip, err := git("rev-parse", "--short=12", tipOf)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", gitDir, err)
	}
	if !strings.HasPrefix(out[len(out)-1], tip) {
		out = append(out, tip)
	}
	return out, nil
}
