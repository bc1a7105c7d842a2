package sglang

import (
	"context"
	"os"
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
