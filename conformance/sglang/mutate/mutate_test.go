package mutate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/conformance/sglang"
)

func TestEquivalent(t *testing.T) {
	table := []Equivalence{
		{Function: "Envs", Operator: "change-number", What: "SGLANG_DISAGGREGATION_QUEUE_SIZE default", Reason: "one room, one queue"},
		{Function: "NixlKVManager.transfer_worker", Operator: "delete-stmt", Source: "self._metric = ", Reason: "a metric"},
		{Function: "NixlKVManager.transfer_worker", Operator: "negate-cond", Near: "# here", Reason: "only here"},
	}
	diff := "--- a/x.py\n+++ b/x.py\n@@ -3,3 +3,3 @@\n x = 1\n-        self._metric = 1\n+        pass\n"
	for _, tc := range []struct {
		m      Mutant
		reason string
	}{
		{Mutant{Function: "Envs", Operator: "change-number", What: "SGLANG_DISAGGREGATION_QUEUE_SIZE default 4 -> 5"}, "one room, one queue"},
		{Mutant{Function: "Envs", Operator: "change-number", What: "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT default 300 -> 301"}, ""},
		{Mutant{Function: "NixlKVManager.transfer_worker", Operator: "delete-stmt", What: "delete self._metric = 1", Diff: diff}, "a metric"},
		{Mutant{Function: "NixlKVManager.transfer_worker", Operator: "delete-stmt", What: "delete x = 1", Diff: strings.Replace(diff, "-        self._metric", "+        self._metric", 1)}, ""},
		{Mutant{Function: "NixlKVManager.transfer_worker", Operator: "delete-call", What: "delete self._metric = 1", Diff: diff}, ""},
		// the same change in two places, told apart by the diff's context
		{Mutant{Function: "NixlKVManager.transfer_worker", Operator: "negate-cond", What: "negate `a`", Diff: "-if a:\n+if not (a):\n     # here\n"}, "only here"},
		{Mutant{Function: "NixlKVManager.transfer_worker", Operator: "negate-cond", What: "negate `a`", Diff: "-if a:\n+if not (a):\n     # there\n"}, ""},
	} {
		reason, ok := equivalent(table, tc.m)
		assert.Equal(t, tc.reason != "", ok, tc.m.What)
		assert.Equal(t, tc.reason, reason, tc.m.What)
	}
	for _, e := range Equivalents {
		assert.NotEmpty(t, e.Reason, "an equivalent mutant needs its reason: %+v", e)
		assert.NotEmpty(t, e.Operator+e.What+e.Source, "an entry that matches every mutant of a function: %+v", e)
	}
	// The kills a reviewer checked by hand are never marked equivalent.
	for _, m := range []Mutant{
		{Function: "NixlKVSender.failure_exception", Operator: "delete-call", What: "delete the call self.clear()", Diff: "-        self.clear()\n"},
		{Function: "NixlKVManager._handle_abort_notification", Operator: "swap-kvpoll", What: "KVPoll.Failed -> KVPoll.Transferring", Diff: "-            self.update_status(room_to_be_aborted, KVPoll.Failed)\n"},
		{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Operator: "delete-call", What: "delete the call release_kv_cache(req, self.tree_cache)", Diff: "-                release_kv_cache(req, self.tree_cache)\n"},
		{Function: "NixlKVManager.transfer_worker", Operator: "delete-call", What: "delete the call self._staging_outstanding.pop(room, None)", Diff: "-                    self._staging_outstanding.pop(room, None)\n"},
		// killed by the campaign with the deferred release on (the ACK of a
		// room whose writes completed)
		{Function: "NixlKVManager.transfer_worker", Operator: "negate-cond", What: "negate `self.enable_deferred_decode_kv_release`", Diff: "-                if self.enable_deferred_decode_kv_release:\n+                if not (self.enable_deferred_decode_kv_release):\n                     # Handles all DONE => this room's writes landed; ack if it\n"},
		{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Operator: "delete-call", What: "delete the call done_reqs.append(req)", Diff: "-                done_reqs.append(req)\n"},
	} {
		if reason, ok := equivalent(Equivalents, m); ok {
			t.Errorf("%s (%s) is marked equivalent: %s", m.What, m.Function, reason)
		}
	}
}

func TestProbeDiffers(t *testing.T) {
	timeout := sglang.Difference{Switch: "HasBootstrapTimeout", Expected: true, Probed: false, PR: "34692"}
	c := &sglang.Code{Expect: &sglang.Expectation{Switches: map[string]bool{"HasBootstrapTimeout": true, "FailureClears": true}, PRs: []string{"27011", "34692"}}}
	same := sglang.Ingredients{Switches: map[string]bool{"HasBootstrapTimeout": true, "FailureClears": true}}
	assert.Empty(t, probeDiffers(c, same, Baseline{}))
	lost := sglang.Ingredients{Switches: map[string]bool{"HasBootstrapTimeout": false, "FailureClears": true}}
	assert.Contains(t, probeDiffers(c, lost, Baseline{}), "probe: HasBootstrapTimeout: expected a request stuck in Bootstrapping fails")
	// A difference the unmutated code has already is no kill.
	assert.Empty(t, probeDiffers(c, lost, Baseline{Differences: []sglang.Difference{timeout}}))
	// Without an expectation: the unmutated code's own probe.
	c = &sglang.Code{Ingredients: same}
	assert.Equal(t, "probe: HasBootstrapTimeout: the unmutated code has true, the mutant false", probeDiffers(c, lost, Baseline{}))
}

func TestPinKinds(t *testing.T) {
	assert.Equal(t, pinKinds(nil), pinKinds([]string{}))
	assert.NotEqual(t, pinKinds([]string{"<<r, 1>>"}), pinKinds([]string{"<<r, 1>> (not ACKed)"}))
	assert.Equal(t, pinKinds([]string{"<<r, 1>>"}), pinKinds([]string{"<<r, 2>>"}))
}

func TestCopySource(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	for _, f := range []string{"sglang/srt/disaggregation/nixl/conn.py", "sglang/srt/disaggregation/__pycache__/conn.pyc",
		"sglang/srt/environ.py", "sglang/srt/server_args.py"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, f), []byte(f), 0o644))
	}
	require.NoError(t, copySource(root, dir))
	for f, want := range map[string]bool{"sglang/srt/disaggregation/nixl/conn.py": true, "sglang/srt/environ.py": true,
		"sglang/srt/disaggregation/__pycache__/conn.pyc": false, "sglang/srt/server_args.py": false} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if want {
			assert.NoError(t, err, f)
			assert.Equal(t, f, string(b))
		} else {
			assert.True(t, os.IsNotExist(err), "%s copied", f)
		}
	}
}

func TestMergeCoverage(t *testing.T) {
	dir := t.TempDir()
	a, b, out := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "out")
	os.WriteFile(a, []byte(`{"x.py": [3, 1], "y.py": [2]}`), 0o644)
	os.WriteFile(b, []byte(`{"x.py": [1, 5]}`), 0o644)
	require.NoError(t, mergeCoverage(out, a, b))
	got, _ := os.ReadFile(out)
	assert.JSONEq(t, `{"x.py": [1, 3, 5], "y.py": [2]}`, string(got))
	assert.ErrorContains(t, mergeCoverage(out, a, filepath.Join(dir, "missing")), "wrote no coverage")
}

func TestWriteText(t *testing.T) {
	rep := &Report{Source: "repo@adca19c49709", Commit: "adca19c49709aaaa", Variant: "sglang-35360", Expected: "PRs #35360", Seed: 1,
		Baseline: Baseline{Refinement: true, Liveness: true, Seconds: 9},
		Results: []Result{
			{Mutant: Mutant{ID: "f.py:1", Line: 10, Function: "F", Operator: "delete-call", What: "delete the call x()"}, Verdict: Killed, How: "refinement: request_status[r] differs (3 steps)"},
			{Mutant: Mutant{ID: "f.py:2", Line: 11, Function: "F", Operator: "swap-kvpoll", What: "KVPoll.Success -> KVPoll.Failed", Diff: "--- a/f.py\n+++ b/f.py\n@@ -11 +11 @@\n-a\n+b\n"}, Verdict: Survived},
			{Mutant: Mutant{ID: "environ.py:0", Line: 3, Function: "Envs", Operator: "change-number", What: "Q default 4 -> 5"}, Verdict: Equivalent, Reason: "one queue"},
		},
		Killed: 1, Survived: 1, Equivalent: 1, NotReached: 7}
	var b bytes.Buffer
	WriteText(&b, rep)
	out := b.String()
	for _, s := range []string{"SGLang repo@adca19c49709 (commit adca19c49709), checked against sglang-35360 (expected: PRs #35360); suite at the default budget, seed 1",
		"KILLED", "refinement: request_status[r] differs (3 steps)", "EQUIVALENT", "one queue",
		"SURVIVED f.py:2 (F, swap-kvpoll): KVPoll.Success -> KVPoll.Failed\n--- a/f.py",
		"3 mutants: 1 killed, 1 survived, 1 equivalent; score 1/2 = 50.0% (7 mutations on lines the suite never runs not made)"} {
		assert.Contains(t, out, s)
	}
	assert.False(t, strings.Contains(out, "SURVIVED f.py:1"))
}

// The campaign on SGLang's real code (ROOMSPEC_SGLANG=GITDIR@adca19c4),
// on a few mutants a reviewer can check by hand: failure_exception
// without clear() is killed by the probe, an ABORT that marks its room
// Transferring by refinement.
func TestRealCodeMutants(t *testing.T) {
	given := os.Getenv("ROOMSPEC_SGLANG")
	if given == "" {
		t.Skip("ROOMSPEC_SGLANG is not set: the campaign mutates SGLang's real code")
	}
	if !strings.Contains(given, "@adca19c4") {
		t.Skipf("the mutants picked here are adca19c4's; ROOMSPEC_SGLANG is %s", given)
	}
	t.Setenv("ROOMSPEC_CACHE", t.TempDir())
	ctx := context.Background()
	code, err := sglang.Load(ctx, given, sglang.LoadOptions{})
	require.NoError(t, err)
	want := map[string]string{} // what kills each mutant picked
	opt := Options{Code: code, Seed: 1, Timeout: 30 * time.Second, Select: func(m Mutant) bool {
		switch {
		case m.Function == "NixlKVSender.failure_exception" && m.What == "delete the call self.clear()":
			want[m.ID] = "probe: FailureClears"
		case m.Function == "NixlKVManager._handle_abort_notification" && m.Operator == "swap-kvpoll" && m.What == "KVPoll.Failed -> KVPoll.Transferring":
			want[m.ID] = "refinement: "
		default:
			return false
		}
		return true
	}}
	rep, err := Run(ctx, opt)
	require.NoError(t, err)
	require.Len(t, want, 2, "the mutants this test picks are made")
	require.Len(t, rep.Results, 2)
	for _, r := range rep.Results {
		assert.Equal(t, Killed, r.Verdict, "%s %s: %s", r.ID, r.What, r.How)
		assert.True(t, strings.HasPrefix(r.How, want[r.ID]), "%s killed by %q, want %q", r.What, r.How, want[r.ID])
		assert.NotEmpty(t, r.Diff)
	}
}

// The reviewed table is NIXL's: a Mooncake campaign borrows none of it,
// so its survivors stay survivors until a table reviewed against
// Mooncake's code exists.
func TestTableForBackend(t *testing.T) {
	assert.Equal(t, Equivalents, TableFor(""))
	assert.Equal(t, Equivalents, TableFor(sglang.NIXL))
	assert.Empty(t, TableFor(sglang.Mooncake))
	m := Mutant{Function: "CommonKVSender.__init__", Operator: "delete-stmt", What: "delete self.init_time: Optional[float] = None",
		Diff: "-        self.init_time: Optional[float] = None\n+        pass\n"}
	_, nixl := equivalent(TableFor(sglang.NIXL), m)
	_, mooncake := equivalent(TableFor(sglang.Mooncake), m)
	assert.True(t, nixl, "NIXL's sender sets init_time right after: equivalent there")
	assert.False(t, mooncake, "an entry reviewed against NIXL's sender is not borrowed for Mooncake's")
}

// A mutant of Mooncake's code runs under Mooncake's harness: its source
// keeps the backend (without it, every Mooncake mutant was probed as
// NIXL's code and "killed" by the difference).
func TestMutantSourceKeepsBackend(t *testing.T) {
	for _, b := range []string{"", sglang.Mooncake} {
		got := mutantSource(sglang.Source{Root: "/src", Given: "x", Backend: b}, "/tmp/m", "f.py:3")
		if got.Backend != b || got.Root != "/tmp/m" || got.Given != "mutant f.py:3" {
			t.Errorf("backend %q: %+v", b, got)
		}
	}
}
