package spec_test

// These tests hold the facts of ROOM-LIFECYCLE.md on every reachable step
// of Room.tla's state graph, and show that plausible mistakes in the spec
// are caught (the names and statuses they use are in room_test.go).

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla/check"
)

// fact is a rule that must hold on every reachable step of an action.
type fact struct {
	rule, variant, action string
	// holds must hold on every edge of action; witness on at least one
	// (so that an implication is not vacuous); with none, the action
	// must take no step at all.
	holds, witness string
	none           bool
}

// The timeout fires only in a bootstrap-queue pass that reads
// Bootstrapping once the clock reached it, and the same pass releases the
// request and clears the room (FailureClears in both variants).
const timeoutRule = `request_status[R] = "Bootstrapping" /\ sender'[Q] = "Released" => (elapsed[Q] = BootstrapTimeoutSecs /\ request_status'[R] = "Absent")`

// facts are the action-level rules checked over whole state graphs.
var facts = []fact{
	{rule: "the bootstrap timeout fires only while Bootstrapping, and fails and releases the request", variant: "upstream",
		action: "SchedulerPollBootstrap", holds: timeoutRule, witness: `request_status[R] = "Bootstrapping" /\ sender'[Q] = "Released"`},
	{rule: "the bootstrap timeout fires only while Bootstrapping (Mooncake)", variant: "mooncake",
		action: "SchedulerPollBootstrap", holds: timeoutRule, witness: `request_status[R] = "Bootstrapping" /\ sender'[Q] = "Released"`},
	{rule: "the clock moves only while a held request reads Bootstrapping, to one second before its timeout or to it", variant: "upstream",
		action: "Tick", holds: `request_status[R] = "Bootstrapping" /\ elapsed'[Q] \in {BootstrapTimeoutSecs - 1, BootstrapTimeoutSecs} /\ elapsed'[Q] > elapsed[Q]`, witness: `elapsed'[Q] = BootstrapTimeoutSecs`},
	{rule: "the fork never times out", variant: "fork-90a52f44a", action: "Tick", holds: "TRUE", none: true},
	{rule: "the scheduler lets a request go with its pages freed once (in flight) or never allocated (bootstrap queue)", variant: "upstream", action: "SchedulerPollInFlight",
		holds: `sender'[Q] = "Released" => (~kv_held'[Q] /\ kv_frees'[Q] = kv_frees[Q] + 1)`, witness: `sender'[Q] = "Released"`},
	{rule: "an ABORT of an absent room changes no request_status (upstream)", variant: "upstream", action: "BootstrapRecvAbort",
		holds:   `request_status[R] = "Absent" => (request_status' = request_status /\ tombstones' = {})`,
		witness: `request_status[R] = "Absent"`},
	{rule: "an ABORT of an absent room records a tombstone (fixed)", variant: "fixed", action: "BootstrapRecvAbort",
		holds:   `request_status[R] = "Absent" => (request_status' = request_status /\ R \in tombstones')`,
		witness: `request_status[R] = "Absent"`},
	{rule: "only the fork's ABORT pops transfer_infos (upstream keeps them)", variant: "upstream", action: "BootstrapRecvAbort",
		holds: `transfer_infos' = transfer_infos`, witness: `transfer_infos[R] # {}`},
	{rule: "only the fork's ABORT pops transfer_infos (mooncake keeps them)", variant: "mooncake", action: "BootstrapRecvAbort",
		holds: `transfer_infos' = transfer_infos`, witness: `transfer_infos[R] # {}`},
	{rule: "only the fork's ABORT pops transfer_infos (fixed keeps them)", variant: "fixed", action: "BootstrapRecvAbort",
		holds: `transfer_infos' = transfer_infos`, witness: `transfer_infos[R] # {}`},
	{rule: "the fork's ABORT always pops transfer_infos", variant: "fork-90a52f44a", action: "BootstrapRecvAbort",
		holds: `transfer_infos'[R] = {}`, witness: `transfer_infos[R] # {}`},
	// Without room reuse only the fork's pop reaches a send with no
	// transfer_infos.
	{rule: "add_transfer_request enqueues every chunk with transfer_infos", variant: "upstream", action: "SchedulerSend",
		holds: `wqueue' = IF transfer_infos[R] = {} THEN wqueue ELSE Append(wqueue, [req |-> Q, left |-> NumChunks])`, witness: `transfer_infos[R] # {}`},
	{rule: "add_transfer_request enqueues nothing without transfer_infos", variant: "fork-90a52f44a", action: "SchedulerSend",
		holds: `wqueue' = IF transfer_infos[R] = {} THEN wqueue ELSE Append(wqueue, [req |-> Q, left |-> NumChunks])`, witness: `transfer_infos[R] = {}`},
	{rule: "clear() after a terminal in-flight poll makes the room absent", variant: "upstream", action: "SchedulerPollInFlight",
		holds:   `request_status[R] \in {"Success", "Failed"} /\ request_status'[R] = "Absent" /\ transfer_infos'[R] = {} /\ sender'[Q] = "Released"`,
		witness: `request_status[R] = "Failed"`},
	{rule: "the worker never posts for a Failed room", variant: "mooncake", action: "WorkerPost",
		holds: `posted'[Q] => request_status[R] # "Failed"`, witness: `request_status[R] = "Failed"`},
}

// graphOfModel explores every reachable state of m and keeps the graph.
// Invariants and properties are dropped so that a violation does not stop
// the search: the facts are about all reachable steps.
func graphOfModel(m *check.Model) (*check.Graph, error) {
	mm := *m
	mm.Invariants, mm.Properties = nil, nil
	res := check.Check(context.Background(), &mm, check.Options{Graph: true, Workers: 1})
	if res.Err != nil {
		return nil, res.Err
	}
	if res.Outcome != check.OK || len(res.Graph.Edges) == 0 {
		return nil, fmt.Errorf("exploration: %s, %d edges", res.Outcome, len(res.Graph.Edges))
	}
	return res.Graph, nil
}

// stepHoldsErr evaluates an action-level formula on an edge.
func stepHoldsErr(m *check.Model, g *check.Graph, e check.Edge, expr string) (bool, error) {
	f, err := m.Spec.ParseFormula(names + expr)
	if err != nil {
		return false, err
	}
	return m.Spec.HoldsStep(f, g.States[e.From], g.States[e.To])
}

// checkFact lists what in g contradicts f.
func checkFact(m *check.Model, g *check.Graph, f fact) []string {
	n, witnessed := 0, 0
	for _, e := range g.Edges {
		if e.Action.Name != f.action {
			continue
		}
		n++
		ok, err := stepHoldsErr(m, g, e, f.holds)
		if err != nil {
			return []string{err.Error()}
		}
		if !ok {
			return []string{fmt.Sprintf("%s [%s]: %s step violates %s:\n%s\n-->\n%s", f.rule, f.variant, e.Action, f.holds,
				m.Spec.Format(g.States[e.From]), m.Spec.Format(g.States[e.To]))}
		}
		if f.witness != "" {
			if ok, err := stepHoldsErr(m, g, e, f.witness); err != nil {
				return []string{err.Error()}
			} else if ok {
				witnessed++
			}
		}
	}
	switch {
	case f.none && n > 0:
		return []string{fmt.Sprintf("%s [%s]: %d %s steps, want none", f.rule, f.variant, n, f.action)}
	case !f.none && witnessed == 0:
		return []string{fmt.Sprintf("%s [%s]: no %s step where %s", f.rule, f.variant, f.action, f.witness)}
	}
	return nil
}

// TestReachableSteps asserts rules over every reachable step of a variant,
// each with a witness step, so that no rule holds vacuously.
func TestReachableSteps(t *testing.T) {
	graphs := map[string]*check.Graph{}
	for _, f := range facts {
		t.Run(f.variant+"/"+f.rule, func(t *testing.T) {
			m := model(t, f.variant)
			if graphs[f.variant] == nil {
				g, err := graphOfModel(m)
				require.NoError(t, err)
				graphs[f.variant] = g
			}
			for _, msg := range checkFact(m, graphs[f.variant], f) {
				t.Error(msg)
			}
		})
	}
}

// graphOf is graphOfModel for the bundled variant.
func graphOf(t *testing.T, variant string) (*check.Model, *check.Graph) {
	t.Helper()
	m := model(t, variant)
	g, err := graphOfModel(m)
	require.NoError(t, err)
	return m, g
}

// stepHolds is stepHoldsErr failing the test on an error.
func stepHolds(t *testing.T, m *check.Model, g *check.Graph, e check.Edge, expr string) bool {
	t.Helper()
	ok, err := stepHoldsErr(m, g, e, expr)
	require.NoError(t, err)
	return ok
}

// TestFailedStickiness counts reachable steps that take a Failed room to a
// live status: none where NIXL's Failed is sticky (though Failed rooms do
// take steps), some in Mooncake, where max lets a later TransferInfo
// revive it.
func TestFailedStickiness(t *testing.T) {
	for _, tc := range []struct {
		variant string
		revives bool
	}{{"upstream", false}, {"fixed", false}, {"mooncake", true}} {
		t.Run(tc.variant, func(t *testing.T) {
			m, g := graphOf(t, tc.variant)
			fromFailed, revived := 0, 0
			for _, e := range g.Edges {
				if !stepHolds(t, m, g, e, `request_status[R] = "Failed"`) {
					continue
				}
				fromFailed++
				if stepHolds(t, m, g, e, `request_status'[R] \notin {"Failed", "Absent"}`) {
					revived++
				}
			}
			assert.Positive(t, fromFailed, "steps from a Failed room")
			if tc.revives {
				assert.Positive(t, revived, "steps reviving a Failed room")
			} else {
				assert.Zero(t, revived, "steps reviving a Failed room")
			}
		})
	}
}

// mutant is a plausible mistake in Room.tla and the variants whose rows
// must notice it.
type mutant struct {
	name, old, new string
}

var mutants = []mutant{
	{"absent + Failed resurrects", `THEN IF s = "Failed" THEN "Absent" ELSE s`, `THEN s`},
	{"Failed not sticky", `ELSE IF FailedSticky /\ cur = "Failed" THEN "Failed"`, ``},
	{"max is min", `ELSE IF KVPoll(s) > KVPoll(cur) THEN s ELSE cur`, `ELSE IF KVPoll(s) < KVPoll(cur) THEN s ELSE cur`},
	{"Failed does not overwrite Success", `ELSE IF s = "Failed" THEN "Failed"`, `ELSE IF s = "Failed" /\ cur # "Success" THEN "Failed"`},
	{"KVPoll order swapped", `[] s = "Transferring"    -> 3`, `[] s = "Transferring"    -> 1`},
	{"fix reads absent as WaitingForInput", `ELSE IF AbsentLiveSenderFails THEN "Failed"`, ``},
	{"timeout fires in any status", `                                        /\ Poll(q) = "Bootstrapping"
                                        /\ Expired(q)}`, `                                        /\ Expired(q)}`},
	{"timeout fires one second early", `Expired(q) == HasBootstrapTimeout /\ elapsed[q] >= BootstrapTimeoutSecs`, `Expired(q) == HasBootstrapTimeout /\ elapsed[q] >= BootstrapTimeoutSecs - 1`},
	{"success keeps its pages", `                                  IF q \in Done THEN FALSE ELSE kv_held[q]]`, `                                  IF q \in Fail THEN FALSE ELSE kv_held[q]]`},
	{"ABORT always pops transfer_infos", `transfer_infos' = IF AbortPopsTransferInfos`, `transfer_infos' = IF TRUE`},
	{"no tombstone", `tombstones' = IF RecordTombstones /\ cur = "Absent"`, `tombstones' = IF FALSE`},
	{"add_transfer_request enqueues without transfer_infos", `    /\ wqueue' = IF /\ transfer_infos[RoomOf(q)] # {}`, `    /\ wqueue' = IF /\ TRUE`},
	{"clear() keeps transfer_infos", `ClearedInfos(r) == [transfer_infos EXCEPT ![r] = {}]`, `ClearedInfos(r) == transfer_infos`},
	{"failure does not clear", `                /\ PassRooms(IF FailureClears THEN RoomsOf(Fail) ELSE {},`, `                /\ PassRooms({},`},
	// (Making the ABORT handler write Failed into an absent room is not a
	// mutant: update_status makes that write a no-op.)
	{"NIXL ABORT fails a Success room", `/\ ~(AbortSparesSuccess /\ cur = "Success")`, `/\ TRUE`},
	{"no KeyError", `ELSE IF AbsentReadsWaiting THEN "WaitingForInput"`, `ELSE IF TRUE THEN "WaitingForInput"`},
	{"TransferInfo inserts before all ranks sent", `IF Cardinality(tis) = RequiredDstInfoNum`, `IF Cardinality(tis) >= 1`},
	{"last chunk keeps transfer_infos", `           /\ transfer_infos' = IF drop THEN ClearedInfos(r)`, `           /\ transfer_infos' = IF FALSE THEN ClearedInfos(r)`},
}

// TestMutantsAreCaught makes each mistake in a copy of Room.tla and
// requires the operator and action rows to reject the copy: the rows can
// fail.
func TestMutantsAreCaught(t *testing.T) {
	src, err := fs.ReadFile(spec.Files, "Room.tla")
	require.NoError(t, err)
	require.Empty(t, checkOpRows(operatorRows, func(v string) (*check.Model, error) { return model(t, v), nil }),
		"the unmutated spec must pass")
	for _, mu := range mutants {
		t.Run(mu.name, func(t *testing.T) {
			require.Equal(t, 1, strings.Count(string(src), mu.old), "the mutation must match Room.tla exactly once")
			fsys := fstest.MapFS{"Room.tla": {Data: []byte(strings.Replace(string(src), mu.old, mu.new, 1))}}
			built := map[string]*check.Model{}
			get := func(v string) (*check.Model, error) {
				if m, ok := built[v]; ok {
					return m, nil
				}
				m, err := buildModel(fsys, v)
				built[v] = m
				return m, err
			}
			bad := checkOpRows(operatorRows, get)
			factFindings := 0
			for _, r := range stepRows {
				m, err := get(r.variant)
				require.NoError(t, err)
				bad = append(bad, checkStep(m, r)...)
			}
			graphs := map[string]*check.Graph{}
			for _, f := range facts {
				m, err := get(f.variant)
				require.NoError(t, err)
				if graphs[f.variant] == nil {
					g, err := graphOfModel(m)
					require.NoError(t, err)
					graphs[f.variant] = g
				}
				fbad := checkFact(m, graphs[f.variant], f)
				factFindings += len(fbad)
				bad = append(bad, fbad...)
			}
			assert.NotEmpty(t, bad, "no row noticed the mutant")
			if len(bad) > 0 {
				t.Logf("%d findings (%d from reachable-step facts), first: %s", len(bad), factFindings, bad[0])
			}
		})
	}
}
