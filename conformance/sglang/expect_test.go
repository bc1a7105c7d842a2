package sglang

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The table is consistent with the bundled configurations: each PR's
// variant has exactly the switches of the variant before it with what the
// PR brings, and the deferred release turns the last one into its
// -deferred form. So the table and the configurations cannot drift apart.
func TestLifecycleTable(t *testing.T) {
	sw, err := bundledSwitches(Floor.Variant)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw) != len(Behaviour) {
		t.Fatalf("%s has %d of the %d switches Behaviour describes", Floor.Variant, len(sw), len(Behaviour))
	}
	for _, p := range Lifecycle {
		for k := range p.Brings {
			if _, ok := Behaviour[k]; !ok {
				t.Errorf("PR #%s brings %s, which Behaviour does not describe", p.Number, k)
			}
		}
		maps.Copy(sw, p.Brings)
		want, err := bundledSwitches(p.Variant)
		if err != nil {
			t.Fatalf("PR #%s: %v", p.Number, err)
		}
		if !maps.Equal(sw, want) {
			t.Errorf("PR #%s: the switches after it are %v; its variant %s has %v", p.Number, sw, p.Variant, want)
		}
	}
	maps.Copy(sw, deferredBrings)
	last := Lifecycle[len(Lifecycle)-1].Variant
	want, err := bundledSwitches(last + deferredSuffix)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(sw, want) {
		t.Errorf("%s with %s: %v; %s%s has %v", last, DeferredEnv, sw, last, deferredSuffix, want)
	}
	// Every switch has words for both of its values.
	for k, b := range Behaviour {
		if b[0] == "" || b[1] == "" || b[0] == b[1] {
			t.Errorf("Behaviour[%s] = %q", k, b)
		}
	}
}

func prs(numbers ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range numbers {
		m[n] = true
	}
	return m
}

func TestExpect(t *testing.T) {
	all := []string{Floor.Number}
	for _, p := range Lifecycle {
		all = append(all, p.Number)
	}
	deferred := Env{DeferredEnv + "=1"}
	for _, tc := range []struct {
		name    string
		prs     map[string]bool
		env     Env
		variant string
		err     error
	}{
		{"every PR", prs(all...), nil, "sglang-35360", nil},
		{"every PR, deferred on", prs(all...), deferred, "sglang-35360-deferred", nil},
		{"deferred off", prs(all...), Env{DeferredEnv + "=1", DeferredEnv + "=no"}, "sglang-35360", nil},
		{"deferred's value not a boolean", prs(all...), Env{DeferredEnv + "=maybe"}, "sglang-35360", nil},
		{"the floor only", prs(Floor.Number), nil, "sglang-pre-27011", nil},
		{"up to #30545", prs(all[:6]...), nil, "sglang-30545", nil},
		{"up to #34692", prs(all[:7]...), nil, "sglang-34692", nil},
		{"#35049, deferred off", prs(all[:8]...), nil, "sglang-34692", nil},
		{"#35049 without #35360, deferred on", prs(all[:8]...), deferred, "", ErrUnmodelled},
		{"#34692 cherry-picked alone", prs(Floor.Number, "34692"), nil, "expected", nil},
		{"before the floor", prs("27011", "30352"), nil, "", ErrBeforeFloor},
		{"no PR at all", prs(), nil, "", ErrNoExpectation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Expect(tc.prs, tc.env)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("Expect = %v, %v; want %v", e, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Variant != tc.variant {
				t.Errorf("variant %s, want %s", e.Variant, tc.variant)
			}
			c, err := (&Code{Variant: e.Variant, ConfigText: e.Text}).Config()
			if err != nil {
				t.Fatalf("the expected configuration does not compile: %v\n%s", err, e.Text)
			}
			if c.HasBootstrapTimeout != e.Switches["HasBootstrapTimeout"] || c.FailureClears != e.Switches["FailureClears"] {
				t.Errorf("the configuration's switches differ from the expectation's")
			}
		})
	}
	e, _ := Expect(prs(Floor.Number, "34692"), nil)
	if !e.Switches["HasBootstrapTimeout"] || e.Switches["FailureClears"] || !strings.Contains(string(e.Text), "#34692") {
		t.Errorf("a cherry-picked #34692: %v\n%s", e.Switches, e.Text)
	}
}

// A difference names the switch, the behaviour expected, the PR that
// brought it, and what the code does instead.
func TestCompare(t *testing.T) {
	e, err := Expect(prs(Floor.Number, "27011", "30352", "31075", "32025", "30545", "34692", "35049", "35360"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ing := Ingredients{Switches: maps.Clone(e.Switches)}
	if d := e.Compare(ing); d != nil {
		t.Fatalf("the expected switches differ from themselves: %v", d)
	}
	ing.Switches["HasBootstrapTimeout"] = false
	ing.Switches["AbortSparesSuccess"] = false
	ds := e.Compare(ing)
	if len(ds) != 2 || ds[0].Switch != "AbortSparesSuccess" || ds[1].Switch != "HasBootstrapTimeout" {
		t.Fatalf("Compare = %v", ds)
	}
	if got, want := ds[1].String(), "HasBootstrapTimeout: expected a request stuck in Bootstrapping fails after the bootstrap timeout (PR #34692); the code: no bootstrap timeout: a request stuck in Bootstrapping waits forever"; got != want {
		t.Errorf("%q\nwant %q", got, want)
	}
	if ds[0].PR != "" || !strings.Contains(ds[0].String(), "an ABORT fails a room that already reads Success") {
		t.Errorf("a behaviour no PR brought: %q (PR %q)", ds[0], ds[0].PR)
	}
}

func TestEnvBool(t *testing.T) {
	for _, tc := range []struct {
		env        Env
		value, set bool
	}{
		{nil, false, false},
		{Env{"K=1"}, true, true},
		{Env{"K=Yes"}, true, true},
		{Env{"K=y", "K=N"}, false, true},
		{Env{"K=on"}, false, false},
		{Env{"KK=1"}, false, false},
	} {
		if v, s := tc.env.Bool("K"); v != tc.value || s != tc.set {
			t.Errorf("%v: Bool = %v, %v; want %v, %v", tc.env, v, s, tc.value, tc.set)
		}
	}
}

// emptyCommits is a new repository in a temporary folder (skipping the
// test where git is missing): git runs git there with commits dated
// *date (which the test may move), commit makes an empty commit with a
// subject and returns its hash.
func emptyCommits(t *testing.T, date *string) (dir string, git func(args ...string) string, commit func(subject string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	dir = t.TempDir()
	git = gitIn(t, dir, date)
	git("init", "-q")
	commit = func(subject string) string {
		git("commit", "-q", "--allow-empty", "-m", subject)
		return git("rev-parse", "HEAD")
	}
	return dir, git, commit
}

// gitIn returns a runner of git in dir, its commits dated *date.
func gitIn(t *testing.T, dir string, date *string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=roomspec", "-c", "user.email=roomspec@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_DATE="+*date, "GIT_COMMITTER_DATE="+*date)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// PRsIn finds the lifecycle PRs by the "(#N)" of subjects, a revert
// taking one out; ExpectCommit tells a commit older than the modelled
// range from one of a history roomspec does not know.
func TestPRsIn(t *testing.T) {
	date := "2026-05-01T10:00:00Z"
	dir, git, commit := emptyCommits(t, &date)
	old := commit("An old commit (#1)")
	date = "2026-06-01T10:00:00Z"
	commit("[Disagg][NIXL] Add staging buffer support (#22536)")
	commit("[Bugfix] Clean up failed NIXL sender state (#27011)")
	commit("Unrelated (#999999)")
	timeout := commit("[PD] Add the missing Prefill bootstrap timeout for NIXL (#34692)")
	reverted := commit(`Revert "[PD] Add the missing Prefill bootstrap timeout for NIXL (#34692)" (#40000)`)
	ctx := context.Background()
	gitDir := filepath.Join(dir, ".git")
	for _, tc := range []struct {
		commit string
		want   map[string]bool
	}{
		{old, prs()},
		{timeout, prs("22536", "27011", "34692")},
		{reverted, prs("22536", "27011")},
	} {
		got, err := PRsIn(ctx, gitDir, tc.commit)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("PRsIn(%.7s) = %v, want %v", tc.commit, got, tc.want)
		}
	}
	if _, err := ExpectCommit(ctx, gitDir, old, nil); !errors.Is(err, ErrBeforeFloor) || !strings.Contains(err.Error(), "older than the modelled range") {
		t.Errorf("a commit of 2026-05-01 with no lifecycle PR: %v", err)
	}
	e, err := ExpectCommit(ctx, gitDir, timeout, nil)
	if err != nil || e.Variant != "expected" || !strings.Contains(e.From, "PRs #27011 #34692 in the history of") {
		t.Errorf("ExpectCommit = %+v, %v", e, err)
	}
	date = "2026-09-01T10:00:00Z"
	git("checkout", "-q", "--orphan", "fork")
	fork := commit("A fork's own first commit")
	if _, err := ExpectCommit(ctx, gitDir, fork, nil); !errors.Is(err, ErrNoExpectation) || !strings.Contains(err.Error(), "-base") {
		t.Errorf("a recent commit whose history names no PR: %v", err)
	}
}
