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
	// ErrKeyError is check_status's KeyError on an absent room
	// (common/Mooncake index request_status directly).
	errKeyError = errors.New("KeyError")
)

// Message is one message on prefill's PULL socket from a decode rank, or an
// ABORT_ACK on decode's PULL socket. Only what the room handling reads is
// kept: its kind, the room frame and the sending (or receiving) decode rank.
type message struct {
	Kind string // "TransferInfo", "ABORT" or "ABORT_ACK"
	Room int
	Rank int
}

// Request is a request as prefill's scheduler knows it: its bootstrap room
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
	// Seq orders the senders by creation: a scheduler queue keeps its
	// requests in the order they entered it, which for the bootstrap
	// queue is this order.
	Seq int
	// InitTime is init_time: the clock when the sender was created
	// (nixl/conn.py:2785).
	InitTime int
	// SendFailed is _send_failed, set by failure_exception(): its poll then
	// reads Failed.
	SendFailed bool
}

// BootstrapTimeoutSecs is SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT's
// default (environ.py:612).
const BootstrapTimeoutSecs = 300

// KVPool is the scheduler's KV cache pool as prefill.py touches it: the
// forward pass allocates a request's pages, release_kv_cache frees them.
type KVPool struct {
	// Held: the request's pages are allocated and not freed.
	Held map[int]bool
	// Frees counts release_kv_cache calls per request.
	Frees map[int]int
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
	// Pool is the KV cache pool of the requests' pages.
	Pool KVPool
	// Now is the clock (time.time(), in seconds).
	Now int

	requiredDstInfoNum int
	numChunks          int
	// tickBeforeTimeout: Tick stops the clock one second before a timeout
	// too (the configuration's TickBeforeTimeout: a choice of instants,
	// not of the code).
	tickBeforeTimeout bool
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
// Transferring while chunks of the room are still counted (:2838).
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
	m.Senders[q] = &sender{Room: req.Room, Position: bootstrapQueue, Seq: len(m.Senders), InitTime: m.Now}
	if m.v.SenderInit != nil && m.v.SenderInit(m, req.Room) {
		return nil
	}
	m.updateStatus(req.Room, bootstrapping)
	return nil
}

// senderPoll is NixlKVSender.poll (nixl/conn.py:2827): a failed sender
// reads Failed; a room read Bootstrapping fires the bootstrap timeout once
// it expired (common/conn.py:1282, record_failure and
// update_status(Failed)); Success is held back as Transferring while
// chunks of the room are counted.
func (m *kvManager) senderPoll(s *sender) (status, error) {
	if s.SendFailed {
		return failed, nil
	}
	st, err := m.poll(s.Room)
	if err == nil && st == bootstrapping && m.v.BootstrapTimeout && m.Now-s.InitTime >= BootstrapTimeoutSecs {
		m.updateStatus(s.Room, failed)
		return failed, nil
	}
	return st, err
}

// queue returns the request indices at position, in queue order.
func (m *kvManager) queue(position string) []int {
	var qs []int
	for q, s := range m.Senders {
		if s.Position == position {
			qs = append(qs, q)
		}
	}
	slices.SortFunc(qs, func(a, b int) int { return m.Senders[a].Seq - m.Senders[b].Seq })
	return qs
}

// failRequest is handle_bootstrap_failure / handle_inflight_transfer_failure:
// failure_exception() marks the sender failed and clears the room where
// the variant does (PR #27011); the pass then lets the request go.
func (m *kvManager) failRequest(s *sender) {
	s.SendFailed = true
	if m.v.FailureClears {
		m.clear(s.Room)
	}
}

// releaseKV is release_kv_cache: the request's pages go back to the pool.
func (m *kvManager) releaseKV(q int) {
	m.Pool.Frees[q]++
	delete(m.Pool.Held, q)
}

// errRaised: a request's poll raised in a scheduler pass (RuntimeError,
// "Unexpected poll state"): the exception escapes the event loop.
var errRaised = errors.New("unexpected poll state")

// pass is one scheduler pass over the queue at position, as SGLang makes
// it (adca19c49709): poll_and_all_reduce polls every request of the queue
// in order first (prefill.py:425 pop_bootstrapped, :842 the in-flight
// queue; utils.py:177), and a poll that raises there (common/Mooncake's
// check_status KeyError) escapes before any request acts and before the
// later ones are polled. Then each request acts on its poll, in order
// (act returns the position it moves to); one that raises
// (errRaised, prefill.py:461-464, :894-897) escapes after the earlier
// ones acted, and before the queue is rebuilt (:466, :933), so every
// request keeps its position. A pass in which no request moves is
// refused (nothing changed).
func (m *kvManager) pass(position string, act func(q int, s *sender, st status) (string, error)) error {
	if m.Crashed {
		return errNotEnabled
	}
	qs := m.queue(position)
	polls := make([]status, len(qs))
	for i, q := range qs {
		st, err := m.senderPoll(m.Senders[q])
		if err != nil {
			// The KeyError escapes the event loop: the process dies.
			m.Crashed = true
			return nil
		}
		polls[i] = st
	}
	next := make([]string, len(qs))
	for i, q := range qs {
		pos, err := act(q, m.Senders[q], polls[i])
		if err != nil {
			m.Crashed = true
			return nil
		}
		next[i] = pos
	}
	moved := false
	for i, q := range qs {
		if next[i] != position {
			m.Senders[q].Position = next[i]
			moved = true
		}
	}
	if !moved {
		return errNotEnabled
	}
	return nil
}

// PollBootstrap is PrefillBootstrapQueue.pop_bootstrapped (prefill.py:383):
// Bootstrapping keeps waiting; Failed is released by
// handle_bootstrap_failure (no KV pages yet, nothing to free);
// WaitingForInput goes to the waiting queue; anything else raises.
func (m *kvManager) PollBootstrap() error {
	return m.pass(bootstrapQueue, func(q int, s *sender, st status) (string, error) {
		switch st {
		case bootstrapping:
			return bootstrapQueue, nil
		case failed:
			m.failRequest(s)
			return released, nil
		case waitingForInput:
			return waitingQueue, nil
		}
		return "", errRaised
	})
}

// Send is the forward pass of the request (its KV pages allocated) and
// send_kv_chunk -> NixlKVSender.send -> add_transfer_request, for all
// chunks of the request at once.
func (m *kvManager) Send(q int) error {
	s, ok := m.Senders[q]
	if m.Crashed || !ok || s.Position != waitingQueue {
		return errNotEnabled
	}
	s.Position = inflightQueue
	m.Pool.Held[q] = true
	if _, ok := m.TransferInfos[s.Room]; !ok {
		// PR #32025: no transfer_infos, return silently.
		return nil
	}
	for range m.numChunks {
		m.TransferQueue = append(m.TransferQueue, q)
	}
	return nil
}

// PollInflight is process_disagg_prefill_inflight_queue (prefill.py:830):
// Success is released with its KV pages freed and clear(); Failed by
// handle_inflight_transfer_failure -> failure_exception(), then
// release_kv_cache; Bootstrapping raises where the variant does (PR
// #31075); anything else is kept (no timeout while WaitingForInput or
// Transferring).
func (m *kvManager) PollInflight() error {
	return m.pass(inflightQueue, func(q int, s *sender, st status) (string, error) {
		switch {
		case st == success:
			m.releaseKV(q)
			m.clear(s.Room)
			return released, nil
		case st == failed:
			m.failRequest(s)
			m.releaseKV(q)
			return released, nil
		case st == bootstrapping && m.v.InflightBootstrappingRaises:
			return "", errRaised
		}
		return inflightQueue, nil
	})
}

// Tick moves the clock to one second before q's bootstrap timeout
// expires (where the configuration stops there) or, from there, to the
// instant it expires (the instants the spec's Tick names). The clock is the world's, not the code's: any held
// request with a deadline ahead of it can name one.
func (m *kvManager) Tick(q int) error {
	s, ok := m.Senders[q]
	if m.Crashed || !ok || s.Position == released || !m.v.BootstrapTimeout || s.SendFailed {
		return errNotEnabled
	}
	// Only a poll that reads Bootstrapping reads the clock (nixl/conn.py:2831):
	// the clock moves for such a request only, as the spec's Tick.
	if st, err := m.poll(s.Room); err != nil || st != bootstrapping {
		return errNotEnabled
	}
	e := m.Now - s.InitTime
	switch {
	case m.tickBeforeTimeout && e < BootstrapTimeoutSecs-1:
		m.Now += BootstrapTimeoutSecs - 1 - e
	case e < BootstrapTimeoutSecs:
		m.Now += BootstrapTimeoutSecs - e
	default:
		return errNotEnabled
	}
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
