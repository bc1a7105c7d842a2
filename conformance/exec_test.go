package conformance

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

const python = "/usr/bin/python3"

// The Python port of upstream, driven through the JSON-lines adapter,
// passes both properties under the upstream configuration.
func TestPythonUpstreamThroughExec(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s not found: the out-of-process adapter test needs python3 (.ci/run installs it)", python)
	}
	c, err := LoadVariant("upstream")
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
	c, err := LoadVariant("upstream-reuse")
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
	c, err := LoadVariant("fork-90a52f44a")
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

// slow also tours the Python emulator on upstream-reuse's graph.
var slow = flag.Bool("slow", false, "also tour the Python emulator on upstream-reuse (128,179 edges, 543,656 steps: minutes)")

// Every Python variant, through exec:, is toured like the Go ports: under
// the configuration of each variant it models it refines the spec on
// every edge of the graph (100% of edges and states), and its liveness
// verdict is the model checker's (the tour's, before any random case).
// upstream-reuse's graph (43,000 states) takes minutes through a pipe: it
// runs with -slow.
func TestPythonVariants(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s not found", python)
	}
	for _, tc := range []struct{ config, pyVariant string }{
		{"upstream", "upstream"},
		{"sglang-35360", "upstream"},
		{"sglang-35360-deferred", "sglang-35360-deferred"},
		{"fixed-35360-deferred", "fixed-35360-deferred"},
		{"sglang-34692", "sglang-34692"},
		{"sglang-31075", "sglang-31075"},
		{"sglang-30545", "sglang-30545"},
		{"sglang-30352", "sglang-30352"},
		{"sglang-27011", "pre-30352"},
		{"pre-30352", "pre-30352"},
		{"sglang-pre-27011", "sglang-pre-27011"},
		{"fork-90a52f44a", "fork-90a52f44a"},
		{"mooncake", "mooncake"},
		{"fixed", "fixed"},
		{"fixed-deferred", "fixed-deferred"},
		{"upstream-reuse", "upstream"},
	} {
		t.Run(tc.config, func(t *testing.T) {
			if tc.config == "upstream-reuse" && !*slow {
				t.Skip("upstream-reuse's graph has 128,179 edges: run with -slow")
			}
			c, err := LoadVariant(tc.config)
			if err != nil {
				t.Fatal(err)
			}
			im := NewExec(python + " python/prefill.py --variant " + tc.pyVariant)
			defer im.Close()
			for _, p := range []string{Refinement, Liveness} {
				r, err := Target{Name: "exec:python/" + tc.pyVariant, Impl: im, Config: c}.Check(p, Options{Seed: 5, Cases: 20})
				if err != nil {
					t.Fatal(err)
				}
				want := p == Refinement || wantLiveness(t, c)
				if r.Holds != want {
					t.Fatalf("%s: holds=%v, the model checker says %v\n%s", p, r.Holds, want, text(r))
				}
				if cov := r.Coverage; r.Holds && (cov.EdgesTaken != cov.Edges || cov.StatesSeen != cov.States) {
					t.Errorf("%s: %d of %d edges, %d of %d states\n%s", p, cov.EdgesTaken, cov.Edges, cov.StatesSeen, cov.States, text(r))
				}
				if !r.Holds && r.FoundBy != "tour" {
					t.Errorf("%s fails, found by %q, not the tour", p, r.FoundBy)
				}
			}
		})
	}
}
