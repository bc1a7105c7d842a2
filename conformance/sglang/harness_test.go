package sglang

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/conformance/subprocess"
)

// needPython returns the harness's interpreter, or skips the test where it
// cannot import the harness's real dependencies.
func needPython(t testing.TB) string {
	t.Helper()
	py := Python()
	out, err := exec.Command(py, "-c", "import zmq, numpy").CombinedOutput()
	if err != nil {
		t.Skipf("%s cannot import zmq and numpy (%v: %s): the harness runs on Debian's python3 "+
			"with python3-zmq, python3-numpy and python3-psutil (.ci/run installs them)", py, err, bytes.TrimSpace(out))
	}
	return py
}

// The harness's own machinery (stub finder, parking controller, boundary
// fakes) and, on SGLang's real code extracted at test time where
// ROOMSPEC_SGLANG names it, the driver, probe and protocol: the Python
// unittest modules beside the package. Without ROOMSPEC_SGLANG the
// modules that load a tree skip, and say so.
func TestHarnessPython(t *testing.T) {
	t.Parallel() // mostly waiting: threads parking, children starting
	py := needPython(t)
	env := append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	if given := os.Getenv("ROOMSPEC_SGLANG"); given != "" {
		src, err := Resolve(context.Background(), given, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, "ROOMSPEC_SGLANG_TREE="+src.Root)
	} else {
		t.Log("ROOMSPEC_SGLANG is not set: the tests that load SGLang's tree skip")
	}
	var out bytes.Buffer
	_, err := subprocess.Output(context.Background(),
		[]string{"sh", "-c", `exec "$0" -m unittest discover -s harness 2>&1`, py},
		subprocess.OutputOptions{
			Timeout: 2 * time.Minute,
			Env:     env,
			Stdout:  &out,
		})
	if err != nil {
		t.Fatalf("python unittest: %v\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	t.Log(strings.Join(lines[max(0, len(lines)-3):], "\n"))
}

func TestInstallHarness(t *testing.T) {
	cache := filepath.Join(t.TempDir(), "not", "yet")
	dir, err := InstallHarness(cache)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.Glob("harness/roomspec_sglang/*.py")
	got, _ := filepath.Glob(filepath.Join(dir, "roomspec_sglang", "*"))
	if len(got) != len(want) || len(want) < 7 {
		t.Fatalf("installed %d files, the package has %d", len(got), len(want))
	}
	for _, f := range want {
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join(dir, "roomspec_sglang", filepath.Base(f)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: installed copy differs (%v)", f, err)
		}
	}
	again, err := InstallHarness(cache)
	if err != nil || again != dir {
		t.Fatalf("second install: %q, %v; want %q", again, err, dir)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "harness-") {
		t.Errorf("cache holds %v, want one harness-* folder", entries)
	}
}
