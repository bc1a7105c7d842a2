// Package impl holds Go ports of the prefill side's room handling in each
// SGLang variant of docs/ROOM-LIFECYCLE.md, written in the shape of the Python
// code (python/sglang/srt/disaggregation/): plain maps keyed by room,
// update_status/check_status with the real rules, the bootstrap thread's
// TransferInfo and ABORT branches, add_transfer_request's silent skip, the
// transfer worker's skips, the bootstrap timeout and clear().
//
// The ports are written from the code's description, not from Room.tla: the
// conformance suite runs them in lockstep with the spec, so that the spec,
// not the port, decides what is right. What every variant shares lives in
// KVManager (this file); what differs lives in one Variant value per
// variant (variants.go).
//
// A Port also carries a small decode emulator (decode.go): the
// environment's steps are applied to the port's inputs, its PULL sockets.
package impl

import (
	"errors"
	"fmt"
)

// Status is KVPoll (base/conn.py): a plain int class.
type Status int

// KVPoll values. Success and Failed are the only terminal ones.
const (
	Failed Status = iota
	Bootstrapping
	WaitingForInput
	Transferring
	Success
)

var statusNames = [...]string{"Failed", "Bootstrapping", "WaitingForInput", "Transferring", "Success"}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Errors a step can return instead of acting.
var (
	// ErrNotEnabled: the thread has nothing to do for this step (no
	// message of that kind at the head of the socket, no chunk queued,
	// no such sender, ...). The port's state is unchanged.
	ErrNotEnabled = errors.New("step not possible in the implementation")
	// ErrKeyError is check_status's KeyError on an absent room
	// (common/Mooncake index request_status directly).
	ErrKeyError = errors.New("KeyError")
)

// Message is one message on prefill's PULL socket from a decode rank, or an
// ABORT_ACK on decode's PULL socket. Only what the room handling reads is
// kept: its kind, the room frame and the sending (or receiving) decode rank.
type Message struct {
	Kind string // "TransferInfo", "ABORT" or "ABORT_ACK"
	Room int
	Rank int
}

// Request is a request as prefill's scheduler knows it: its bootstrap room
// and, where decode reuses the room id (PD re-bootstrap), which
// incarnation of the room it is.
type Request struct {
	Room, Incarnation int
}

// Queue positions of a request in prefill's scheduler (prefill.py).
const (
	BootstrapQueue = "BootstrapQueue"
	WaitingQueue   = "WaitingQueue"
	InflightQueue  = "InflightQueue"
	Released       = "Released"
)

// Sender is NixlKVSender: one per request, created by the scheduler.
type Sender struct {
	Room int
	// Position is the scheduler queue holding the request.
	Position string
}

// KVManager is NixlKVManager (with its common/conn.py base): the dicts the
// scheduler, bootstrap thread and transfer workers share without locks.
type KVManager struct {
	v *Variant

	RequestStatus map[int]Status
	// TransferInfos: room -> decode agent (rank) -> its TransferInfo (only
	// its presence matters here).
	TransferInfos map[int]map[int]bool
	// Tombstones: rooms whose ABORT arrived while absent (fix only).
	Tombstones map[int]bool

	BootstrapAlive bool
	Crashed        bool

	// Pull is prefill's PULL socket, one FIFO per decode rank connection.
	Pull [][]Message
	// AckPush: ABORT_ACKs sent to each decode rank (Mooncake).
	AckPush [][]Message

	// TransferQueue: chunks of each request waiting for a worker.
	TransferQueue map[int]int
	// Posted: a request's chunk has RDMA writes in flight.
	Posted map[int]bool
	// Senders are the scheduler's requests, by request index.
	Senders map[int]*Sender

	requiredDstInfoNum int
	numChunks          int
}

// updateStatus is common/conn.py:327 update_status, with NIXL's
// sticky-Failed override (nixl/conn.py:698) where the variant has it.
func (m *KVManager) updateStatus(room int, s Status) {
	cur, ok := m.RequestStatus[room]
	if !ok {
		// Absent: Failed does not resurrect a room; anything else inserts.
		if s != Failed {
			m.RequestStatus[room] = s
		}
		return
	}
	if s == Failed {
		m.RequestStatus[room] = Failed
		return
	}
	if m.v.FailedSticky && cur == Failed {
		return
	}
	m.RequestStatus[room] = max(cur, s)
}

// checkStatus is check_status(room) as a live sender's poll sees it.
func (m *KVManager) checkStatus(room int) (Status, error) {
	if s, ok := m.RequestStatus[room]; ok {
		return s, nil
	}
	return m.v.AbsentRoom()
}

// clear is NixlKVSender.clear: the room leaves every dict.
func (m *KVManager) clear(room int) {
	delete(m.RequestStatus, room)
	delete(m.TransferInfos, room)
}

// --- scheduler thread ---------------------------------------------------

// CreateSender is PrefillBootstrapQueue.add -> NixlKVSender.__init__.
func (m *KVManager) CreateSender(q int, req Request) error {
	if m.Crashed {
		return ErrNotEnabled
	}
	if _, ok := m.Senders[q]; ok {
		return fmt.Errorf("sender of request %d exists: %w", q, ErrNotEnabled)
	}
	m.Senders[q] = &Sender{Room: req.Room, Position: BootstrapQueue}
	if m.v.SenderInit != nil && m.v.SenderInit(m, req.Room) {
		return nil
	}
	m.updateStatus(req.Room, Bootstrapping)
	return nil
}

// PollBootstrap is PrefillBootstrapQueue.pop_bootstrapped for one request.
func (m *KVManager) PollBootstrap(q int) error {
	s, ok := m.Senders[q]
	if m.Crashed || !ok || s.Position != BootstrapQueue {
		return ErrNotEnabled
	}
	st, err := m.checkStatus(s.Room)
	switch {
	case err != nil:
		// The KeyError escapes the event loop: the process dies.
		m.Crashed = true
	case st == Bootstrapping:
		return ErrNotEnabled // keep waiting
	case st == Failed:
		// prepare_abort and drop the request; no clear().
		s.Position = Released
	default:
		s.Position = WaitingQueue
	}
	return nil
}

// Send is send_kv_chunk -> NixlKVSender.send -> add_transfer_request, for
// all chunks of the request at once.
func (m *KVManager) Send(q int) error {
	s, ok := m.Senders[q]
	if m.Crashed || !ok || s.Position != WaitingQueue {
		return ErrNotEnabled
	}
	s.Position = InflightQueue
	if _, ok := m.TransferInfos[s.Room]; !ok {
		// PR #32025: no transfer_infos, return silently.
		return nil
	}
	m.TransferQueue[q] += m.numChunks
	return nil
}

// PollInflight is process_disagg_prefill_inflight_queue for one request.
func (m *KVManager) PollInflight(q int) error {
	s, ok := m.Senders[q]
	if m.Crashed || !ok || s.Position != InflightQueue {
		return ErrNotEnabled
	}
	st, err := m.checkStatus(s.Room)
	switch {
	case err != nil:
		m.Crashed = true
	case st == Success || st == Failed:
		s.Position = Released
		m.clear(s.Room)
	default:
		return ErrNotEnabled // no timeout while WaitingForInput/Transferring
	}
	return nil
}

// BootstrapTimeout is the sender poll's bootstrap timeout firing (300 s in
// the bootstrap queue), where the variant has one.
func (m *KVManager) BootstrapTimeout(q int) error {
	s, ok := m.Senders[q]
	if !m.v.BootstrapTimeout || m.Crashed || !ok || s.Position != BootstrapQueue {
		return ErrNotEnabled
	}
	if st, present := m.RequestStatus[s.Room]; !present || st != Bootstrapping {
		// The timeout only fails a room still Bootstrapping.
		return ErrNotEnabled
	}
	m.updateStatus(s.Room, Failed)
	return nil
}

// --- bootstrap thread ---------------------------------------------------

// Recv is one iteration of bootstrap_thread on decode rank rank's
// connection. want is the kind of message the step expects at the head of
// the socket; with another message there the step is not possible.
func (m *KVManager) Recv(rank int, want string) error {
	if m.Crashed || !m.BootstrapAlive || len(m.Pull[rank]) == 0 || m.Pull[rank][0].Kind != want {
		return ErrNotEnabled
	}
	msg := m.Pull[rank][0]
	if msg.Kind == "ABORT" && m.v.AbortWaits != nil && m.v.AbortWaits(m, msg.Room) {
		return ErrNotEnabled
	}
	m.Pull[rank] = m.Pull[rank][1:]
	switch msg.Kind {
	case "TransferInfo":
		m.handleTransferInfo(msg)
	case "ABORT":
		m.v.OnAbort(m, msg)
	}
	return nil
}

func (m *KVManager) handleTransferInfo(msg Message) {
	if m.v.Tombstones && m.Tombstones[msg.Room] {
		return
	}
	infos := m.TransferInfos[msg.Room]
	if infos == nil {
		infos = map[int]bool{}
		m.TransferInfos[msg.Room] = infos
	}
	infos[msg.Rank] = true
	if len(infos) == m.requiredDstInfoNum {
		m.updateStatus(msg.Room, WaitingForInput)
	}
}

// --- transfer workers ---------------------------------------------------

// WorkerPost is transfer_worker dequeuing one chunk of request q.
func (m *KVManager) WorkerPost(q int) error {
	s := m.Senders[q]
	if m.Crashed || m.TransferQueue[q] == 0 || m.Posted[q] || s == nil {
		return ErrNotEnabled
	}
	m.TransferQueue[q]--
	if m.TransferQueue[q] == 0 {
		delete(m.TransferQueue, q)
	}
	if st, ok := m.RequestStatus[s.Room]; ok && st == Failed {
		return nil // skip chunks of a failed room
	}
	if _, ok := m.TransferInfos[s.Room]; !ok {
		if m.v.WorkerSkipsMissing {
			return nil
		}
		// assert room in transfer_infos -> except: update_status(Failed)
		m.updateStatus(s.Room, Failed)
		return nil
	}
	m.updateStatus(s.Room, Transferring)
	m.Posted[q] = true
	return nil
}

// WorkerComplete is the posted writes of q's chunk completing.
func (m *KVManager) WorkerComplete(q int) error {
	s := m.Senders[q]
	if m.Crashed || !m.Posted[q] || s == nil {
		return ErrNotEnabled
	}
	delete(m.Posted, q)
	if m.TransferQueue[q] == 0 {
		m.updateStatus(s.Room, Success)
		delete(m.TransferInfos, s.Room) // the room concluded
	}
	return nil
}
