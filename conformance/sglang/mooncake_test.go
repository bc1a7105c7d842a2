package sglang

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/spec"
)

// Mooncake's expectation comes from its own table, by subject: code
// without its first entry is older than the modelled range; the deferred
// release's variable picks the -deferred configuration.
func TestExpectMooncakeCommit(t *testing.T) {
	date := "2026-08-01T10:00:00Z"
	dir, _, commit := emptyCommits(t, &date)
	old := commit("[PD] Refactor hybrid state transfer (#24932)")
	first := commit("[PD] Fix KV cache corruption on abort by notifying ongoing prefill (#27372)")
	commit("[PD] Fix optimistic prefill inflight-queue hangs on parked/aborted reqs (#31075)")
	commit("[Disagg][StagingBuffer][2/2] Support radix cache (#30545)")
	commit("[PD] Deferred decode-side KV release for aborts mid-transfer (#35049)")
	now := commit("[PD] Deferred decode-side KV release for the NIXL backend (#35360)")
	ctx := context.Background()
	gitDir := filepath.Join(dir, ".git")
	if _, err := ExpectMooncakeCommit(ctx, gitDir, old, nil); !errors.Is(err, ErrBeforeFloor) || !strings.Contains(err.Error(), "#27372") {
		t.Errorf("Mooncake code before #27372: %v", err)
	}
	e, err := ExpectMooncakeCommit(ctx, gitDir, first, nil)
	if err != nil || e.Variant != "expected" || e.Switches["CountsOutstanding"] || e.Switches["InflightBootstrappingRaises"] || !e.Switches["WorkerSkipsAbsent"] {
		t.Errorf("ExpectMooncakeCommit(#27372) = %+v, %v", e, err)
	}
	if c, err := spec.Parse(e.Variant, e.Text); err != nil || c.Cfg == nil {
		t.Errorf("#27372's configuration does not parse: %v\n%s", err, e.Text)
	} else if strings.Contains(string(e.Text), "PromptTermination") {
		t.Errorf("#27372's configuration is a prompt form:\n%s", e.Text)
	}
	for env, want := range map[string]string{"": "mooncake", DeferredEnv + "=1": "mooncake-deferred"} {
		var e Env
		if env != "" {
			e = Env{env}
		}
		got, err := ExpectMooncakeCommit(ctx, gitDir, now, e)
		if err != nil || got.Variant != want || !strings.Contains(got.From, "#27372 #31075 #30545 #35049 #35360") {
			t.Errorf("ExpectMooncakeCommit(%q) = %+v, %v; want %s", env, got, err, want)
		}
	}
	if err := CheckBackend("mooncak"); err == nil || !strings.Contains(err.Error(), "nixl, mooncake") {
		t.Errorf("CheckBackend(mooncak) = %v", err)
	}
}

// Mooncake's real code (mooncake/conn.py of ROOMSPEC_SGLANG, its
// TransferEngine faked where NIXL's agent is) under the suite: the probe
// finds the mooncake configuration's switches, the code refines it taking
// every edge, and each liveness verdict is the model checker's: aborted
// rooms terminate (by the bootstrap timeout: PromptTermination pins), and
// with the deferred release a rank's ABORT_ACK is lost (one ACK target
// per room, common/conn.py:409, as NIXL's).
func TestRealCodeMooncake(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env      Env
		variant  string
		property string // the liveness property of the variant the checker violates, or ""
	}{
		{nil, "mooncake", ""},
		{Env{DeferredEnv + "=1"}, "mooncake-deferred", "AbortsAcked"},
	} {
		l := loadBackend(t, realSource(t), tc.env, Mooncake)
		if l.variant != tc.variant {
			t.Fatalf("%s: the probe of Mooncake's code chooses %s, not %s", l.src.Label(), l.variant, tc.variant)
		}
		r := l.check(t, conformance.Refinement, 1, 100)
		if !r.Holds {
			t.Fatalf("Mooncake's code at %s does not refine %s:\n%s", l.src.Label(), l.variant, report(r))
		}
		everyEdge(t, r)
		live := l.check(t, conformance.Liveness, 1, 50)
		want := checkerVerdict(t, tc.variant, "AbortedRoomsTerminate") && checkerVerdict(t, tc.variant, "AbortsAcked")
		if live.Holds != want {
			t.Fatalf("liveness on Mooncake's code at %s: holds=%v, the model checker says %v on %s\n%s",
				l.src.Label(), live.Holds, want, tc.variant, report(live))
		}
		if tc.property != "" && !strings.Contains(strings.Join(live.Pinned, " "), "(not ACKed)") {
			t.Errorf("liveness fails, but not for an unACKed room:\n%s", report(live))
		}
		if tc.env != nil {
			continue
		}
		var err error
		if l.config, err = spec.Compiled("mooncake-prompt"); err != nil {
			t.Fatal(err)
		}
		prompt := l.check(t, conformance.Liveness, 1, 50)
		if want := checkerVerdict(t, "mooncake-prompt", "PromptTermination"); prompt.Holds != want {
			t.Fatalf("PromptTermination on Mooncake's code: holds=%v, the model checker says %v\n%s", prompt.Holds, want, report(prompt))
		}
	}
}
