package sglang

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/compiled"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
)

// loaded is a source probed, its configuration chosen, and the harness
// started on it, as `roomspec test -impl sglang:SOURCE` does.
type loaded struct {
	src     Source
	variant string
	config  *model.Config
	impl    conformance.Implementation
}

func load(t testing.TB, given string, env Env) *loaded {
	t.Helper()
	return loadBackend(t, given, env, "")
}

// loadBackend is load with the harness driving backend's conn.py.
func loadBackend(t testing.TB, given string, env Env, backend string) *loaded {
	t.Helper()
	needPython(t)
	ctx := context.Background()
	cache := t.TempDir()
	src, err := Resolve(ctx, given, cache)
	if err != nil {
		t.Fatal(err)
	}
	src.Backend = backend
	dir, err := InstallHarness(cache)
	if err != nil {
		t.Fatal(err)
	}
	ing, err := Probe(ctx, dir, src, env)
	if err != nil {
		t.Fatal(err)
	}
	name, text, err := Choose(ing)
	if err != nil {
		t.Fatal(err)
	}
	v, err := spec.Parse(name, text)
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	im := (&Code{Source: src, Env: env, Harness: dir}).Implementation(subprocess.Options{})
	t.Cleanup(func() {
		if err := im.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return &loaded{src: src, variant: name, config: c, impl: im}
}

func (l *loaded) check(t *testing.T, property string, seed int64, cases int) *conformance.Result {
	t.Helper()
	r, err := conformance.Target{Name: "sglang:" + l.src.Label(), Impl: l.impl, Config: l.config}.Check(property,
		conformance.Options{Seed: seed, Cases: cases})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func report(r *conformance.Result) string {
	var b bytes.Buffer
	conformance.WriteText(&b, r)
	return b.String()
}

// everyEdge requires that the run took every edge and state of its
// configuration's graph, and reached every room status in it.
func everyEdge(t *testing.T, r *conformance.Result) {
	t.Helper()
	cov := r.Coverage
	if cov.Edges == 0 || cov.EdgesTaken != cov.Edges || cov.StatesSeen != cov.States || len(cov.Unforced) > 0 {
		t.Errorf("%s: %d of %d edges, %d of %d states, not taken: %v\n%s", r.Property, cov.EdgesTaken, cov.Edges,
			cov.StatesSeen, cov.States, cov.Unforced, report(r))
	}
	for _, s := range cov.Statuses {
		if !s.Reached {
			t.Errorf("%s: %s: %s not reached", r.Property, s.Room, s.Status)
		}
	}
}

// realSource returns ROOMSPEC_SGLANG (a python/ folder, a checkout, or
// GITDIR@COMMIT: SGLang's real code, extracted at test time; none of it is
// committed here), or skips the test.
func realSource(t testing.TB) string {
	t.Helper()
	given := os.Getenv("ROOMSPEC_SGLANG")
	if given == "" {
		t.Skip("ROOMSPEC_SGLANG is not set: give SGLang's python/ folder or GITDIR@COMMIT to run SGLang's real code under the suite")
	}
	return given
}

// checkerVerdict is the model checker's verdict on property under the
// bundled configuration variant.
func checkerVerdict(t *testing.T, variant, property string) bool {
	t.Helper()
	v, err := spec.Load(variant)
	if err != nil {
		t.Fatal(err)
	}
	m, err := v.Model()
	if err != nil {
		t.Fatal(err)
	}
	mc, err := v.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	r := check.Check(context.Background(), m, check.Options{All: true, Successors: compiled.New(mc)})
	for _, v := range r.Verdicts {
		if v.Name == property {
			return v.Holds
		}
	}
	t.Fatalf("%s: the checker gives no verdict on %s", variant, property)
	return false
}

// With the deferred release on, ABORT_ACKs travel from the real bootstrap
// thread's PUSH socket to decode, and the suite sees the ones that never
// come: where the probe chooses sglang-35360-deferred, the code keeps one
// ACK target per room, as #35360 does (issue 12, finding 6), so two ranks'
// ABORTs during a write leave a rank's pages held.
func TestRealCodeDeferredAck(t *testing.T) {
	t.Parallel()
	l := load(t, realSource(t), Env{"SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1"})
	if l.variant != "sglang-35360-deferred" {
		t.Skipf("%s: the probe chooses %s, not sglang-35360-deferred (#35360's one ACK target per room)", l.src.Label(), l.variant)
	}
	if r := l.check(t, conformance.Refinement, 5, 300); !r.Holds {
		t.Fatalf("refinement fails:\n%s", report(r))
	} else {
		everyEdge(t, r)
	}
	r := l.check(t, conformance.Liveness, 2, 300)
	if r.Holds {
		t.Fatal("liveness holds: no aborted room waits for its ABORT_ACK")
	}
	if !strings.Contains(strings.Join(r.Pinned, " "), "(not ACKed)") || r.Failure == "" {
		t.Errorf("liveness fails, but not for an unACKed room:\n%s", report(r))
	}
}

// The whole path of `roomspec test -impl sglang:` on SGLang's real code
// (ROOMSPEC_SGLANG): resolve, probe, choose a bundled configuration, the
// harness as a supervised child speaking the protocol, real threads
// parked at the fakes; the code refines the configuration, and its
// liveness verdict is the model checker's.
func TestRealCode(t *testing.T) {
	t.Parallel()
	l := load(t, realSource(t), nil)
	if l.variant == "probed" || !strings.HasPrefix(l.variant, "sglang-") {
		t.Fatalf("%s: the probed switches choose %s, not a bundled sglang-* configuration", l.src.Label(), l.variant)
	}
	r := l.check(t, conformance.Refinement, 1, 300)
	if !r.Holds {
		t.Fatalf("SGLang %s does not refine %s:\n%s", l.src.Label(), l.variant, report(r))
	}
	everyEdge(t, r)
	t.Logf("SGLang %s refines %s: the tour (%d steps) and %d cases (seed 1)", l.src.Label(), l.variant, r.Coverage.Tour.Steps, r.Cases)
	// Liveness costs a fair round-robin per case: fewer cases.
	live := l.check(t, conformance.Liveness, 1, 100)
	if want := checkerVerdict(t, l.variant, "AbortedRoomsTerminate"); live.Holds != want {
		t.Fatalf("liveness on SGLang %s: holds=%v, the model checker's AbortedRoomsTerminate on %s: %v\n%s",
			l.src.Label(), live.Holds, l.variant, want, report(live))
	}
}

// More than one request on SGLang's real code (ROOMSPEC_SGLANG at PR
// #35360 or later): two requests in two rooms, and a room id reused (decode
// re-bootstraps), polled as whole queues by prefill.py's own functions. The
// code refines each shape of sglang-35360, and its liveness verdict is the
// model checker's: under reuse both say a room is pinned.
func TestRealCodeMoreRequests(t *testing.T) {
	t.Parallel()
	l := load(t, realSource(t), nil)
	if l.variant != "sglang-35360" {
		t.Skipf("%s: the probe chooses %s; the two-request shapes are of sglang-35360", l.src.Label(), l.variant)
	}
	// With a room id reused, the real code answers the retry Success while
	// its KV went into the first request's freed pages (README, "Bugs in
	// SGLang found this way"): refinement fails there at the client
	// boundary, and must, until SGLang changes.
	finding := map[string]string{"sglang-35360-reuse": "though decode could not complete the transfer"}
	for _, shape := range []string{"sglang-35360-rooms", "sglang-35360-reuse"} {
		c, err := spec.Compiled(shape)
		if err != nil {
			t.Fatal(err)
		}
		sl := *l
		sl.variant, sl.config = shape, c
		r := sl.check(t, conformance.Refinement, 1, 100)
		switch want := finding[shape]; {
		case want == "" && !r.Holds:
			t.Fatalf("SGLang %s does not refine %s:\n%s", l.src.Label(), shape, report(r))
		case want != "" && (r.Holds || !strings.Contains(r.Failure, want)):
			t.Fatalf("SGLang %s under %s: want the finding %q, got:\n%s", l.src.Label(), shape, want, report(r))
		}
		live := sl.check(t, conformance.Liveness, 1, 50)
		if want := checkerVerdict(t, shape, "AbortedRoomsTerminate"); live.Holds != want {
			t.Fatalf("liveness on SGLang %s: holds=%v, the model checker's AbortedRoomsTerminate on %s: %v\n%s",
				l.src.Label(), live.Holds, shape, want, report(live))
		}
		t.Logf("%s: refinement holds %v (%d cases; %s), liveness %v as the checker says", shape, r.Holds, r.Cases, r.Failure, live.Holds)
	}
}
