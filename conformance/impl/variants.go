package impl

import "slices"

// Variant is everything that differs between the variants (the commits of
// SGLang's history, the fork, Mooncake, the proposed fixes): each variant
// below is one value, so a variant's difference from upstream reads in one
// place.
type Variant struct {
	Name string
	// Doc says which code the variant is.
	Doc string
	// FailedSticky: NIXL's update_status override (nixl/conn.py:698).
	FailedSticky bool
	// BootstrapTimeout: the sender's poll fails a room still Bootstrapping
	// after 300 s (NIXL since PR #34692, Mooncake).
	BootstrapTimeout bool
	// WorkerSkipsMissing: the worker skips chunks of rooms missing from
	// transfer_infos instead of asserting (fork 90a52f44a).
	WorkerSkipsMissing bool
	// WorkerSkipsAbsent: the worker skips a chunk whose room is absent, as
	// a Failed one (Mooncake, mooncake/conn.py:1648-1664).
	WorkerSkipsAbsent bool
	// WorkerNeverTransferring: the worker writes no Transferring (Mooncake;
	// NIXL's marks the room as it posts, and after a non-last chunk).
	WorkerNeverTransferring bool
	// SendSkipsFailed: add_transfer_request enqueues nothing for an
	// absent or Failed room (Mooncake, mooncake/conn.py:2198-2205).
	SendSkipsFailed bool
	// Tombstones: a tombstoned room ignores TransferInfo (fix).
	Tombstones bool
	// AbsentRoom is check_status's answer for a room missing from
	// request_status.
	AbsentRoom func() (status, error)
	// OnAbort is the bootstrap thread's ABORT branch.
	OnAbort func(m *kvManager, msg message)
	// SenderInit, if set, runs in NixlKVSender.__init__ before its
	// update_status(Bootstrapping) and reports whether it set the status
	// itself.
	SenderInit func(m *kvManager, room int) bool
	// AbortWaits, if set, holds an ABORT at the head of its socket while it
	// reports true (deferred release done right: ACK after the writes).
	AbortWaits func(m *kvManager, room int) bool
	// DecodeWaitsForAck: decode frees a request's pages when the ABORT_ACK
	// arrives, not when it aborts (deferred release).
	DecodeWaitsForAck bool
	// FailureClears: failure_exception() calls clear() (PR #27011).
	FailureClears bool
	// InflightBootstrappingRaises: the in-flight poll raises RuntimeError
	// on Bootstrapping (PR #31075); before, the request kept waiting.
	InflightBootstrappingRaises bool
	// CountsOutstanding: _staging_outstanding counts a room's dequeued
	// chunks, and the sender's poll holds Success while it is positive
	// (PR #30545).
	CountsOutstanding bool
	// CountsAtDequeue: the worker counts a chunk as it takes it, before
	// its checks, so its exception path leaves it counted (PR #35360);
	// before, once the room passed the checks.
	CountsAtDequeue bool
	// AckOnDrain: PR #35360's deferred ABORT_ACK, sent when the room's
	// count drains, one target per room.
	AckOnDrain bool
	// AckOnDrainFixed: AckOnDrain with its ACK bugs fixed (a target per
	// rank, held for an inactive room still counted; the exception path
	// uncounts; clear() keeps the targets of a room still counted).
	AckOnDrainFixed bool
}

// nixl/conn.py check_status: request_status.get(room, WaitingForInput).
func absentReadsWaiting() (status, error) { return waitingForInput, nil }

// common/mooncake check_status: request_status[room].
func absentKeyError() (status, error) { return 0, errKeyError }

// The fix: only a live sender polls, and its room is absent only if
// something removed it: read it as Failed.
func absentFails() (status, error) { return failed, nil }

// nixl/conn.py:2647 _handle_abort_notification (upstream adca19c4): a
// present room that is not Success is active and failed; an absent or
// success room is only logged. With deferred release (PR #35360) an active
// room holds its ABORT_ACK for this rank until its chunk count drains (one
// target per room: a later rank's replaces an earlier's), and an inactive
// room is ACKed at once only if nothing of it is counted.
func abortUpstream(m *kvManager, msg message) {
	st, ok := m.RequestStatus[msg.Room]
	active := ok && st != success
	if active {
		m.updateStatus(msg.Room, failed) // record_failure + update_status
	}
	if !m.v.AckOnDrain {
		return
	}
	switch {
	case active || (m.v.AckOnDrainFixed && m.Outstanding[msg.Room] > 0):
		if m.v.AckOnDrainFixed {
			if !slices.Contains(m.AckTargets[msg.Room], msg.Rank) {
				m.AckTargets[msg.Room] = append(m.AckTargets[msg.Room], msg.Rank)
			}
		} else {
			m.AckTargets[msg.Room] = []int{msg.Rank} // register_deferred_ack_target
		}
		m.maybeAckDrained(msg.Room)
	case m.Outstanding[msg.Room] == 0:
		m.sendAck(msg.Room, msg.Rank)
	}
}

// Before PR #30352 the ABORT message has no NixlMsgGuard frame: the
// bootstrap thread's assert on it raises and the thread dies.
func abortKillsThread(m *kvManager, msg message) {
	m.BootstrapAlive = false
}

// Fork 90a52f44a: Failed only if the room is in request_status (Success
// included), and transfer_infos (with req_to_decode_prefix_len) popped
// unconditionally.
func abortFork(m *kvManager, msg message) {
	if _, ok := m.RequestStatus[msg.Room]; ok {
		m.updateStatus(msg.Room, failed)
	}
	delete(m.TransferInfos, msg.Room)
}

// The fix: upstream's handler, plus a tombstone for an absent room.
func abortFixed(m *kvManager, msg message) {
	if _, ok := m.RequestStatus[msg.Room]; !ok {
		m.Tombstones[msg.Room] = true
		return
	}
	abortUpstream(m, msg)
}

// The fix with deferred release: the fixed handler, then the ACK.
func abortFixedDeferred(m *kvManager, msg message) {
	abortFixed(m, msg)
	m.sendAck(msg.Room, msg.Rank)
}

// The fix: a sender for a tombstoned room fails at once.
func senderInitFixed(m *kvManager, room int) bool {
	if m.Tombstones[room] {
		m.RequestStatus[room] = failed
		return true
	}
	return false
}

// Deferred release done right: the ABORT (and its ACK) waits while a KV
// write of the room is in flight.
func abortWaitsForWrites(m *kvManager, room int) bool {
	for q, posted := range m.Posted {
		if posted && m.Senders[q] != nil && m.Senders[q].Room == room {
			return true
		}
	}
	return false
}

// The variants. Upstream is SGLang's NIXL backend at adca19c4 (PR #35360,
// 2026-08-19) in its default configuration; the Sglang* values are the
// earlier commits, each named by the PR that begins its range. Each is
// written as what changed from the one before it, as the history did.
var (
	sglangPre27011 = &Variant{
		Name:       "sglang-pre-27011",
		Doc:        "NIXL before PR #27011: a failed request is released without clear()",
		AbsentRoom: absentReadsWaiting,
		OnAbort:    abortKillsThread,
	}
	pre30352 = derive(sglangPre27011, "pre-30352",
		"NIXL before PR #30352: the first ABORT kills the bootstrap thread",
		func(v *Variant) { v.FailureClears = true })
	sglang30352 = derive(pre30352, "sglang-30352",
		"NIXL from PR #30352 to before PR #31075: Bootstrapping in flight keeps waiting",
		func(v *Variant) { v.FailedSticky, v.OnAbort = true, abortUpstream })
	sglang31075 = derive(sglang30352, "sglang-31075",
		"NIXL from PR #31075 to before PR #30545: no chunk count",
		func(v *Variant) { v.InflightBootstrappingRaises = true })
	sglang30545 = derive(sglang31075, "sglang-30545",
		"NIXL from PR #30545 to before PR #34692: no bootstrap timeout",
		func(v *Variant) { v.CountsOutstanding = true })
	sglang34692 = derive(sglang30545, "sglang-34692",
		"NIXL from PR #34692 to before PR #35360: a chunk is counted once it passed the worker's checks",
		func(v *Variant) { v.BootstrapTimeout = true })
	Upstream = derive(sglang34692, "upstream",
		"SGLang upstream adca19c4, NIXL backend, default configuration",
		func(v *Variant) { v.CountsAtDequeue = true })
	upstreamDeferred = derive(Upstream, "sglang-35360-deferred",
		"upstream with SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1 (PR #35360)",
		func(v *Variant) { v.AckOnDrain, v.DecodeWaitsForAck = true, true })
	fixed35360Deferred = derive(upstreamDeferred, "fixed-35360-deferred",
		"PR #35360's deferred release with its ACK bugs fixed",
		func(v *Variant) { v.AckOnDrainFixed = true })
	fork90a52f44a = &Variant{
		Name:               "fork-90a52f44a",
		Doc:                "downstream fork 90a52f44a: ABORT pops transfer_infos, worker skips, no bootstrap timeout",
		FailedSticky:       true,
		WorkerSkipsMissing: true,
		AbsentRoom:         absentReadsWaiting,
		OnAbort:            abortFork,
		FailureClears:      true,
	}
	mooncake = &Variant{
		Name:                        "mooncake",
		Doc:                         "Mooncake backend (mooncake/conn.py at adca19c4): an ABORT fails a present room that is not Success (its 2-frame ACK only logged by decode), Failed not sticky, absent room raises KeyError, the worker skips absent rooms and writes no Transferring",
		BootstrapTimeout:            true,
		AbsentRoom:                  absentKeyError,
		OnAbort:                     abortUpstream,
		WorkerSkipsMissing:          true,
		WorkerSkipsAbsent:           true,
		WorkerNeverTransferring:     true,
		SendSkipsFailed:             true,
		FailureClears:               true,
		InflightBootstrappingRaises: true,
		CountsOutstanding:           true,
		CountsAtDequeue:             true,
	}
	Fixed = derive(Upstream, "fixed",
		"upstream plus the fix: tombstone for an ABORT of an absent room; an absent room of a live sender reads Failed",
		func(v *Variant) {
			v.Tombstones, v.AbsentRoom, v.OnAbort, v.SenderInit = true, absentFails, abortFixed, senderInitFixed
		})
	fixedDeferred = derive(Fixed, "fixed-deferred",
		"the fix plus deferred release: ABORT_ACK once the room's writes completed",
		func(v *Variant) {
			v.OnAbort, v.AbortWaits, v.DecodeWaitsForAck = abortFixedDeferred, abortWaitsForWrites, true
		})
)

// derive returns a copy of base under a new name, changed by edit.
func derive(base *Variant, name, doc string, edit func(*Variant)) *Variant {
	v := *base
	v.Name, v.Doc = name, doc
	edit(&v)
	return &v
}

// Builtin is a port together with the bundled spec configuration
// (spec/NAME.cfg) it is checked against.
type Builtin struct {
	Name    string // the name roomspec test -impl takes
	Cfg     string // the bundled variant (cfg) to check against
	Variant *Variant
}

// Builtins lists the built-in ports. upstream-reuse is upstream's code
// under an environment that reuses room ids.
var Builtins = []Builtin{
	{"upstream", "upstream", Upstream},
	{"upstream-reuse", "upstream-reuse", Upstream},
	{"fork-90a52f44a", "fork-90a52f44a", fork90a52f44a},
	{"pre-30352", "pre-30352", pre30352},
	{"mooncake", "mooncake", mooncake},
	{"fixed", "fixed", Fixed},
	{"fixed-deferred", "fixed-deferred", fixedDeferred},
	{"fixed-35360-deferred", "fixed-35360-deferred", fixed35360Deferred},
	{"sglang-pre-27011", "sglang-pre-27011", sglangPre27011},
	{"sglang-27011", "sglang-27011", pre30352},
	{"sglang-30352", "sglang-30352", sglang30352},
	{"sglang-31075", "sglang-31075", sglang31075},
	{"sglang-30545", "sglang-30545", sglang30545},
	{"sglang-34692", "sglang-34692", sglang34692},
	{"sglang-35360", "sglang-35360", Upstream},
	{"sglang-35360-deferred", "sglang-35360-deferred", upstreamDeferred},
}

// Lookup returns the built-in port named name.
func Lookup(name string) (Builtin, bool) {
	for _, b := range Builtins {
		if b.Name == name {
			return b, true
		}
	}
	return Builtin{}, false
}
