package sglang

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/conformance/subprocess"
)

// The harness runs without a shell (issue 23): every word of its command
// line, quotes, spaces and $ in paths and environment values, arrives as
// given, and PYTHONPATH names the harness.
func TestArgv(t *testing.T) {
	tmp := t.TempDir()
	// The "interpreter" prints its environment's PYTHONPATH and its arguments.
	py := filepath.Join(tmp, "it's a dir", "py $x")
	write(t, py, "#!/bin/sh\nprintf '%s\\n' \"PYTHONPATH=$PYTHONPATH\" \"$@\"\n")
	os.Chmod(py, 0o755)
	t.Setenv("ROOMSPEC_PYTHON", py)
	c := &Code{
		Source:  Source{Root: filepath.Join(tmp, "sglang root; rm -rf /")},
		Env:     Env{"SGLANG_X=a b", "Y='z'", "Z=$HOME"},
		Harness: filepath.Join(tmp, `h "q" $(false) `+"`x`"),
	}
	argv, env := c.Argv()
	out, err := subprocess.Output(context.Background(), argv, subprocess.OutputOptions{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	want := []string{"PYTHONPATH=" + c.Harness, "-m", "roomspec_sglang", "--sglang", c.Source.Root,
		"--env", "SGLANG_X=a b", "--env", "Y='z'", "--env", "Z=$HOME"}
	if !slices.Equal(got, want) {
		t.Errorf("the harness got\n%q\nwant\n%q", got, want)
	}
}

// -base gives what the base commit's lifecycle PRs bring, and those of
// the fork's own commit too: a fork that cherry-picked a PR its base
// lacks must have its behaviour.
func TestExpectBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not found")
	}
	date := "2026-06-01T10:00:00Z"
	up, fork := t.TempDir(), t.TempDir()
	ug, fg := gitIn(t, up, &date), gitIn(t, fork, &date)
	ug("init", "-q")
	ug("commit", "-q", "--allow-empty", "-m", "[Disagg][NIXL] Add staging buffer support (#22536)")
	ug("commit", "-q", "--allow-empty", "-m", "[Bugfix] Clean up failed NIXL sender state (#27011)")
	fg("init", "-q")
	fg("commit", "-q", "--allow-empty", "-m", "The fork's tree")
	plain := fg("rev-parse", "HEAD")
	fg("commit", "-q", "--allow-empty", "-m", "[PD] Add the missing Prefill bootstrap timeout for NIXL (#34692)")
	picked := fg("rev-parse", "HEAD")
	ctx := context.Background()
	opt := LoadOptions{Base: up + "@HEAD"}
	e, err := expectBase(ctx, Source{Given: "f", GitDir: filepath.Join(fork, ".git"), Commit: plain}, opt)
	if err != nil || e.Variant != "sglang-27011" || e.From != "-base "+up+"@HEAD: PRs #27011 in the history of "+ug("rev-parse", "HEAD")[:12] {
		t.Errorf("the fork's first commit: %+v, %v", e, err)
	}
	e, err = expectBase(ctx, Source{Given: "f", GitDir: filepath.Join(fork, ".git"), Commit: picked}, opt)
	if err != nil || !e.Switches["HasBootstrapTimeout"] || !e.Switches["FailureClears"] || !strings.HasSuffix(e.From, ", and #34692 in the history of "+picked[:12]) {
		t.Errorf("the cherry-pick: %+v, %v", e, err)
	}
	if _, err := expectBase(ctx, Source{Given: "tree"}, LoadOptions{Base: "abc"}); err == nil || !strings.Contains(err.Error(), "give -base GITDIR@COMMIT") {
		t.Errorf("-base COMMIT of a tree of no repository: %v", err)
	}
	if _, err := expectBase(ctx, Source{Given: "tree"}, LoadOptions{Base: up + "@nosuch"}); err == nil || !strings.Contains(err.Error(), `no commit "nosuch"`) {
		t.Errorf("-base of a commit that is not there: %v", err)
	}
}
