package conformance

import (
	"bytes"
	"context"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/roomspec/roomspec/conformance/impl"
	"github.com/roomspec/roomspec/internal/golden"
	"github.com/roomspec/roomspec/spec/bundled"
	"github.com/roomspec/roomspec/spec/compiled"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
)

func loadBuiltin(t testing.TB, name string) (Implementation, string, *model.Config) {
	t.Helper()
	im, variant, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadVariant(variant)
	if err != nil {
		t.Fatal(err)
	}
	return im, variant, c
}

var checked sync.Map // variant -> *check.Result

// checkerResult is the model checker's result on the bundled
// configuration variant, every property checked (the compiled model
// computes states), once per test binary.
func checkerResult(t *testing.T, variant string) *check.Result {
	t.Helper()
	if r, ok := checked.Load(variant); ok {
		return r.(*check.Result)
	}
	m, conf, err := bundled.Variant(variant)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := model.FromCfg(conf)
	if err != nil {
		t.Fatal(err)
	}
	r := check.Check(context.Background(), m, check.Options{All: true, Successors: compiled.New(mc)})
	if r.Outcome == check.Failure {
		t.Fatal(r.Err)
	}
	checked.Store(variant, r)
	return r
}

// shortestPrefix is the number of steps before the loop of the shortest
// AbortedRoomsTerminate counterexample tla/check finds for variant.
func shortestPrefix(t *testing.T, variant string) int {
	t.Helper()
	for _, v := range checkerResult(t, variant).Verdicts {
		if v.Name == "AbortedRoomsTerminate" {
			if v.Holds {
				t.Fatalf("%s: check says AbortedRoomsTerminate holds", variant)
			}
			// Trace[0] is the initial state; the loop starts at
			// Trace[LoopStart], reached after LoopStart steps.
			t.Logf("%s: check's shortest counterexample: %d steps then a loop (trace of %d states)", variant, v.LoopStart, len(v.Trace))
			return v.LoopStart
		}
	}
	t.Fatalf("%s: no verdict for AbortedRoomsTerminate", variant)
	return 0
}

// The pinning variants fail liveness, with a 1-minimal counterexample no
// longer than the prefix of check's shortest one, for several seeds.
func TestLivenessFailsMinimally(t *testing.T) {
	for _, name := range []string{"fork-90a52f44a", "pre-30352", "upstream-reuse"} {
		t.Run(name, func(t *testing.T) {
			im, variant, c := loadBuiltin(t, name)
			prefix := shortestPrefix(t, variant)
			for _, seed := range []int64{1, 2, 3, 4, 5} {
				r, err := Target{Name: name, Impl: im, Config: c}.Check(Liveness, Options{Seed: seed, Cases: 1000})
				if err != nil {
					t.Fatal(err)
				}
				if r.Holds {
					t.Fatalf("seed %d: liveness holds after %d cases", seed, r.Cases)
				}
				seq := Actions(r.Steps)
				if r.InvalidCases != 0 || !Valid(c, r.ShrunkSeq) {
					t.Fatalf("seed %d: gopter ran %d cases with a disabled action; shrunk sequence valid: %v", seed, r.InvalidCases, Valid(c, r.ShrunkSeq))
				}
				if !Valid(c, seq) {
					t.Fatalf("seed %d: counterexample is not a behaviour of the spec", seed)
				}
				k := newChecker(c, im, 0)
				fails := k.failsFunc(Liveness)
				if !fails(seq) {
					t.Fatalf("seed %d: counterexample does not fail", seed)
				}
				if !OneMinimal(c, seq, fails) {
					t.Errorf("seed %d: counterexample of %d steps is not 1-minimal", seed, len(seq))
				}
				if len(seq) > prefix {
					t.Errorf("seed %d: counterexample has %d steps, check's prefix %d", seed, len(seq), prefix)
				}
				t.Logf("seed %d: found by the %s, a case of %d steps minimized to %d (check's prefix: %d)",
					seed, r.FoundBy, r.Shrunk, len(seq), prefix)
			}
		})
	}
}

func TestFixedPasses10000Cases(t *testing.T) {
	cases := 10000
	if testing.Short() {
		cases = 500
	}
	im, _, c := loadBuiltin(t, "fixed")
	for _, p := range []string{Refinement, Liveness} {
		r, err := Target{Name: "fixed", Impl: im, Config: c}.Check(p, Options{Seed: 42, Cases: cases})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Holds || r.Cases != cases {
			var b bytes.Buffer
			WriteText(&b, r)
			t.Fatalf("%s: holds=%v after %d cases\n%s", p, r.Holds, r.Cases, b.String())
		}
		t.Logf("%s: %d cases pass (most fair rounds needed: %d of %d)", p, r.Cases, r.MaxRounds, r.Bound)
	}
}

func TestBuiltinsThatHold(t *testing.T) {
	for _, tc := range []struct{ name, prop string }{
		{"upstream", Liveness}, {"upstream", Refinement},
		{"fork-90a52f44a", Refinement}, {"pre-30352", Refinement}, {"upstream-reuse", Refinement},
		{"mooncake", Refinement}, {"mooncake", Liveness},
		{"fixed-deferred", Refinement}, {"fixed-deferred", Liveness},
	} {
		im, _, c := loadBuiltin(t, tc.name)
		r, err := Target{Name: tc.name, Impl: im, Config: c}.Check(tc.prop, Options{Seed: 7, Cases: 500})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Holds {
			var b bytes.Buffer
			WriteText(&b, r)
			t.Errorf("%s %s fails:\n%s", tc.name, tc.prop, b.String())
		}
	}
}

// notSticky is a deliberately broken port: upstream that forgets NIXL's
// sticky Failed (update_status takes max over a Failed room).
func notSticky() *impl.Variant {
	v := *impl.Upstream
	v.Name = "mutant-not-sticky"
	v.FailedSticky = false
	return &v
}

func TestMutantFailsRefinementAtTheWrongStep(t *testing.T) {
	c, err := LoadVariant("upstream")
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []int64{1, 2, 3} {
		r, err := Target{Name: "mutant-not-sticky", Impl: NewPort(notSticky()), Config: c}.Check(Refinement, Options{Seed: seed, Cases: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if r.Holds {
			t.Fatalf("seed %d: the mutant passes refinement", seed)
		}
		if r.InvalidCases != 0 || !Valid(c, r.ShrunkSeq) {
			t.Fatalf("seed %d: shrinking produced a sequence whose preconditions fail", seed)
		}
		if r.FailStep < 0 || r.FailStep >= len(r.Steps) {
			t.Fatalf("seed %d: failing step %d of %d", seed, r.FailStep, len(r.Steps))
		}
		for i, st := range r.Steps[:r.FailStep] {
			if !st.Impl.Equal(&st.Spec) {
				t.Fatalf("seed %d: step %d already differs, but step %d is marked", seed, i+1, r.FailStep+1)
			}
		}
		bad := r.Steps[r.FailStep]
		// The wrong step: the spec keeps a Failed room Failed, the mutant
		// overwrites it.
		var before model.State
		if r.FailStep == 0 {
			before = c.Init()
		} else {
			before = r.Steps[r.FailStep-1].Spec
		}
		found := false
		for room := range c.Rooms.Size() {
			if before.RequestStatus[room] == model.StrFailed && bad.Spec.RequestStatus[room] == model.StrFailed &&
				bad.Impl.RequestStatus[room] != model.StrFailed {
				found = true
			}
		}
		if !found || !strings.Contains(r.Failure, "request_status") {
			t.Errorf("seed %d: step %d (%s) is not where a Failed room loses Failed: %s", seed, r.FailStep+1, c.ActionString(bad.Action), r.Failure)
		}
		var b bytes.Buffer
		WriteText(&b, r)
		if !strings.Contains(b.String(), " <-") {
			t.Errorf("step table does not mark the failing step:\n%s", b.String())
		}
		if seed == 1 {
			t.Logf("\n%s", b.String())
		}
	}
}

// testdata/*.itf.json are counterexamples found by the suite; each must
// still fail the same way when replayed.
func TestReplayITF(t *testing.T) {
	if golden.Updating() {
		writeCases(t)
	}
	files, err := filepath.Glob("testdata/*.itf.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.itf.json (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := DecodeCaseHeader(data)
		if err != nil {
			t.Fatal(err)
		}
		c, err := LoadVariant(h.Variant)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := LoadITF(c, data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		im := replayImpl(t, cs.Impl)
		r, err := Replay(im, c, cs, 0)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if r.Holds {
			t.Errorf("%s: %s of %s no longer fails", f, cs.Property, cs.Impl)
		}
	}
}

func replayImpl(t *testing.T, name string) Implementation {
	if name == "mutant-not-sticky" {
		return NewPort(notSticky())
	}
	im, _, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return im
}

func writeCases(t *testing.T) {
	for _, tc := range []struct{ name, variant, prop string }{
		{"fork-90a52f44a", "", Liveness},
		{"pre-30352", "", Liveness},
		{"upstream-reuse", "", Liveness},
		{"mutant-not-sticky", "upstream", Refinement},
	} {
		variant := tc.variant
		var im Implementation
		if variant == "" {
			var err error
			im, variant, err = Builtin(tc.name)
			if err != nil {
				t.Fatal(err)
			}
		} else {
			im = replayImpl(t, tc.name)
		}
		c, err := LoadVariant(variant)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Target{Name: tc.name, Impl: im, Config: c}.Check(tc.prop, Options{Seed: 1, Cases: 2000})
		if err != nil || r.Holds {
			t.Fatalf("%s: holds=%v err=%v", tc.name, r.Holds, err)
		}
		data, err := SaveITF(r)
		if err != nil {
			t.Fatal(err)
		}
		golden.Write(t, filepath.Join("testdata", tc.name+"-"+tc.prop+".itf.json"), append(data, '\n'))
	}
}

// One seed reproduces a run exactly: the same failing case, the same
// shrunk and minimized counterexample.
func TestReproducibleFromSeed(t *testing.T) {
	im, _, c := loadBuiltin(t, "upstream-reuse")
	var first *Result
	for range 2 {
		r, err := Target{Name: "upstream-reuse", Impl: im, Config: c}.Check(Liveness, Options{Seed: 99, Cases: 1000})
		if err != nil || r.Holds {
			t.Fatalf("holds=%v err=%v", r.Holds, err)
		}
		if first == nil {
			first = r
			continue
		}
		a, b := Actions(first.Steps), Actions(r.Steps)
		if r.Cases != first.Cases || len(a) != len(b) || fmt.Sprint(first.ShrunkSeq) != fmt.Sprint(r.ShrunkSeq) || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("seed 99 gave case %d %v then case %d %v", first.Cases, a, r.Cases, b)
		}
	}
}

// refusing is an implementation that refuses every step of one action
// (as SGLang's real code raises where the spec moves on): the step is
// refused, its state left unchanged.
type refusing struct {
	Implementation
	id model.ActionID
}

func (r refusing) Apply(a model.Action) error {
	if a.ID == r.id {
		return fmt.Errorf("%w: RuntimeError: unexpected poll state", ErrRefused)
	}
	return r.Implementation.Apply(a)
}

// A step the spec takes and the implementation refuses fails liveness
// too, and the minimized counterexample still fails (it is not
// "minimized liveness counterexample does not fail"): the failure names
// the refused step.
func TestLivenessFailsOnARefusal(t *testing.T) {
	c, err := LoadVariant("fixed")
	if err != nil {
		t.Fatal(err)
	}
	im := refusing{NewPort(impl.Fixed), model.ActDecodeAbort}
	r, err := Target{Name: "refuses-aborts", Impl: im, Config: c}.Check(Liveness, Options{Seed: 1, Cases: 200})
	if err != nil {
		t.Fatal(err)
	}
	if r.Holds {
		t.Fatal("liveness holds although every DecodeAbort is refused")
	}
	if !strings.HasPrefix(r.Failure, "liveness fails: (the implementation refused step") || !strings.Contains(r.Failure, "DecodeAbort") {
		t.Errorf("failure %q does not name the refused step", r.Failure)
	}
	if n := len(r.Steps); n == 0 || r.Steps[n-1].Action.ID != model.ActDecodeAbort {
		t.Errorf("minimized counterexample does not end in the refused DecodeAbort: %d steps", n)
	}
}

// The fair round-robin of the liveness property is the spec's fairness
// (FairActions: its WF conjuncts): prefill's own steps and decode's
// reading of ABORT_ACKs (WF_vars(DecodeRecvAbortAck(d))), never decode's
// sends; and the bootstrap timeout only where the configuration makes
// it fair.
func TestFairRoundRobin(t *testing.T) {
	for _, variant := range []string{"sglang-35360-deferred", "mooncake", "upstream"} {
		c, err := LoadVariant(variant)
		if err != nil {
			t.Fatal(err)
		}
		acks, timeouts := 0, 0
		for _, a := range c.FairActions(nil) {
			switch a.ID {
			case model.ActDecodeRecvAbortAck:
				acks++
			case model.ActBootstrapTimeout:
				timeouts++
			case model.ActDecodeAbort, model.ActDecodeSendTransferInfo:
				t.Errorf("%s: decode's send %s is in the fair round-robin", variant, c.ActionString(a))
			}
		}
		if acks != c.DecodeRanks.Size() {
			t.Errorf("%s: %d DecodeRecvAbortAck in the fair round-robin, want one per decode rank (%d)", variant, acks, c.DecodeRanks.Size())
		}
		if want := bits.OnesCount64(c.TimeoutFairRequests); timeouts != want {
			t.Errorf("%s: %d BootstrapTimeout in the fair round-robin, want %d", variant, timeouts, want)
		}
	}
}
