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
