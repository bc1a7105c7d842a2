package conformance

import (
	"bytes"
	"os"
	"testing"

	"github.com/roomspec/roomspec/spec"
)

const python = "/usr/bin/python3"

// The Python port of upstream, driven through the JSON-lines adapter,
// passes both properties under the upstream configuration.
func TestPythonUpstreamThroughExec(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s not found: the out-of-process adapter test needs python3 (.ci/run installs it)", python)
	}
	c, err := spec.Compiled("upstream")
	if err != nil {
		t.Fatal(err)
	}
	im := NewExec(python + " python/prefill.py")
	defer func() {
		if err := im.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	cases := 200
	if testing.Short() {
		cases = 50
	}
	for _, p := range []string{Refinement, Liveness} {
		r, err := Target{Name: "exec:python", Impl: im, Config: c}.Check(p, Options{Seed: 3, Cases: cases})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Holds {
			var b bytes.Buffer
			WriteText(&b, r)
			t.Fatalf("%s fails:\n%s", p, b.String())
		}
		t.Logf("%s: %d cases pass", p, r.Cases)
	}
}

// Under room reuse the same Python code pins a room, as the Go port does.
func TestPythonUpstreamReusePins(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s not found", python)
	}
	c, err := spec.Compiled("upstream-reuse")
	if err != nil {
		t.Fatal(err)
	}
	im := NewExec(python + " python/prefill.py")
	defer im.Close()
	r, err := Target{Name: "exec:python", Impl: im, Config: c}.Check(Liveness, Options{Seed: 1, Cases: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Holds {
		t.Fatal("liveness holds under room reuse")
	}
	var b bytes.Buffer
	WriteText(&b, r)
	t.Logf("\n%s", b.String())
}

// The adapter really compares: upstream's Python code is not the fork, so
// checked against the fork's configuration it fails refinement at the step
// where the handlers differ (an ABORT).
func TestPythonUpstreamIsNotTheFork(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s not found", python)
	}
	c, err := spec.Compiled("fork-90a52f44a")
	if err != nil {
		t.Fatal(err)
	}
	im := NewExec(python + " python/prefill.py")
	defer im.Close()
	r, err := Target{Name: "exec:python", Impl: im, Config: c}.Check(Refinement, Options{Seed: 1, Cases: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Holds {
		t.Fatal("upstream's Python refines the fork's spec")
	}
	var b bytes.Buffer
	WriteText(&b, r)
	t.Logf("\n%s", b.String())
	if r.FailStep < 0 || r.Steps[r.FailStep].Impl.Equal(&r.Steps[r.FailStep].Spec) {
		t.Fatalf("bad failing step %d", r.FailStep)
	}
}

// Every other Python variant behaves like the Go port of the same variant
// (upstream: TestPythonUpstreamThroughExec): it refines the variant's
// spec, and fails liveness exactly where the Go port does.
func TestPythonVariants(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s not found", python)
	}
	for _, tc := range []struct {
		impl, pyVariant string
		pins            bool
	}{
		{"upstream-reuse", "upstream", true},
		{"pre-30352", "pre-30352", true},
		{"fork-90a52f44a", "fork-90a52f44a", true},
		{"mooncake", "mooncake", false},
		{"fixed", "fixed", false},
		{"fixed-deferred", "fixed-deferred", false},
	} {
		t.Run(tc.impl, func(t *testing.T) {
			_, _, c := loadBuiltin(t, tc.impl)
			im := NewExec(python + " python/prefill.py --variant " + tc.pyVariant)
			defer im.Close()
			cases := 100
			if testing.Short() {
				cases = 30
			}
			for _, p := range []string{Refinement, Liveness} {
				r, err := Target{Name: "exec:python/" + tc.pyVariant, Impl: im, Config: c}.Check(p, Options{Seed: 5, Cases: cases})
				if err != nil {
					t.Fatal(err)
				}
				wantHolds := p == Refinement || !tc.pins
				if r.Holds != wantHolds {
					var b bytes.Buffer
					WriteText(&b, r)
					t.Errorf("%s: holds=%v, want %v\n%s", p, r.Holds, wantHolds, b.String())
				}
			}
		})
	}
}
