package impl

// Variant is everything that differs between the variants of
// docs/ROOM-LIFECYCLE.md: each variant below is one value, so a variant's
// difference from upstream reads in one place.
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
	// Tombstones: a tombstoned room ignores TransferInfo (fix).
	Tombstones bool
	// AbsentRoom is check_status's answer for a room missing from
	// request_status.
	AbsentRoom func() (Status, error)
	// OnAbort is the bootstrap thread's ABORT branch.
	OnAbort func(m *KVManager, msg Message)
	// SenderInit, if set, runs in NixlKVSender.__init__ before its
	// update_status(Bootstrapping) and reports whether it set the status
	// itself.
	SenderInit func(m *KVManager, room int) bool
	// AbortWaits, if set, holds an ABORT at the head of its socket while it
	// reports true (deferred release done right: ACK after the writes).
	AbortWaits func(m *KVManager, room int) bool
	// DecodeWaitsForAck: decode frees a request's pages when the ABORT_ACK
	// arrives, not when it aborts (deferred release).
	DecodeWaitsForAck bool
}

// nixl/conn.py check_status: request_status.get(room, WaitingForInput).
func absentReadsWaiting() (Status, error) { return WaitingForInput, nil }

// common/mooncake check_status: request_status[room].
func absentKeyError() (Status, error) { return 0, ErrKeyError }

// The fix: only a live sender polls, and its room is absent only if
// something removed it: read it as Failed.
func absentFails() (Status, error) { return Failed, nil }

// nixl/conn.py:2647 (upstream a4ffb996): a present room that is not
// Success is failed; an absent or Success room is only logged.
func abortUpstream(m *KVManager, msg Message) {
	if st, ok := m.RequestStatus[msg.Room]; ok && st != Success {
		m.updateStatus(msg.Room, Failed) // record_failure + update_status
	}
}

// Before PR #30352 the ABORT message has no NixlMsgGuard frame: the
// bootstrap thread's assert on it raises and the thread dies.
func abortKillsThread(m *KVManager, msg Message) {
	m.BootstrapAlive = false
}

// Fork 90a52f44a: Failed only if the room is in request_status (Success
// included), and transfer_infos (with req_to_decode_prefix_len) popped
// unconditionally.
func abortFork(m *KVManager, msg Message) {
	if _, ok := m.RequestStatus[msg.Room]; ok {
		m.updateStatus(msg.Room, Failed)
	}
	delete(m.TransferInfos, msg.Room)
}

// Mooncake: a present room is failed; every ABORT is ACKed at once.
func abortMooncake(m *KVManager, msg Message) {
	if _, ok := m.RequestStatus[msg.Room]; ok {
		m.updateStatus(msg.Room, Failed)
	}
	m.AckPush[msg.Rank] = append(m.AckPush[msg.Rank], Message{Kind: "ABORT_ACK", Room: msg.Room, Rank: msg.Rank})
}

// The fix: upstream's handler, plus a tombstone for an absent room.
func abortFixed(m *KVManager, msg Message) {
	if _, ok := m.RequestStatus[msg.Room]; !ok {
		m.Tombstones[msg.Room] = true
		return
	}
	abortUpstream(m, msg)
}

// The fix with deferred release: the fixed handler, then the ACK.
func abortFixedDeferred(m *KVManager, msg Message) {
	abortFixed(m, msg)
	m.AckPush[msg.Rank] = append(m.AckPush[msg.Rank], Message{Kind: "ABORT_ACK", Room: msg.Room, Rank: msg.Rank})
}

// The fix: a sender for a tombstoned room fails at once.
func senderInitFixed(m *KVManager, room int) bool {
	if m.Tombstones[room] {
		m.RequestStatus[room] = Failed
		return true
	}
	return false
}

// Deferred release done right: the ABORT (and its ACK) waits while a KV
// write of the room is in flight.
func abortWaitsForWrites(m *KVManager, room int) bool {
	for q, posted := range m.Posted {
		if posted && m.Senders[q] != nil && m.Senders[q].Room == room {
			return true
		}
	}
	return false
}

// The variants: upstream, and each other one as its differences from
// the variant it derives from.
var (
	// Upstream is SGLang upstream a4ffb996 (NIXL): a sticky Failed, the
	// bootstrap timeout, an absent room reads WaitingForInput.
	Upstream = &Variant{
		Name:             "upstream",
		Doc:              "SGLang upstream a4ffb996, NIXL backend",
		FailedSticky:     true,
		BootstrapTimeout: true,
		AbsentRoom:       absentReadsWaiting,
		OnAbort:          abortUpstream,
	}
	// Pre30352 is NIXL before PR #30352 (and before the bootstrap
	// timeout): the first ABORT kills the bootstrap thread.
	Pre30352 = derive(Upstream, "pre-30352", "NIXL before PR #30352: the first ABORT kills the bootstrap thread", func(v *Variant) {
		v.BootstrapTimeout = false
		v.OnAbort = abortKillsThread
	})
	// Fork90a52f44a is the downstream fork: ABORT pops transfer_infos,
	// the worker skips rooms it lacks, and there is no bootstrap timeout.
	Fork90a52f44a = derive(Upstream, "fork-90a52f44a", "downstream fork 90a52f44a: ABORT pops transfer_infos, worker skips, no bootstrap timeout", func(v *Variant) {
		v.BootstrapTimeout = false
		v.WorkerSkipsMissing = true
		v.OnAbort = abortFork
	})
	// Mooncake acknowledges every ABORT (and decode frees pages on the
	// ACK); Failed is not sticky, and an absent room raises KeyError.
	Mooncake = derive(Upstream, "mooncake", "Mooncake backend: ACKs every ABORT, Failed not sticky, absent room raises KeyError", func(v *Variant) {
		v.FailedSticky = false
		v.AbsentRoom = absentKeyError
		v.OnAbort = abortMooncake
		v.DecodeWaitsForAck = true
	})
	// Fixed is upstream with the proposed fix: a tombstone for an ABORT of
	// an absent room, and an absent room of a live sender reads Failed.
	Fixed = derive(Upstream, "fixed", "upstream plus the fix: tombstone for an ABORT of an absent room; an absent room of a live sender reads Failed", func(v *Variant) {
		v.Tombstones = true
		v.AbsentRoom = absentFails
		v.OnAbort = abortFixed
		v.SenderInit = senderInitFixed
	})
	// FixedDeferred adds deferred release to Fixed: the ABORT, and its
	// ACK, wait for the room's writes; decode frees pages on the ACK.
	FixedDeferred = derive(Fixed, "fixed-deferred", "the fix plus deferred release: ABORT_ACK once the room's writes completed", func(v *Variant) {
		v.OnAbort = abortFixedDeferred
		v.AbortWaits = abortWaitsForWrites
		v.DecodeWaitsForAck = true
	})
)

// derive returns a copy of base named name, with doc, changed by diff.
func derive(base *Variant, name, doc string, diff func(*Variant)) *Variant {
	v := *base
	v.Name, v.Doc = name, doc
	diff(&v)
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
	{"fork-90a52f44a", "fork-90a52f44a", Fork90a52f44a},
	{"pre-30352", "pre-30352", Pre30352},
	{"mooncake", "mooncake", Mooncake},
	{"fixed", "fixed", Fixed},
	{"fixed-deferred", "fixed-deferred", FixedDeferred},
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
