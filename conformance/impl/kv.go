// Package impl holds Go ports of the prefill side's room handling in each
// SGLang variant (docs/ROOM-LIFECYCLE.md), written in the shape of the
// Python code (python/sglang/srt/disaggregation/ at upstream adca19c4):
// plain maps keyed by room, update_status/check_status with the real rules,
// the bootstrap thread's TransferInfo and ABORT branches (with the deferred
// ABORT_ACK of PR #35360), add_transfer_request's silent skip and FIFO
// worker queue, the transfer worker's skips, count and exception path, the
// bootstrap timeout inside the sender's poll, the scheduler's RuntimeErrors
// and clear().
//
// The ports are written from the code's description, not from Room.tla: the
// conformance suite runs them in lockstep with the spec, so that the spec,
// not the port, decides what is right. What every variant shares lives in
// kvManager (this file); what differs lives in one Variant value per
// variant (variants.go).
//
// A Port also carries a small decode emulator (decode.go): the
// environment's steps are applied to the port's inputs, its PULL sockets.
package impl

import (
	"errors"
	"fmt"
	"slices"
)

// status is KVPoll (base/conn.py): a plain int class.
type status int

// KVPoll values. Success and Failed are the only terminal ones.
const (
	failed status = iota
	bootstrapping
	waitingForInput
	transferring
	success
)

var statusNames = [...]string{"Failed", "Bootstrapping", "WaitingForInput", "Transferring", "Success"}

func (s status) String() string {
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
	errNotEnabled = errors.New("step not possible in the implementation")
	// errKeyError is check_status's KeyError on an absent room
	// (common/Mooncake index request_status directly).
	errKeyError = errors.New("KeyError")
)

// message is one message on prefill's PULL socket from a decode rank, or an
// ABORT_ACK on decode's PULL socket. Only what the room handling reads is
// kept: its kind, the room frame and the sending (or receiving) decode rank.
type message struct {
	Kind string // "TransferInfo", "ABORT" or "ABORT_ACK"
	Room int
	Rank int
}

// request is a request as prefill's scheduler knows it: its bootstrap room
// and, where decode reuses the room id (PD re-bootstrap), which
// incarnation of the room it is.
type request struct {
	Room, Incarnation int
}

// Queue positions of a request in prefill's scheduler (prefill.py).
const (
	bootstrapQueue = "BootstrapQueue"
	waitingQueue   = "WaitingQueue"
	inflightQueue  = "InflightQueue"
	released       = "Released"
)

// sender is NixlKVSender: one per request, created by the scheduler.
type sender struct {
	Room int
	// Position is the scheduler queue holding the request.
	Position string
}

// kvManager is NixlKVManager (with its common/conn.py base): the dicts the
// scheduler, bootstrap thread and transfer workers share without locks.
type kvManager struct {
	v *Variant

	RequestStatus map[int]status
	// TransferInfos: room -> decode agent (rank) -> its TransferInfo (only
	// its presence matters here).
	TransferInfos map[int]map[int]bool
	// Tombstones: rooms whose ABORT arrived while absent (fix only).
	Tombstones map[int]bool
	// Outstanding is _staging_outstanding: chunks of a room dequeued and
	// not yet finished (PR #30545).
	Outstanding map[int]int
	// AckTargets is _deferred_ack_targets: the decode ranks an aborted
	// room's ABORT_ACK is held for (PR #35360: one per room).
	AckTargets map[int][]int

	BootstrapAlive bool
	Crashed        bool

	// Pull is prefill's PULL socket, one FIFO per decode rank connection.
	Pull [][]message
	// AckPush: ABORT_ACKs sent to each decode rank.
	AckPush [][]message

	// TransferQueue is the worker queue every request of a room shares
	// (sharded by destination or room): one entry, the request index, per
	// chunk, in FIFO order.
	TransferQueue []int
	// Posted: a request's chunk has RDMA writes in flight (its worker
	// busy-waits on them, so at most one at a time).
	Posted map[int]bool
	// Senders are the scheduler's requests, by request index.
	Senders map[int]*sender

	requiredDstInfoNum int
	numChunks          int
}

// updateStatus is common/conn.py:327 update_status, with NIXL's
// sticky-Failed override (nixl/conn.py:698) where the variant has it.
func (m *kvManager) updateStatus(room int, s status) {
	cur, ok := m.RequestStatus[room]
	if m.v.FailedSticky && ok && cur == failed {
		return
	}
	if !ok {
		// Absent: Failed does not resurrect a room; anything else inserts.
		if s != failed {
			m.RequestStatus[room] = s
		}
		return
	}
	if s == failed {
		m.RequestStatus[room] = failed
		return
	}
	m.RequestStatus[room] = max(cur, s)
}

// checkStatus is check_status(room) as a live sender's poll sees it.
func (m *kvManager) checkStatus(room int) (status, error) {
	if s, ok := m.RequestStatus[room]; ok {
		return s, nil
	}
	return m.v.AbsentRoom()
}

// poll is NixlKVSender.poll's reading of the room: Success is held back as
// transferring while chunks of the room are still counted (:2838).
func (m *kvManager) poll(room int) (status, error) {
	st, err := m.checkStatus(room)
	if err == nil && st == success && m.v.CountsOutstanding && m.Outstanding[room] > 0 {
		return transferring, nil
	}
	return st, err
}

// clear is CommonKVSender.clear: the room leaves every dict, and a held
// ACK target is dropped (unless the fix keeps it while chunks are counted).
func (m *kvManager) clear(room int) {
	delete(m.RequestStatus, room)
	delete(m.TransferInfos, room)
	if !(m.v.AckOnDrainFixed && m.Outstanding[room] > 0) {
		delete(m.AckTargets, room)
	}
}

// sendAck puts an ABORT_ACK for room on decode rank rank's socket.
func (m *kvManager) sendAck(room, rank int) {
	m.AckPush[rank] = append(m.AckPush[rank], message{Kind: "ABORT_ACK", Room: room, Rank: rank})
}

// maybeAckDrained is _maybe_ack_drained_abort (common/conn.py:394): once
// nothing of the room is counted, its held targets get their ACK.
func (m *kvManager) maybeAckDrained(room int) {
	if !m.v.AckOnDrain || m.Outstanding[room] > 0 {
		return
	}
	for _, rank := range m.AckTargets[room] {
		m.sendAck(room, rank)
	}
	delete(m.AckTargets, room)
}

// --- scheduler thread ---------------------------------------------------

// CreateSender is PrefillBootstrapQueue.add -> NixlKVSender.__init__.
func (m *kvManager) CreateSender(q int, req request) error {
	if m.Crashed {
		return errNotEnabled
	}
	if _, ok := m.Senders[q]; ok {
		return fmt.Errorf("sender of request %d exists: %w", q, errNotEnabled)
	}
	m.Senders[q] = &sender{Room: req.Room, Position: bootstrapQueue}
	if m.v.SenderInit != nil && m.v.SenderInit(m, req.Room) {
		return nil
	}
	m.updateStatus(req.Room, bootstrapping)
	return nil
}

// failRequest is handle_bootstrap_failure / handle_inflight_transfer_failure:
// the request is released, and failure_exception() clears the room where
// the variant does (PR #27011).
func (m *kvManager) failRequest(s *sender) {
	s.Position = released
	if m.v.FailureClears {
		m.clear(s.Room)
	}
}

// PollBootstrap is PrefillBootstrapQueue.pop_bootstrapped for one request.
func (m *kvManager) PollBootstrap(q int) error {
	s, ok := m.Senders[q]
	if m.Crashed || !ok || s.Position != bootstrapQueue {
		return errNotEnabled
	}
	st, err := m.poll(s.Room)
	switch {
	case err != nil:
		// The KeyError escapes the event loop: the process dies.
		m.Crashed = true
	case st == bootstrapping:
		return errNotEnabled // keep waiting
	case st == failed:
		m.failRequest(s)
	case st == waitingForInput:
		s.Position = waitingQueue
	default:
		// prefill.py:461-464: RuntimeError("Unexpected poll state").
		m.Crashed = true
	}
	return nil
}

// Send is send_kv_chunk -> NixlKVSender.send -> add_transfer_request, for
// all chunks of the request at once.
func (m *kvManager) Send(q int) error {
	s, ok := m.Senders[q]
	if m.Crashed || !ok || s.Position != waitingQueue {
		return errNotEnabled
	}
	s.Position = inflightQueue
	if _, ok := m.TransferInfos[s.Room]; !ok {
		// PR #32025: no transfer_infos, return silently.
		return nil
	}
	for range m.numChunks {
		m.TransferQueue = append(m.TransferQueue, q)
	}
	return nil
}

// PollInflight is process_disagg_prefill_inflight_queue for one request.
func (m *kvManager) PollInflight(q int) error {
	s, ok := m.Senders[q]
	if m.Crashed || !ok || s.Position != inflightQueue {
		return errNotEnabled
	}
	st, err := m.poll(s.Room)
	switch {
	case err != nil:
		m.Crashed = true
	case st == success:
		s.Position = released
		m.clear(s.Room)
	case st == failed:
		// handle_inflight_transfer_failure -> failure_exception()
		m.failRequest(s)
	case st == bootstrapping && m.v.InflightBootstrappingRaises:
		// prefill.py:894-897: RuntimeError("Unexpected poll state").
		m.Crashed = true
	default:
		return errNotEnabled // no timeout while WaitingForInput/Transferring
	}
	return nil
}

// BootstrapTimeout is the sender's bootstrap-queue poll with the bootstrap
// timeout firing (300 s, where the variant has one): the room is marked
// failed and the same pop_bootstrapped fails the request.
func (m *kvManager) BootstrapTimeout(q int) error {
	s, ok := m.Senders[q]
	if !m.v.BootstrapTimeout || m.Crashed || !ok || s.Position != bootstrapQueue {
		return errNotEnabled
	}
	if st, present := m.RequestStatus[s.Room]; !present || st != bootstrapping {
		// The timeout only fails a room still Bootstrapping.
		return errNotEnabled
	}
	m.updateStatus(s.Room, failed)
	m.failRequest(s)
	return nil
}

// --- bootstrap thread ---------------------------------------------------

// Recv is one iteration of bootstrap_thread on decode rank rank's
// connection. want is the kind of message the step expects at the head of
// the socket; with another message there the step is not possible.
func (m *kvManager) Recv(rank int, want string) error {
	if m.Crashed || !m.BootstrapAlive || len(m.Pull[rank]) == 0 || m.Pull[rank][0].Kind != want {
		return errNotEnabled
	}
	msg := m.Pull[rank][0]
	if msg.Kind == "ABORT" && m.v.AbortWaits != nil && m.v.AbortWaits(m, msg.Room) {
		return errNotEnabled
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

func (m *kvManager) handleTransferInfo(msg message) {
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
		m.updateStatus(msg.Room, waitingForInput)
	}
}

// --- transfer workers ---------------------------------------------------

// WorkerPost is transfer_worker taking the chunk at the head of its queue
// (nixl/conn.py:1128-1150), once its previous chunk's writes completed.
func (m *kvManager) WorkerPost(q int) error {
	s := m.Senders[q]
	if m.Crashed || len(m.TransferQueue) == 0 || m.TransferQueue[0] != q || len(m.Posted) > 0 || s == nil {
		return errNotEnabled
	}
	m.TransferQueue = m.TransferQueue[1:]
	room := s.Room
	if m.v.CountsAtDequeue {
		m.Outstanding[room]++ // counted as it is taken (:1137, PR #35360)
	}
	if st, ok := m.RequestStatus[room]; ok && st == failed {
		// Skip chunks of a failed room; the count is popped (:1141).
		delete(m.Outstanding, room)
		m.maybeAckDrained(room)
		return nil
	}
	if _, ok := m.TransferInfos[room]; !ok {
		if m.v.WorkerSkipsMissing {
			return nil
		}
		// assert room in transfer_infos -> except: update_status(Failed),
		// the chunk still counted where it was counted at dequeue (the fix
		// uncounts it).
		m.updateStatus(room, failed)
		if m.v.AckOnDrainFixed && m.v.CountsAtDequeue {
			m.Outstanding[room]--
			m.dropZero(room)
			m.maybeAckDrained(room)
		}
		return nil
	}
	if m.v.CountsOutstanding && !m.v.CountsAtDequeue {
		m.Outstanding[room]++ // counted once the room passed the checks
	}
	m.updateStatus(room, transferring)
	m.Posted[q] = true
	return nil
}

func (m *kvManager) dropZero(room int) {
	if m.Outstanding[room] == 0 {
		delete(m.Outstanding, room)
	}
}

// WorkerComplete is the posted writes of q's chunk completing
// (nixl/conn.py:1362-1386).
func (m *kvManager) WorkerComplete(q int) error {
	s := m.Senders[q]
	if m.Crashed || !m.Posted[q] || s == nil {
		return errNotEnabled
	}
	delete(m.Posted, q)
	room := s.Room
	last := !slices.Contains(m.TransferQueue, q)
	if m.v.CountsOutstanding {
		m.Outstanding[room]--
		m.dropZero(room)
	}
	m.maybeAckDrained(room)
	if last {
		m.updateStatus(room, success)
	} else if st, err := m.checkStatus(room); err != nil || st != success {
		m.updateStatus(room, transferring)
	}
	drop := last
	if m.v.CountsOutstanding {
		st, ok := m.RequestStatus[room]
		drop = m.Outstanding[room] <= 0 && ok && (st == success || (last && st == failed))
	}
	if drop {
		delete(m.Outstanding, room)
		delete(m.TransferInfos, room) // the room concluded
	}
	return nil
}
