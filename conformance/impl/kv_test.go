package impl

import (
	"errors"
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

const absent status = -1

// update_status (common/conn.py:327) with and without NIXL's sticky
// failed (nixl/conn.py:698).
func TestUpdateStatus(t *testing.T) {
	for _, tc := range []struct {
		sticky   bool
		cur, set status
		want     status
	}{
		{true, absent, failed, absent}, // no resurrection
		{true, absent, bootstrapping, bootstrapping},
		{true, absent, waitingForInput, waitingForInput},
		{true, waitingForInput, bootstrapping, waitingForInput}, // max swallows
		{true, bootstrapping, transferring, transferring},
		{true, success, failed, failed}, // failed overwrites anything
		{true, failed, waitingForInput, failed},
		{true, failed, success, failed},
		{false, failed, waitingForInput, waitingForInput}, // not sticky: max
		{false, failed, success, success},
		{false, absent, failed, absent},
	} {
		v := *Upstream
		v.FailedSticky = tc.sticky
		m := &kvManager{v: &v, RequestStatus: map[int]status{}}
		if tc.cur != absent {
			m.RequestStatus[7] = tc.cur
		}
		m.updateStatus(7, tc.set)
		got, ok := m.RequestStatus[7]
		if !ok {
			got = absent
		}
		if got != tc.want {
			t.Errorf("sticky=%v update_status(%v, %v) = %v, want %v", tc.sticky, tc.cur, tc.set, got, tc.want)
		}
	}
}

func TestCheckStatusOfAbsentRoom(t *testing.T) {
	for _, tc := range []struct {
		v    *Variant
		want status
		err  error
	}{
		{Upstream, waitingForInput, nil},
		{fork90a52f44a, waitingForInput, nil},
		{mooncake, 0, errKeyError},
		{Fixed, failed, nil},
	} {
		m := &kvManager{v: tc.v, RequestStatus: map[int]status{}}
		got, err := m.checkStatus(3)
		if !errors.Is(err, tc.err) || (err == nil && got != tc.want) {
			t.Errorf("%s: check_status(absent) = %v, %v; want %v, %v", tc.v.Name, got, err, tc.want, tc.err)
		}
	}
}

// The fork's seed race, step by step on the port: both ABORTs arrive
// before the sender exists, each pops the partial transfer_infos, and the
// sender then sits in Bootstrapping with nothing to move it.
func TestForkSeedRacePinsTheRoom(t *testing.T) {
	v, err := spec.Parse("fork-seed-race", []byte(`CONSTANTS
    Rooms = {r}
    DecodeRanks = {d1, d2}
    RequiredDstInfoNum = 2
    NumChunks = 1
    BootstrapTimeoutSecs = 300
    HasBootstrapTimeout = FALSE
    AbortPopsTransferInfos = TRUE
    AbsentReadsWaiting = TRUE
    AbsentLiveSenderFails = FALSE
    FailedSticky = TRUE
    AbortSparesSuccess = FALSE
    AbortKillsBootstrap = FALSE
    AbortAckSent = FALSE
    AbortAckLogged = FALSE
    AckWaitsForWrites = FALSE
    RecordTombstones = FALSE
    FailureTombstones = FALSE
    WorkerSkipsMissing = TRUE
    WorkerSkipsAbsent = FALSE
    WorkerMarksTransferring = TRUE
    SendSkipsFailed = FALSE
    AckOnDrain = FALSE
    AckOnDrainFixed = FALSE
    FailureClears = TRUE
    InflightBootstrappingRaises = FALSE
    CountsOutstanding = FALSE
    CountsAtDequeue = FALSE
    RoomReuse = FALSE
    TimeoutsFair = TRUE
    TickBeforeTimeout = TRUE
SPECIFICATION Spec
`))
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Compiled()
	if err != nil {
		t.Fatal(err)
	}
	p := NewPort(fork90a52f44a)
	if err := p.Reset(c); err != nil {
		t.Fatal(err)
	}
	step := func(id model.ActionID, params ...int) error {
		a := model.Action{ID: id}
		copy(a.Params[:], params)
		return p.Apply(a)
	}
	for _, s := range []struct {
		id model.ActionID
		p  []int
	}{
		{model.ActDecodeSendTransferInfo, []int{0, 0}}, // TransferInfo(A)
		{model.ActDecodeAbort, []int{0}},               // decode aborts: ABORT on both connections
		{model.ActBootstrapRecvTransferInfo, []int{0}},
		{model.ActBootstrapRecvAbort, []int{0}}, // ABORT(A): room absent, pops transfer_infos
		{model.ActBootstrapRecvAbort, []int{1}}, // ABORT(B): room absent
		{model.ActSchedulerCreateSender, []int{0}},
	} {
		if err := step(s.id, s.p...); err != nil {
			t.Fatalf("%s%v: %v", model.Actions[s.id].Name, s.p, err)
		}
	}
	if st := p.M.RequestStatus[0]; st != bootstrapping {
		t.Fatalf("status %v, want Bootstrapping", st)
	}
	if len(p.M.TransferInfos) != 0 {
		t.Fatalf("transfer_infos %v, want popped", p.M.TransferInfos)
	}
	// Nothing the prefill threads can do moves the room, however long it
	// waits: no timeout.
	for id, a := range model.Actions {
		if a.Kind != "implementation" {
			continue
		}
		for x := range 2 {
			for range 3 { // time passes too
				step(model.ActionID(id), x)
			}
		}
	}
	if st := p.M.RequestStatus[0]; st != bootstrapping || p.M.Senders[0].Position != bootstrapQueue {
		t.Errorf("status %v, sender in %s: the pinned room moved", st, p.M.Senders[0].Position)
	}
}

// A pass polls its whole queue before any request acts, as SGLang's
// poll_and_all_reduce does (adca19c49709 utils.py:177, called at
// prefill.py:425 and :842): where a later request's poll raises (Mooncake's
// check_status of an absent room: KeyError), the process dies before the
// earlier request, whose room read Failed, is released or its room
// cleared; and where a request raises as it acts (RuntimeError), the
// earlier ones acted but the queue was never rebuilt: every request keeps
// its position.
func TestPassRaises(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pos      string
		second   status // the second request's room; absent: its poll raises
		wantRoom status // the first room after the pass
	}{
		{"bootstrap queue, KeyError in the poll", bootstrapQueue, absent, failed},
		{"in-flight queue, KeyError in the poll", inflightQueue, absent, failed},
		{"bootstrap queue, RuntimeError as it acts", bootstrapQueue, transferring, absent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &kvManager{v: mooncake, RequestStatus: map[int]status{0: failed},
				Senders: map[int]*sender{
					0: {Room: 0, Position: tc.pos, Seq: 0},
					1: {Room: 1, Position: tc.pos, Seq: 1},
				},
				Pool: KVPool{Held: map[int]bool{0: true, 1: true}, Frees: map[int]int{}}}
			if tc.second != absent {
				m.RequestStatus[1] = tc.second
			}
			var err error
			if tc.pos == bootstrapQueue {
				err = m.PollBootstrap()
			} else {
				err = m.PollInflight()
			}
			if err != nil || !m.Crashed {
				t.Fatalf("pass: %v, crashed %v; want the process dead", err, m.Crashed)
			}
			for q, s := range m.Senders {
				if s.Position != tc.pos {
					t.Errorf("request %d moved to %s", q, s.Position)
				}
			}
			got, ok := m.RequestStatus[0]
			if !ok {
				got = absent
			}
			if got != tc.wantRoom {
				t.Errorf("the first request's room reads %v, want %v", got, tc.wantRoom)
			}
			if tc.second == absent && (m.Senders[0].SendFailed || m.Pool.Frees[0] != 0) {
				t.Errorf("the first request acted before the poll raised: send failed %v, frees %d", m.Senders[0].SendFailed, m.Pool.Frees[0])
			}
		})
	}
}
