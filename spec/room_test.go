package spec_test

// These tests hold each rule of ROOM-LIFECYCLE.md ("Update rules", "Abort",
// "Prefill room timeline") against Room.tla, under the variant whose
// switches the rule depends on. The expected values come from the design
// document (and a Go transcription of its update rules), never from the
// spec itself, so a wrong rule in Room.tla makes a row fail;
// TestMutantsAreCaught shows that for a few plausible mistakes.

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// names gives the test expressions short names for the (single) room, its
// first request and the two decode ranks: every bundled cfg has
// Rooms = {r} and DecodeRanks = {d1, d2}.
const names = `LET R == CHOOSE x \in Rooms : TRUE
    Q == <<R, 1>>
    D == CHOOSE x \in DecodeRanks : TRUE
    E == CHOOSE x \in DecodeRanks : x # D
IN `

// statuses are KVPoll's names in KVPoll order (ROOM-LIFECYCLE.md "Status
// values": Failed=0 ... Success=4).
var statuses = []string{"Failed", "Bootstrapping", "WaitingForInput", "Transferring", "Success"}

// buildModel loads module Room from fsys (a mutant of the bundled one)
// and binds it to variant's cfg.
func buildModel(fsys fs.FS, variant string) (*check.Model, error) {
	mods, err := tla.Load(fsys, spec.Module)
	if err != nil {
		return nil, err
	}
	v, err := spec.Load(variant)
	if err != nil {
		return nil, err
	}
	return check.Build(mods, v.Cfg)
}

var models = map[string]*check.Model{}

// model returns the bundled spec under variant, built once per test binary.
func model(t testing.TB, variant string) *check.Model {
	t.Helper()
	if m, ok := models[variant]; ok {
		return m
	}
	v, err := spec.Load(variant)
	require.NoError(t, err, "variant %s", variant)
	m, err := v.Model()
	require.NoError(t, err, "variant %s", variant)
	models[variant] = m
	return m
}

// evalConst evaluates a constant-level expression of the spec and prints
// the value as TLA+.
func evalConst(m *check.Model, expr string) (string, error) {
	return evalIn(m, nil, expr)
}

// evalIn evaluates a state-level expression in s (nil: constant-level).
func evalIn(m *check.Model, s eval.State, expr string) (string, error) {
	f, err := m.Spec.ParseFormula(names + expr)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", expr, err)
	}
	v, err := m.Spec.Eval(f, s)
	if err != nil {
		return "", fmt.Errorf("eval %s: %w", expr, err)
	}
	return value.Format(v), nil
}

// q quotes a status the way value.Format prints TLA+ strings.
func q(s string) string { return `"` + s + `"` }

// wantUpdate is update_status as ROOM-LIFECYCLE.md states it, in Go:
// absent + Failed is a no-op, absent + other inserts; present + Failed
// overwrites anything; otherwise max by KVPoll, except that NIXL's Failed
// is sticky while the entry exists.
func wantUpdate(cur, s string, sticky bool) string {
	switch {
	case cur == "Absent" && s == "Failed":
		return "Absent"
	case cur == "Absent":
		return s
	case s == "Failed":
		return "Failed"
	case sticky && cur == "Failed":
		return "Failed"
	case slices.Index(statuses, s) > slices.Index(statuses, cur):
		return s
	}
	return cur
}

// opRow is one rule of the design evaluated as a constant expression.
type opRow struct {
	rule    string
	variant string
	expr    string
	want    string
}

// operatorRows are the update and read rules, one row per rule of
// ROOM-LIFECYCLE.md "Update rules" and "Status values".
var operatorRows = []opRow{
	{"KVPoll Failed=0", "upstream", `KVPoll("Failed")`, "0"},
	{"KVPoll Bootstrapping=1", "upstream", `KVPoll("Bootstrapping")`, "1"},
	{"KVPoll WaitingForInput=2", "upstream", `KVPoll("WaitingForInput")`, "2"},
	{"KVPoll Transferring=3", "upstream", `KVPoll("Transferring")`, "3"},
	{"KVPoll Success=4", "upstream", `KVPoll("Success")`, "4"},

	{"absent + Failed is a no-op (no resurrection)", "upstream", `UpdateStatus("Absent", "Failed")`, q("Absent")},
	{"absent + Failed is a no-op, not sticky either", "mooncake", `UpdateStatus("Absent", "Failed")`, q("Absent")},
	{"absent + Bootstrapping inserts", "upstream", `UpdateStatus("Absent", "Bootstrapping")`, q("Bootstrapping")},
	{"absent + WaitingForInput inserts", "upstream", `UpdateStatus("Absent", "WaitingForInput")`, q("WaitingForInput")},
	{"absent + Transferring inserts", "upstream", `UpdateStatus("Absent", "Transferring")`, q("Transferring")},
	{"absent + Success inserts", "upstream", `UpdateStatus("Absent", "Success")`, q("Success")},

	{"present + Failed overwrites Success", "upstream", `UpdateStatus("Success", "Failed")`, q("Failed")},
	{"present + Failed overwrites Success (Mooncake)", "mooncake", `UpdateStatus("Success", "Failed")`, q("Failed")},
	{"present + Failed overwrites Transferring", "upstream", `UpdateStatus("Transferring", "Failed")`, q("Failed")},
	{"present + Failed overwrites Bootstrapping", "mooncake", `UpdateStatus("Bootstrapping", "Failed")`, q("Failed")},

	{"present + other is max: lower is ignored", "upstream", `UpdateStatus("Transferring", "Bootstrapping")`, q("Transferring")},
	{"present + other is max: higher wins", "upstream", `UpdateStatus("Bootstrapping", "WaitingForInput")`, q("WaitingForInput")},
	{"Bootstrapping after WaitingForInput is swallowed by max", "upstream", `UpdateStatus("WaitingForInput", "Bootstrapping")`, q("WaitingForInput")},
	{"present + other is max: Success stays over Transferring", "mooncake", `UpdateStatus("Success", "Transferring")`, q("Success")},

	{"NIXL sticky Failed: WaitingForInput does not revive it", "upstream", `UpdateStatus("Failed", "WaitingForInput")`, q("Failed")},
	{"NIXL sticky Failed: Success does not revive it", "upstream", `UpdateStatus("Failed", "Success")`, q("Failed")},
	{"NIXL sticky Failed also in the fix", "fixed", `UpdateStatus("Failed", "Transferring")`, q("Failed")},
	{"Mooncake Failed not sticky: Success is max", "mooncake", `UpdateStatus("Failed", "Success")`, q("Success")},
	{"Mooncake Failed not sticky: WaitingForInput is max", "mooncake", `UpdateStatus("Failed", "WaitingForInput")`, q("WaitingForInput")},
	{"ablation not-sticky: Bootstrapping is max", "ablate-not-sticky", `UpdateStatus("Failed", "Bootstrapping")`, q("Bootstrapping")},

	{"NIXL check_status: absent reads WaitingForInput", "upstream", `CheckStatus("Absent")`, q("WaitingForInput")},
	{"NIXL check_status before PR #30352 too", "pre-30352", `CheckStatus("Absent")`, q("WaitingForInput")},
	{"common/Mooncake check_status: absent raises KeyError", "mooncake", `CheckStatus("Absent")`, q("KeyError")},
	{"fix: absent room of a live sender reads Failed", "fixed", `CheckStatus("Absent")`, q("Failed")},
	{"check_status: a present room reads its entry", "upstream", `CheckStatus("Transferring")`, q("Transferring")},
	{"check_status: a present Failed reads Failed in the fix", "fixed", `CheckStatus("Failed")`, q("Failed")},
	{"check_status: a present room reads its entry (Mooncake)", "mooncake", `CheckStatus("Success")`, q("Success")},
}

// checkOpRows evaluates rows on the models got returns and lists every row
// whose value differs from the design.
func checkOpRows(rows []opRow, get func(variant string) (*check.Model, error)) []string {
	var bad []string
	for _, r := range rows {
		m, err := get(r.variant)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", r.variant, err))
			continue
		}
		got, err := evalConst(m, r.expr)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s [%s]: %v", r.rule, r.variant, err))
			continue
		}
		if got != r.want {
			bad = append(bad, fmt.Sprintf("%s [%s]: %s = %s, want %s", r.rule, r.variant, r.expr, got, r.want))
		}
	}
	return bad
}

func TestOperatorRules(t *testing.T) {
	for _, r := range operatorRows {
		t.Run(r.variant+"/"+r.rule, func(t *testing.T) {
			m := model(t, r.variant)
			got, err := evalConst(m, r.expr)
			require.NoError(t, err)
			assert.Equal(t, r.want, got, "%s", r.expr)
		})
	}
}

// TestUpdateStatusExhaustive compares UpdateStatus with the Go
// transcription of the design on every (current entry, written status)
// pair, with Failed sticky (upstream) and not (mooncake).
func TestUpdateStatusExhaustive(t *testing.T) {
	for _, variant := range []string{"upstream", "mooncake"} {
		m := model(t, variant)
		sticky, err := evalConst(m, "FailedSticky")
		require.NoError(t, err)
		for _, cur := range append([]string{"Absent"}, statuses...) {
			for _, s := range statuses {
				got, err := evalConst(m, fmt.Sprintf("UpdateStatus(%q, %q)", cur, s))
				require.NoError(t, err)
				assert.Equal(t, q(wantUpdate(cur, s, sticky == "TRUE")), got,
					"%s: UpdateStatus(%q, %q)", variant, cur, s)
			}
		}
	}
}

// assign sets a variable to an expression evaluated in the initial state.
type assign struct{ name, expr string }

// stepRow is an action-level rule: from the initial state of variant with
// the given assignments, action has exactly one successor in which every
// expression of want has its value and exactly the variables in changed
// differ from the state before; or, with disabled, no successor at all.
type stepRow struct {
	rule     string
	variant  string
	given    []assign
	action   string
	disabled bool
	want     map[string]string
	changed  []string
}

// abortOnD puts an ABORT of R at the head of decode rank D's channel.
var abortOnD = assign{"chan", `[chan EXCEPT ![D] = <<[type |-> "ABORT", room |-> R, rank |-> D]>>]`}

func status(s string) assign {
	return assign{"request_status", fmt.Sprintf("[request_status EXCEPT ![R] = %q]", s)}
}

func senderAt(pos string) assign {
	return assign{"sender", fmt.Sprintf("[sender EXCEPT ![Q] = %q]", pos)}
}

var (
	allInfos  = assign{"transfer_infos", `[transfer_infos EXCEPT ![R] = DecodeRanks]`}
	oneInfo   = assign{"transfer_infos", `[transfer_infos EXCEPT ![R] = {E}]`}
	tombstone = assign{"tombstones", `{R}`}
	tiOnD     = assign{"chan", `[chan EXCEPT ![D] = <<[type |-> "TransferInfo", room |-> R, rank |-> D]>>]`}
	oneQueued = assign{"wqueue", `<<[req |-> Q, left |-> 1]>>`}
	isPosted  = assign{"posted", `[posted EXCEPT ![Q] = TRUE]`}
	oneCount  = assign{"outstanding", `[outstanding EXCEPT ![R] = 1]`}
	// holdsPages: the forward pass allocated Q's KV pages (an in-flight
	// request holds them).
	holdsPages = assign{"kv_held", `[kv_held EXCEPT ![Q] = TRUE]`}
)

// elapsedAt sets the seconds since Q's sender was created.
func elapsedAt(e string) assign {
	return assign{"elapsed", fmt.Sprintf("[elapsed EXCEPT ![Q] = %s]", e)}
}

var stepRows = []stepRow{
	// Prefill room timeline 3: the bootstrap timeout, and the clock it
	// reads. The clock moves to one second before a Bootstrapping
	// request's timeout, then to the instant it expires (Tick); the
	// timeout fires inside the sender's poll (nixl/conn.py:2831-2834,
	// common/conn.py:1285-1286) and the same bootstrap-queue pass releases
	// the request, whose failure_exception() clears the room: one step.
	{rule: "the clock moves to one second before a Bootstrapping request's timeout", variant: "upstream",
		given:   []assign{status("Bootstrapping"), senderAt("BootstrapQueue")},
		action:  `Tick(Q)`,
		want:    map[string]string{"elapsed[Q]": "BootstrapTimeoutSecs - 1", "request_status[R]": q("Bootstrapping")},
		changed: []string{"elapsed"}},
	{rule: "from one second before, the clock moves to the instant the timeout expires", variant: "upstream",
		given:   []assign{status("Bootstrapping"), senderAt("BootstrapQueue"), elapsedAt("BootstrapTimeoutSecs - 1")},
		action:  `Tick(Q)`,
		want:    map[string]string{"elapsed[Q]": "BootstrapTimeoutSecs", "sender[Q]": q("BootstrapQueue")},
		changed: []string{"elapsed"}},
	{rule: "a bootstrap-queue pass one second before the timeout keeps waiting", variant: "upstream",
		given: []assign{status("Bootstrapping"), senderAt("BootstrapQueue"), elapsedAt("BootstrapTimeoutSecs - 1")}, action: `SchedulerPollBootstrap`, disabled: true},
	{rule: "the bootstrap-queue pass at the timeout fails, releases and clears a Bootstrapping request", variant: "upstream",
		given:   []assign{status("Bootstrapping"), senderAt("BootstrapQueue"), oneInfo, elapsedAt("BootstrapTimeoutSecs")},
		action:  `SchedulerPollBootstrap`,
		want:    map[string]string{"request_status[R]": q("Absent"), "sender[Q]": q("Released"), "transfer_infos[R]": "{}", "elapsed[Q]": "0"},
		changed: []string{"elapsed", "request_status", "sender", "transfer_infos"}},
	{rule: "a bootstrap-queue pass after the timeout still finalizes a WaitingForInput request (the timeout reads only Bootstrapping)", variant: "upstream",
		given:   []assign{status("WaitingForInput"), senderAt("BootstrapQueue"), elapsedAt("BootstrapTimeoutSecs")},
		action:  `SchedulerPollBootstrap`,
		want:    map[string]string{"sender[Q]": q("WaitingQueue"), "request_status[R]": q("WaitingForInput")},
		changed: []string{"sender"}},
	{rule: "fix: a failure that clears its room leaves a tombstone", variant: "fixed-complete",
		given:   []assign{status("Bootstrapping"), senderAt("BootstrapQueue"), elapsedAt("BootstrapTimeoutSecs")},
		action:  `SchedulerPollBootstrap`,
		want:    map[string]string{"request_status[R]": q("Absent"), "sender[Q]": q("Released"), "tombstones": "{R}"},
		changed: []string{"elapsed", "request_status", "sender", "tombstones"}},
	{rule: "without the fix a failure's clear() leaves no tombstone", variant: "fixed-deferred",
		given:   []assign{status("Bootstrapping"), senderAt("BootstrapQueue"), elapsedAt("BootstrapTimeoutSecs")},
		action:  `SchedulerPollBootstrap`,
		want:    map[string]string{"request_status[R]": q("Absent"), "sender[Q]": q("Released"), "tombstones": "{}"},
		changed: []string{"elapsed", "request_status", "sender"}},
	{rule: "the clock does not move for WaitingForInput", variant: "upstream",
		given: []assign{status("WaitingForInput"), senderAt("BootstrapQueue")}, action: `Tick(Q)`, disabled: true},
	{rule: "the clock does not move for an absent room", variant: "upstream",
		given: []assign{senderAt("BootstrapQueue")}, action: `Tick(Q)`, disabled: true},
	{rule: "the clock does not move for Transferring", variant: "mooncake",
		given: []assign{status("Transferring"), senderAt("BootstrapQueue")}, action: `Tick(Q)`, disabled: true},
	{rule: "the clock does not move past an expired timeout", variant: "upstream",
		given: []assign{status("Bootstrapping"), senderAt("BootstrapQueue"), elapsedAt("BootstrapTimeoutSecs")}, action: `Tick(Q)`, disabled: true},
	{rule: "the fork has no bootstrap timeout", variant: "fork-90a52f44a",
		given: []assign{status("Bootstrapping"), senderAt("BootstrapQueue")}, action: `Tick(Q)`, disabled: true},

	// Abort.
	{rule: "ABORT of an absent room changes no request_status and records nothing", variant: "upstream",
		given: []assign{abortOnD, oneInfo}, action: `BootstrapRecvAbort(D)`,
		want:    map[string]string{"request_status[R]": q("Absent"), "tombstones": "{}", "transfer_infos[R]": "{E}"},
		changed: []string{"chan"}},
	{rule: "fix: ABORT of an absent room records a tombstone", variant: "fixed",
		given: []assign{abortOnD}, action: `BootstrapRecvAbort(D)`,
		want:    map[string]string{"request_status[R]": q("Absent"), "tombstones": "{R}"},
		changed: []string{"chan", "tombstones"}},
	{rule: "ABORT of a present, not Success room sets Failed", variant: "upstream",
		given: []assign{abortOnD, status("WaitingForInput")}, action: `BootstrapRecvAbort(D)`,
		want: map[string]string{"request_status[R]": q("Failed")}, changed: []string{"chan", "request_status"}},
	{rule: "NIXL ABORT leaves a Success room alone", variant: "upstream",
		given: []assign{abortOnD, status("Success")}, action: `BootstrapRecvAbort(D)`,
		want: map[string]string{"request_status[R]": q("Success")}, changed: []string{"chan"}},
	// mooncake/conn.py:1997-2000: room_active is present and not Success;
	// its 2-frame ABORT_ACK (:2040-2050) is no ACK decode acts on.
	{rule: "Mooncake ABORT leaves a Success room alone, and no ACK decode acts on", variant: "mooncake",
		given: []assign{abortOnD, status("Success")}, action: `BootstrapRecvAbort(D)`,
		want:    map[string]string{"request_status[R]": q("Success"), "ack_chan[D]": "<<>>"},
		changed: []string{"chan"}},
	{rule: "Mooncake ABORT fails a present room", variant: "mooncake",
		given: []assign{abortOnD, status("WaitingForInput")}, action: `BootstrapRecvAbort(D)`,
		want:    map[string]string{"request_status[R]": q("Failed"), "Len(ack_chan[D])": "0"},
		changed: []string{"chan", "request_status"}},
	{rule: "ABORT keeps transfer_infos upstream", variant: "upstream",
		given: []assign{abortOnD, allInfos, status("WaitingForInput")}, action: `BootstrapRecvAbort(D)`,
		want: map[string]string{"transfer_infos[R]": "DecodeRanks"}, changed: []string{"chan", "request_status"}},
	{rule: "fork: ABORT pops transfer_infos of an absent room", variant: "fork-90a52f44a",
		given: []assign{abortOnD, oneInfo}, action: `BootstrapRecvAbort(D)`,
		want:    map[string]string{"transfer_infos[R]": "{}", "request_status[R]": q("Absent")},
		changed: []string{"chan", "transfer_infos"}},
	{rule: "fork: ABORT pops transfer_infos and fails a present room", variant: "fork-90a52f44a",
		given: []assign{abortOnD, allInfos, status("Success")}, action: `BootstrapRecvAbort(D)`,
		want:    map[string]string{"transfer_infos[R]": "{}", "request_status[R]": q("Failed")},
		changed: []string{"chan", "request_status", "transfer_infos"}},
	{rule: "before PR #30352 the first ABORT kills the bootstrap thread", variant: "pre-30352",
		given: []assign{abortOnD, status("Bootstrapping")}, action: `BootstrapRecvAbort(D)`,
		want:    map[string]string{"bootstrap_alive": "FALSE", "request_status[R]": q("Bootstrapping")},
		changed: []string{"bootstrap_alive", "chan"}},
	{rule: "a dead bootstrap thread reads no more messages", variant: "pre-30352",
		given: []assign{tiOnD, {"bootstrap_alive", "FALSE"}}, action: `BootstrapRecvTransferInfo(D)`, disabled: true},

	// Timeline 1-2: TransferInfo and the sender.
	{rule: "a TransferInfo short of required_dst_info_num only stores it", variant: "upstream",
		given: []assign{tiOnD}, action: `BootstrapRecvTransferInfo(D)`,
		want:    map[string]string{"transfer_infos[R]": "{D}", "request_status[R]": q("Absent")},
		changed: []string{"chan", "transfer_infos"}},
	{rule: "the last TransferInfo inserts WaitingForInput with no sender", variant: "upstream",
		given: []assign{tiOnD, oneInfo}, action: `BootstrapRecvTransferInfo(D)`,
		want:    map[string]string{"transfer_infos[R]": "DecodeRanks", "request_status[R]": q("WaitingForInput"), "sender[Q]": q("NoSender")},
		changed: []string{"chan", "request_status", "transfer_infos"}},
	{rule: "the last TransferInfo lifts Bootstrapping to WaitingForInput", variant: "upstream",
		given: []assign{tiOnD, oneInfo, status("Bootstrapping"), senderAt("BootstrapQueue")}, action: `BootstrapRecvTransferInfo(D)`,
		want: map[string]string{"request_status[R]": q("WaitingForInput")}, changed: []string{"chan", "request_status", "transfer_infos"}},
	{rule: "the last TransferInfo does not revive a sticky Failed", variant: "upstream",
		given: []assign{tiOnD, oneInfo, status("Failed")}, action: `BootstrapRecvTransferInfo(D)`,
		want: map[string]string{"request_status[R]": q("Failed")}, changed: []string{"chan", "transfer_infos"}},
	{rule: "Mooncake: the last TransferInfo revives a Failed room (max)", variant: "mooncake",
		given: []assign{tiOnD, oneInfo, status("Failed")}, action: `BootstrapRecvTransferInfo(D)`,
		want: map[string]string{"request_status[R]": q("WaitingForInput")}, changed: []string{"chan", "request_status", "transfer_infos"}},
	{rule: "fix: a tombstoned room ignores TransferInfo", variant: "fixed",
		given: []assign{tiOnD, oneInfo, tombstone}, action: `BootstrapRecvTransferInfo(D)`,
		want: map[string]string{"request_status[R]": q("Absent"), "transfer_infos[R]": "{E}"}, changed: []string{"chan"}},
	{rule: "creating the sender inserts Bootstrapping", variant: "upstream",
		action: `SchedulerCreateSender(Q)`,
		want:   map[string]string{"request_status[R]": q("Bootstrapping"), "sender[Q]": q("BootstrapQueue")}, changed: []string{"request_status", "sender"}},
	{rule: "the sender's Bootstrapping is swallowed by an earlier WaitingForInput", variant: "upstream",
		given: []assign{status("WaitingForInput")}, action: `SchedulerCreateSender(Q)`,
		want: map[string]string{"request_status[R]": q("WaitingForInput")}, changed: []string{"sender"}},
	{rule: "fix: a sender of a tombstoned room fails at once", variant: "fixed",
		given: []assign{tombstone}, action: `SchedulerCreateSender(Q)`,
		want: map[string]string{"request_status[R]": q("Failed")}, changed: []string{"request_status", "sender"}},

	// Timeline 3: bootstrap poll.
	{rule: "bootstrap poll waits while Bootstrapping", variant: "upstream",
		given: []assign{status("Bootstrapping"), senderAt("BootstrapQueue")}, action: `SchedulerPollBootstrap`, disabled: true},
	{rule: "bootstrap poll finalizes on WaitingForInput", variant: "upstream",
		given: []assign{status("WaitingForInput"), senderAt("BootstrapQueue")}, action: `SchedulerPollBootstrap`,
		want: map[string]string{"sender[Q]": q("WaitingQueue"), "request_status[R]": q("WaitingForInput")}, changed: []string{"sender"}},
	{rule: "bootstrap poll releases a Failed request and clear()s its room (PR #27011)", variant: "upstream",
		given: []assign{status("Failed"), senderAt("BootstrapQueue")}, action: `SchedulerPollBootstrap`,
		want: map[string]string{"sender[Q]": q("Released"), "request_status[R]": q("Absent")}, changed: []string{"request_status", "sender"}},
	{rule: "before PR #27011 the bootstrap poll releases a Failed request without clear()", variant: "sglang-pre-27011",
		given: []assign{status("Failed"), senderAt("BootstrapQueue")}, action: `SchedulerPollBootstrap`,
		want: map[string]string{"sender[Q]": q("Released"), "request_status[R]": q("Failed")}, changed: []string{"sender"}},
	{rule: "bootstrap poll of Transferring raises RuntimeError: prefill dies", variant: "upstream",
		given: []assign{status("Transferring"), senderAt("BootstrapQueue")}, action: `SchedulerPollBootstrap`,
		want: map[string]string{"prefill_crashed": "TRUE", "sender[Q]": q("BootstrapQueue")}, changed: []string{"prefill_crashed"}},
	{rule: "bootstrap poll of Success raises RuntimeError: prefill dies", variant: "upstream",
		given: []assign{status("Success"), senderAt("BootstrapQueue")}, action: `SchedulerPollBootstrap`,
		want: map[string]string{"prefill_crashed": "TRUE"}, changed: []string{"prefill_crashed"}},
	{rule: "NIXL bootstrap poll of an absent room reads WaitingForInput and finalizes", variant: "upstream",
		given: []assign{senderAt("BootstrapQueue")}, action: `SchedulerPollBootstrap`,
		want: map[string]string{"sender[Q]": q("WaitingQueue")}, changed: []string{"sender"}},
	{rule: "Mooncake bootstrap poll of an absent room: KeyError kills prefill", variant: "mooncake",
		given: []assign{senderAt("BootstrapQueue")}, action: `SchedulerPollBootstrap`,
		want: map[string]string{"prefill_crashed": "TRUE", "sender[Q]": q("BootstrapQueue")}, changed: []string{"prefill_crashed"}},

	// Timeline 4: send -> add_transfer_request.
	{rule: "add_transfer_request enqueues nothing without transfer_infos", variant: "upstream",
		given: []assign{status("WaitingForInput"), senderAt("WaitingQueue")}, action: `SchedulerSend(Q)`,
		want: map[string]string{"wqueue": "<<>>", "sender[Q]": q("InflightQueue"), "kv_held[Q]": "TRUE"}, changed: []string{"kv_held", "sender"}},
	{rule: "add_transfer_request enqueues every chunk with transfer_infos", variant: "upstream",
		given: []assign{status("WaitingForInput"), senderAt("WaitingQueue"), allInfos}, action: `SchedulerSend(Q)`,
		want: map[string]string{"wqueue": "<<[req |-> Q, left |-> NumChunks]>>", "sender[Q]": q("InflightQueue"), "kv_held[Q]": "TRUE"}, changed: []string{"kv_held", "sender", "wqueue"}},

	// Timeline 5: transfer worker.
	{rule: "worker skips a chunk of a Failed room", variant: "upstream",
		given: []assign{status("Failed"), allInfos, oneQueued}, action: `WorkerPost(Q)`,
		want: map[string]string{"wqueue": "<<>>", "outstanding[R]": "0", "posted[Q]": "FALSE", "request_status[R]": q("Failed")}, changed: []string{"wqueue"}},
	{rule: "worker marks Transferring and posts the writes", variant: "upstream",
		given: []assign{status("WaitingForInput"), allInfos, oneQueued}, action: `WorkerPost(Q)`,
		want: map[string]string{"posted[Q]": "TRUE", "outstanding[R]": "1", "request_status[R]": q("Transferring")}, changed: []string{"outstanding", "posted", "request_status", "wqueue"}},
	{rule: "worker without transfer_infos: exception -> Failed", variant: "upstream",
		given: []assign{status("WaitingForInput"), oneQueued}, action: `WorkerPost(Q)`,
		want: map[string]string{"posted[Q]": "FALSE", "outstanding[R]": "1", "request_status[R]": q("Failed")}, changed: []string{"outstanding", "request_status", "wqueue"}},
	{rule: "worker exception on an absent room is a no-op Failed", variant: "upstream",
		given: []assign{oneQueued}, action: `WorkerPost(Q)`,
		want: map[string]string{"request_status[R]": q("Absent")}, changed: []string{"outstanding", "wqueue"}},
	{rule: "Mooncake: worker posts without marking Transferring", variant: "mooncake",
		given: []assign{status("WaitingForInput"), allInfos, oneQueued}, action: `WorkerPost(Q)`,
		want: map[string]string{"posted[Q]": "TRUE", "outstanding[R]": "1", "request_status[R]": q("WaitingForInput")}, changed: []string{"outstanding", "posted", "wqueue"}},
	{rule: "Mooncake: worker skips a chunk of an absent room", variant: "mooncake",
		given: []assign{allInfos, oneQueued}, action: `WorkerPost(Q)`,
		want: map[string]string{"posted[Q]": "FALSE", "outstanding[R]": "0", "request_status[R]": q("Absent")}, changed: []string{"wqueue"}},
	{rule: "Mooncake: add_transfer_request enqueues nothing for a Failed room", variant: "mooncake",
		given: []assign{status("Failed"), senderAt("WaitingQueue"), allInfos}, action: `SchedulerSend(Q)`,
		want: map[string]string{"wqueue": "<<>>", "sender[Q]": q("InflightQueue")}, changed: []string{"kv_held", "sender"}},
	{rule: "fork: worker skips a room missing from transfer_infos", variant: "fork-90a52f44a",
		given: []assign{status("WaitingForInput"), oneQueued}, action: `WorkerPost(Q)`,
		want: map[string]string{"request_status[R]": q("WaitingForInput"), "posted[Q]": "FALSE"}, changed: []string{"wqueue"}},
	{rule: "last chunk done: Success and transfer_infos popped", variant: "upstream",
		given: []assign{status("Transferring"), allInfos, isPosted, oneCount}, action: `WorkerComplete(Q)`,
		want: map[string]string{"request_status[R]": q("Success"), "transfer_infos[R]": "{}", "outstanding[R]": "0"}, changed: []string{"outstanding", "posted", "request_status", "transfer_infos"}},
	{rule: "a write done on a Failed room leaves it Failed (NIXL)", variant: "upstream",
		given: []assign{status("Failed"), allInfos, isPosted, oneCount}, action: `WorkerComplete(Q)`,
		want: map[string]string{"request_status[R]": q("Failed"), "transfer_infos[R]": "{}"}, changed: []string{"outstanding", "posted", "transfer_infos"}},

	// Timeline 6: in-flight poll and clear().
	{rule: "in-flight poll on Success releases and clear()s the room", variant: "upstream",
		given: []assign{status("Success"), allInfos, senderAt("InflightQueue"), holdsPages}, action: `SchedulerPollInFlight`,
		want:    map[string]string{"request_status[R]": q("Absent"), "transfer_infos[R]": "{}", "sender[Q]": q("Released"), "kv_held[Q]": "FALSE", "kv_frees[Q]": "1"},
		changed: []string{"kv_frees", "kv_held", "request_status", "sender", "transfer_infos"}},
	{rule: "in-flight poll on Failed releases and clear()s the room", variant: "mooncake",
		given: []assign{status("Failed"), oneInfo, senderAt("InflightQueue"), holdsPages}, action: `SchedulerPollInFlight`,
		want:    map[string]string{"request_status[R]": q("Absent"), "transfer_infos[R]": "{}", "sender[Q]": q("Released"), "kv_held[Q]": "FALSE", "kv_frees[Q]": "1"},
		changed: []string{"kv_frees", "kv_held", "request_status", "sender", "transfer_infos"}},
	{rule: "in-flight poll keeps WaitingForInput, with no timeout", variant: "upstream",
		given: []assign{status("WaitingForInput"), senderAt("InflightQueue")}, action: `SchedulerPollInFlight`, disabled: true},
	{rule: "in-flight poll keeps Transferring, with no timeout", variant: "upstream",
		given: []assign{status("Transferring"), allInfos, senderAt("InflightQueue")}, action: `SchedulerPollInFlight`, disabled: true},
	{rule: "NIXL in-flight poll of an absent room keeps it (the silent pin)", variant: "upstream",
		given: []assign{senderAt("InflightQueue")}, action: `SchedulerPollInFlight`, disabled: true},
	{rule: "fix: in-flight poll of an absent room reads Failed and releases", variant: "fixed",
		given: []assign{senderAt("InflightQueue"), holdsPages}, action: `SchedulerPollInFlight`,
		want: map[string]string{"sender[Q]": q("Released"), "request_status[R]": q("Absent"), "kv_held[Q]": "FALSE"}, changed: []string{"kv_frees", "kv_held", "sender"}},
	{rule: "Mooncake in-flight poll of an absent room: KeyError kills prefill", variant: "mooncake",
		given: []assign{senderAt("InflightQueue")}, action: `SchedulerPollInFlight`,
		want: map[string]string{"prefill_crashed": "TRUE", "sender[Q]": q("InflightQueue")}, changed: []string{"prefill_crashed"}},
	{rule: "a crashed prefill takes no more steps", variant: "mooncake",
		given: []assign{status("Success"), senderAt("InflightQueue"), {"prefill_crashed", "TRUE"}}, action: `SchedulerPollInFlight`, disabled: true},

	// Decode (environment).
	{rule: "decode sends ABORT once to every prefill rank and frees pages (no ACK)", variant: "upstream",
		action: `DecodeAbort(Q)`,
		want: map[string]string{
			"aborted[Q]":        "TRUE",
			"pages_released[Q]": "DecodeRanks",
			"chan":              `[d \in DecodeRanks |-> <<[type |-> "ABORT", room |-> R, rank |-> d]>>]`,
		},
		changed: []string{"aborted", "chan", "pages_released"}},
	{rule: "decode never resends ABORT", variant: "upstream",
		given: []assign{{"aborted", `[aborted EXCEPT ![Q] = TRUE]`}}, action: `DecodeAbort(Q)`, disabled: true},
	{rule: "Mooncake decode defers page release until the ACK (deferred release)", variant: "mooncake-deferred",
		action: `DecodeAbort(Q)`,
		want:   map[string]string{"pages_released[Q]": "{}"}, changed: []string{"aborted", "chan"}},
}

// stateFrom is the initial state of m with the assignments applied; each
// expression is evaluated in the initial state.
func stateFrom(m *check.Model, given []assign) (eval.State, error) {
	var inits []eval.State
	if err := m.Spec.Init(m.Init, func(s eval.State) { inits = append(inits, s) }); err != nil {
		return nil, err
	}
	if len(inits) != 1 {
		return nil, fmt.Errorf("%d initial states, want 1", len(inits))
	}
	s := slices.Clone(inits[0])
	for _, a := range given {
		i := slices.Index(m.Spec.Vars, a.name)
		if i < 0 {
			return nil, fmt.Errorf("no variable %s", a.name)
		}
		f, err := m.Spec.ParseFormula(names + a.expr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.name, err)
		}
		v, err := m.Spec.Eval(f, inits[0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a.name, err)
		}
		s[i] = v
	}
	return s, nil
}

// checkStep runs one row on m and lists what differs from the rule.
func checkStep(m *check.Model, r stepRow) []string {
	s, err := stateFrom(m, r.given)
	if err != nil {
		return []string{err.Error()}
	}
	f, err := m.Spec.ParseFormula(names + r.action)
	if err != nil {
		return []string{err.Error()}
	}
	var succs []eval.State
	if err := m.Spec.Next(f, s, func(t eval.State, _ *eval.Action) { succs = append(succs, t) }); err != nil {
		return []string{err.Error()}
	}
	if r.disabled {
		if len(succs) > 0 {
			return []string{fmt.Sprintf("%s is enabled, want disabled; a successor:\n%s", r.action, m.Spec.Format(succs[0]))}
		}
		return nil
	}
	if len(succs) != 1 {
		return []string{fmt.Sprintf("%s has %d successors, want 1", r.action, len(succs))}
	}
	t := succs[0]
	var bad []string
	var changed []string
	for i, name := range m.Spec.Vars {
		if !value.Equal(s[i], t[i]) {
			changed = append(changed, name)
		}
	}
	slices.Sort(changed)
	want := slices.Sorted(slices.Values(r.changed))
	if !slices.Equal(changed, want) {
		bad = append(bad, fmt.Sprintf("%s changes %v, want %v", r.action, changed, want))
	}
	for _, expr := range slices.Sorted(maps.Keys(r.want)) {
		wantV, err := evalConst(m, r.want[expr])
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		got, err := evalIn(m, t, expr)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if got != wantV {
			bad = append(bad, fmt.Sprintf("after %s: %s = %s, want %s", r.action, expr, got, wantV))
		}
	}
	return bad
}

func TestActionRules(t *testing.T) {
	for _, r := range stepRows {
		t.Run(r.variant+"/"+r.rule, func(t *testing.T) {
			for _, msg := range checkStep(model(t, r.variant), r) {
				t.Error(msg)
			}
		})
	}
}
