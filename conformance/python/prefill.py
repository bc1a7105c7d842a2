#!/usr/bin/env python3
"""Prefill-side room handling of SGLang (NIXL backend, upstream adca19c4,
earlier commits, and the variants of docs/ROOM-LIFECYCLE.md), shaped like
python/sglang/srt/disaggregation/{common,nixl,mooncake}/conn.py and
prefill.py, driven by roomspec's conformance suite over the JSON-lines
protocol of conformance/PROTOCOL.md (standard library only).

    python3 prefill.py [--variant NAME]   (NAME: one of VARIANTS)

The code is upstream's; what a variant changes is listed in VARIANTS, and
each change is one `if self.variant.X` at the place the code differs.

The classes mirror SGLang's: NixlKVManager holds the shared dicts
(request_status, transfer_infos) and runs the bootstrap thread's handler and
the transfer worker; NixlKVSender is one request's sender; Scheduler holds
the prefill scheduler's queues. Messages on the PULL sockets are lists of
byte frames, as on the wire (ROOM-LIFECYCLE.md, "Wire formats").

The protocol adapter at the bottom (Harness) maps spec actions to thread
steps and maps the dicts back onto the spec's variables (observe): that
mapping is the only part that knows the spec.
"""

import argparse
import json
import sys


class Variant:
    def __init__(self, name, **changes):
        self.name = name
        # upstream adca19c4 (NIXL), default configuration:
        self.failed_sticky = True  # nixl/conn.py:698 override
        self.bootstrap_timeout = True  # PR #34692
        self.abort_branch = True  # PR #30352: ABORT handled, not asserted on
        self.abort_spares_success = True
        self.abort_pops_transfer_infos = False
        self.worker_skips_missing = False
        self.worker_skips_absent = False  # Mooncake: skip a chunk of an absent room
        self.worker_marks_transferring = True  # NIXL; Mooncake's worker never does
        self.send_skips_failed = False  # Mooncake: add_transfer_request checks the status
        self.absent_room = "WaitingForInput"  # check_status .get default
        self.ack_abort = False  # prefill sends ABORT_ACK
        self.ack_waits_for_writes = False
        self.tombstones = False
        self.failure_clears = True  # PR #27011: failure_exception() -> clear()
        self.inflight_bootstrapping_raises = True  # PR #31075
        self.counts_outstanding = True  # PR #30545: _staging_outstanding
        self.counts_at_dequeue = True  # PR #35360: counted as the worker takes it
        self.ack_on_drain = False  # PR #35360 with its env var set
        self.ack_on_drain_fixed = False
        for k, v in changes.items():
            if not hasattr(self, k):
                raise ValueError("unknown variant switch " + k)
            setattr(self, k, v)


JULY = dict(inflight_bootstrapping_raises=False, counts_outstanding=False, counts_at_dequeue=False)

VARIANTS = {
    "upstream": Variant("upstream"),
    # PR #35360 with SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1
    "sglang-35360-deferred": Variant("sglang-35360-deferred", ack_abort=True, ack_on_drain=True),
    "fixed-35360-deferred": Variant("fixed-35360-deferred", ack_abort=True, ack_on_drain=True,
                                    ack_on_drain_fixed=True),
    # before PR #34692: no bootstrap timeout
    "sglang-34692": Variant("sglang-34692", counts_at_dequeue=False),
    "sglang-30545": Variant("sglang-30545", bootstrap_timeout=False, counts_at_dequeue=False),
    "sglang-31075": Variant("sglang-31075", bootstrap_timeout=False, counts_outstanding=False,
                            counts_at_dequeue=False),
    "sglang-30352": Variant("sglang-30352", bootstrap_timeout=False, **JULY),
    # before PR #30352: ABORT has no NixlMsgGuard frame; the thread's assert kills it
    # (NIXL's sticky-Failed override came with PR #30352)
    "pre-30352": Variant("pre-30352", abort_branch=False, bootstrap_timeout=False, failed_sticky=False,
                         **JULY),
    # before PR #27011: a failed request is released without clear()
    "sglang-pre-27011": Variant("sglang-pre-27011", abort_branch=False, bootstrap_timeout=False,
                                failure_clears=False, failed_sticky=False, **JULY),
    # fork 90a52f44a: Failed if present (Success too), pop transfer_infos always,
    # the worker skips rooms missing from transfer_infos, no bootstrap timeout
    "fork-90a52f44a": Variant("fork-90a52f44a", abort_spares_success=False,
                              abort_pops_transfer_infos=True, worker_skips_missing=True,
                              bootstrap_timeout=False, **JULY),
    # Mooncake (mooncake/conn.py at adca19c4): KeyError for an absent room,
    # Failed not sticky, its 2-frame ABORT_ACK only logged by decode (not
    # modelled), the worker skips absent rooms, writes no Transferring and
    # writes to no rank without transfer_infos; add_transfer_request skips
    # an absent or Failed room
    "mooncake": Variant("mooncake", failed_sticky=False, absent_room="KeyError",
                        worker_skips_missing=True, worker_skips_absent=True,
                        worker_marks_transferring=False, send_skips_failed=True),
    # the fix: tombstone for an ABORT of an absent room; an absent room of a
    # live sender reads Failed
    "fixed": Variant("fixed", tombstones=True, absent_room="Failed"),
    # the fix with deferred release: ACK once the room's writes completed
    "fixed-deferred": Variant("fixed-deferred", tombstones=True, absent_room="Failed",
                              ack_abort=True, ack_waits_for_writes=True),
}


class KVPoll:
    Failed = 0
    Bootstrapping = 1
    WaitingForInput = 2
    Transferring = 3
    Success = 4


POLL_NAMES = {0: "Failed", 1: "Bootstrapping", 2: "WaitingForInput", 3: "Transferring", 4: "Success"}

NIXL_MSG_GUARD = b"NixlMsgGuard"
BOOTSTRAP_TIMEOUT = 300  # SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT's default (environ.py:612)


class NotEnabled(Exception):
    """The thread has nothing to do for this step; nothing changed."""


class Clock:
    """time.time(), moved by the harness (Tick)."""

    def __init__(self):
        self.now = 0

    def time(self):
        return self.now


class NixlKVManager:
    def __init__(self, variant, clock, num_chunks):
        self.variant = variant
        self.clock = clock
        self.num_chunks = num_chunks
        self.request_status = {}  # room -> KVPoll
        self.transfer_infos = {}  # room -> {agent_name: info}
        self.req_to_decode_prefix_len = {}
        self.failure_records = {}
        # PULL socket: one FIFO per decode connection (ZeroMQ keeps order
        # per connection); the bootstrap thread reads whichever is ready.
        self.pull = {}
        self.bootstrap_thread_alive = True
        self.tombstones = set()  # the fix only
        # ABORT_ACKs sent, per decode connection (Mooncake, deferred release)
        self.ack_push = {}
        # the worker queue every request of a room shares: (request, room)
        # per chunk, FIFO; the request whose chunk's writes are in flight
        self.transfer_queue = []
        self.inflight_writes = {}
        self.chunk_room = {}
        self._staging_outstanding = {}  # room -> chunks dequeued, not finished
        self._deferred_ack_targets = {}  # room -> [decode connection]

    # common/conn.py:327, with the NIXL override (nixl/conn.py:698)
    def update_status(self, bootstrap_room, status):
        if bootstrap_room not in self.request_status:
            # no resurrection: Failed for an absent room is a no-op
            if status != KVPoll.Failed:
                self.request_status[bootstrap_room] = status
            return
        if status == KVPoll.Failed:
            self.request_status[bootstrap_room] = KVPoll.Failed
            return
        if self.variant.failed_sticky and self.request_status[bootstrap_room] == KVPoll.Failed:
            return  # NIXL: Failed is sticky while the entry exists
        self.request_status[bootstrap_room] = max(self.request_status[bootstrap_room], status)

    def check_status(self, bootstrap_room):
        if self.variant.absent_room == "KeyError":
            return self.request_status[bootstrap_room]  # common/Mooncake
        if self.variant.absent_room == "Failed":
            # the fix: only a live sender polls; its room is gone -> Failed
            return self.request_status.get(bootstrap_room, KVPoll.Failed)
        # NIXL: an absent room reads WaitingForInput
        return self.request_status.get(bootstrap_room, KVPoll.WaitingForInput)

    def record_failure(self, bootstrap_room, reason):
        self.failure_records[bootstrap_room] = reason

    # prefill side of send(): enqueue the chunks, unless the room has no
    # transfer_infos (PR #32025: return silently)
    def add_transfer_request(self, req_id, bootstrap_room, num_chunks):
        self.chunk_room[req_id] = bootstrap_room
        if bootstrap_room not in self.transfer_infos:
            return
        if self.variant.send_skips_failed and self.request_status.get(bootstrap_room, KVPoll.Failed) == KVPoll.Failed:
            return
        for _ in range(num_chunks):
            self.transfer_queue.append(req_id)

    # common/conn.py:394 _maybe_ack_drained_abort
    def _maybe_ack_drained_abort(self, room):
        if not self.variant.ack_on_drain or self._staging_outstanding.get(room, 0) > 0:
            return
        for conn in self._deferred_ack_targets.pop(room, []):
            self.ack_push.setdefault(conn, []).append([b"ABORT_ACK", str(room).encode()])

    # ---- bootstrap thread: one message off connection `conn` ----------
    def bootstrap_thread_step(self, conn, expect):
        if not self.bootstrap_thread_alive or not self.pull.get(conn):
            raise NotEnabled("no message")
        msg = self.pull[conn][0]
        kind = "ABORT" if msg[0] == b"ABORT" else "TransferInfo"
        if kind != expect:
            raise NotEnabled("next message is %s" % kind)
        if (kind == "ABORT" and self.variant.ack_waits_for_writes
                and self._room_has_writes(int(msg[1].decode("ascii")))):
            raise NotEnabled("ABORT waits for the room's writes")
        self.pull[conn].pop(0)
        try:
            if self.variant.abort_branch and msg[0] == b"ABORT":
                self._handle_abort(msg, conn)
                return
            assert msg[0] == NIXL_MSG_GUARD, "missing NixlMsgGuard"
            self._handle_transfer_info(msg)
        except AssertionError:
            # the exception escapes bootstrap_thread's loop: the thread dies
            self.bootstrap_thread_alive = False

    def _room_has_writes(self, room):
        return any(w and self.chunk_room.get(q) == room for q, w in self.inflight_writes.items())

    def _handle_transfer_info(self, msg):
        room = int(msg[1].decode("ascii"))
        if self.variant.tombstones and room in self.tombstones:
            return  # the fix: this room was aborted before it existed
        agent_name = msg[4].decode("ascii")
        required_dst_info_num = int(msg[7].decode("ascii"))
        self.transfer_infos.setdefault(room, {})[agent_name] = {
            "endpoint": msg[2].decode("ascii"),
            "dst_port": int(msg[3].decode("ascii")),
        }
        self.req_to_decode_prefix_len[room] = int(msg[9].decode("ascii")) if len(msg) > 9 else 0
        if len(self.transfer_infos[room]) == required_dst_info_num:
            self.update_status(room, KVPoll.WaitingForInput)

    # nixl/conn.py:2647
    def _handle_abort(self, msg, conn):
        room = int(msg[1].decode("ascii"))
        v = self.variant
        active = room in self.request_status and not (
            v.abort_spares_success and self.request_status[room] == KVPoll.Success)
        if active:
            self.record_failure(room, "Aborted by decode")
            self.update_status(room, KVPoll.Failed)
        elif v.tombstones and room not in self.request_status:
            self.tombstones.add(room)
        # else: absent or Success -> log only
        if v.abort_pops_transfer_infos:
            self.transfer_infos.pop(room, None)
            self.req_to_decode_prefix_len.pop(room, None)
        if v.ack_on_drain:
            # PR #35360: hold the ACK until the room's count drains (one
            # target per room); an inactive room is ACKed now if quiescent
            outstanding = self._staging_outstanding.get(room, 0)
            if active or (v.ack_on_drain_fixed and outstanding > 0):
                if v.ack_on_drain_fixed:
                    targets = self._deferred_ack_targets.setdefault(room, [])
                    if conn not in targets:
                        targets.append(conn)
                else:
                    self._deferred_ack_targets[room] = [conn]
                self._maybe_ack_drained_abort(room)
            elif outstanding == 0:
                self.ack_push.setdefault(conn, []).append([b"ABORT_ACK", msg[1]])
        elif v.ack_abort:
            self.ack_push.setdefault(conn, []).append([b"ABORT_ACK", msg[1]])

    # ---- transfer worker -------------------------------------------------
    def transfer_worker_post(self, req_id):
        # the worker takes the head chunk once its previous chunk's writes
        # completed (it busy-waits on them)
        if not self.transfer_queue or self.transfer_queue[0] != req_id or any(self.inflight_writes.values()):
            raise NotEnabled("no chunk at the head of the queue")
        self.transfer_queue.pop(0)
        room = self.chunk_room[req_id]
        v = self.variant
        if v.counts_at_dequeue:
            self._staging_outstanding[room] = self._staging_outstanding.get(room, 0) + 1
        if self.request_status.get(room) == KVPoll.Failed or (
                v.worker_skips_absent and room not in self.request_status):
            self._staging_outstanding.pop(room, None)
            self._maybe_ack_drained_abort(room)
            return  # skip chunks of a failed room
        if room not in self.transfer_infos and v.worker_skips_missing:
            return  # fork 90a52f44a: drain guard
        try:
            assert room in self.transfer_infos
            if v.counts_outstanding and not v.counts_at_dequeue:
                self._staging_outstanding[room] = self._staging_outstanding.get(room, 0) + 1
            if v.worker_marks_transferring:
                self.update_status(room, KVPoll.Transferring)
            self.inflight_writes[req_id] = True
        except Exception:
            self.update_status(room, KVPoll.Failed)
            if v.ack_on_drain_fixed and v.counts_at_dequeue:
                self._staging_outstanding[room] -= 1
                if self._staging_outstanding[room] == 0:
                    del self._staging_outstanding[room]
                self._maybe_ack_drained_abort(room)

    def transfer_worker_complete(self, req_id):
        if not self.inflight_writes.get(req_id):
            raise NotEnabled("no write in flight")
        del self.inflight_writes[req_id]
        room = self.chunk_room[req_id]
        v = self.variant
        last = req_id not in self.transfer_queue
        if v.counts_outstanding:
            self._staging_outstanding[room] = self._staging_outstanding.get(room, 0) - 1
            if self._staging_outstanding[room] == 0:
                del self._staging_outstanding[room]
        self._maybe_ack_drained_abort(room)
        if last:
            self.update_status(room, KVPoll.Success)
        elif v.worker_marks_transferring:
            try:
                if self.check_status(room) != KVPoll.Success:
                    self.update_status(room, KVPoll.Transferring)
            except KeyError:
                self.update_status(room, KVPoll.Transferring)
        if v.counts_outstanding:
            status = self.request_status.get(room)
            drop = self._staging_outstanding.get(room, 0) <= 0 and (
                status is None or status == KVPoll.Success or (last and status == KVPoll.Failed))
        else:
            drop = last
        if drop:
            self._staging_outstanding.pop(room, None)
            self.transfer_infos.pop(room, None)


class NixlKVSender:
    def __init__(self, mgr, bootstrap_room):
        self.kv_mgr = mgr
        self.bootstrap_room = bootstrap_room
        self.init_time = mgr.clock.time()
        self._send_failed = False
        if mgr.variant.tombstones and bootstrap_room in mgr.tombstones:
            mgr.request_status[bootstrap_room] = KVPoll.Failed  # the fix
            return
        self.kv_mgr.update_status(bootstrap_room, KVPoll.Bootstrapping)

    def poll(self):
        m = self.kv_mgr
        if self._send_failed:
            return KVPoll.Failed
        status = m.check_status(self.bootstrap_room)
        if status == KVPoll.Bootstrapping and m.variant.bootstrap_timeout:
            # PR #34692: the timeout fires inside poll()
            if m.clock.time() - self.init_time >= BOOTSTRAP_TIMEOUT:
                m.record_failure(self.bootstrap_room, "bootstrap timeout")
                m.update_status(self.bootstrap_room, KVPoll.Failed)
                return KVPoll.Failed
        if (status == KVPoll.Success and m.variant.counts_outstanding
                and m._staging_outstanding.get(self.bootstrap_room, 0) > 0):
            return KVPoll.Transferring  # hold Success while chunks are counted
        return status

    def failure_exception(self):
        self._send_failed = True
        if self.kv_mgr.variant.failure_clears:
            self.clear()  # PR #27011

    def send(self, req_id):
        self.kv_mgr.add_transfer_request(req_id, self.bootstrap_room, self.kv_mgr.num_chunks)

    def clear(self):
        m, room = self.kv_mgr, self.bootstrap_room
        m.request_status.pop(room, None)
        m.transfer_infos.pop(room, None)
        m.req_to_decode_prefix_len.pop(room, None)
        if not (m.variant.ack_on_drain_fixed and m._staging_outstanding.get(room, 0) > 0):
            m._deferred_ack_targets.pop(room, None)


class KVPool:
    """The scheduler's KV cache pool: the forward pass allocates a request's
    pages, release_kv_cache (mem_cache/common.py) frees them."""

    def __init__(self):
        self.held = set()
        self.frees = {}

    def alloc(self, req_id):
        self.held.add(req_id)

    def release_kv_cache(self, req_id):
        self.frees[req_id] = self.frees.get(req_id, 0) + 1
        self.held.discard(req_id)


class Scheduler:
    """The prefill scheduler's queues (prefill.py). Each queue is a list in
    the order requests entered it; a poll pass polls the whole queue, then
    acts on each request's poll, as pop_bootstrapped and
    process_disagg_prefill_inflight_queue do."""

    def __init__(self, mgr):
        self.kv_mgr = mgr
        self.senders = {}  # req_id -> NixlKVSender
        self.bootstrap_queue = []
        self.waiting_queue = []
        self.inflight_queue = []
        self.pool = KVPool()

    def position(self, req_id):
        if req_id not in self.senders:
            return "NoSender"
        for name, q in (("BootstrapQueue", self.bootstrap_queue), ("WaitingQueue", self.waiting_queue),
                        ("InflightQueue", self.inflight_queue)):
            if req_id in q:
                return name
        return "Released"

    def add(self, req_id, room):
        if req_id in self.senders:
            raise NotEnabled("sender exists")
        self.senders[req_id] = NixlKVSender(self.kv_mgr, room)
        self.bootstrap_queue.append(req_id)

    def pop_bootstrapped(self):
        polls = [self.senders[r].poll() for r in self.bootstrap_queue]
        done = []
        for req_id, status in zip(self.bootstrap_queue, polls):
            if status == KVPoll.Failed:
                # handle_bootstrap_failure: failure_exception(); no KV pages yet
                self.senders[req_id].failure_exception()
                done.append(req_id)
            elif status == KVPoll.WaitingForInput:
                done.append(req_id)
                self.waiting_queue.append(req_id)
            elif status != KVPoll.Bootstrapping:
                raise RuntimeError("Unexpected poll state %s in pop_bootstrapped" % status)
        if not done:
            raise NotEnabled("nothing moves")
        self.bootstrap_queue = [r for r in self.bootstrap_queue if r not in done]

    def run_batch(self, req_id):
        if req_id not in self.waiting_queue:
            raise NotEnabled("not waiting")
        self.waiting_queue.remove(req_id)
        self.pool.alloc(req_id)  # the batch allocates its KV pages
        self.inflight_queue.append(req_id)
        self.senders[req_id].send(req_id)

    def process_inflight(self):
        polls = [self.senders[r].poll() for r in self.inflight_queue]
        undone = []
        for req_id, status in zip(self.inflight_queue, polls):
            if status == KVPoll.Bootstrapping and self.kv_mgr.variant.inflight_bootstrapping_raises:
                raise RuntimeError("Unexpected poll state %s in inflight queue" % status)
            if status == KVPoll.Success:
                self.pool.release_kv_cache(req_id)
                self.senders[req_id].clear()
            elif status == KVPoll.Failed:
                self.senders[req_id].failure_exception()
                self.pool.release_kv_cache(req_id)
            else:
                undone.append(req_id)  # no timeout here
        if len(undone) == len(self.inflight_queue):
            raise NotEnabled("nothing moves")
        self.inflight_queue = undone

    def tick(self, req_id, clock, before=True):
        # The clock moves to one second before req_id's bootstrap timeout
        # expires (where the configuration stops there: before), or from
        # there to the instant it expires.
        if self.position(req_id) in ("NoSender", "Released") or not self.kv_mgr.variant.bootstrap_timeout:
            raise NotEnabled("no deadline")
        sender = self.senders[req_id]
        # Only a poll that reads Bootstrapping reads the clock (the spec's Tick).
        try:
            status = sender.kv_mgr.check_status(sender.bootstrap_room)
        except KeyError:
            raise NotEnabled("its room is absent")
        if sender._send_failed or status != KVPoll.Bootstrapping:
            raise NotEnabled("no poll of it reads the clock")
        elapsed = clock.now - sender.init_time
        if before and elapsed < BOOTSTRAP_TIMEOUT - 1:
            clock.now += BOOTSTRAP_TIMEOUT - 1 - elapsed
        elif elapsed < BOOTSTRAP_TIMEOUT:
            clock.now += BOOTSTRAP_TIMEOUT - elapsed
        else:
            raise NotEnabled("the timeout expired")


class Harness:
    """The JSON-lines protocol: spec actions in, spec variables out."""

    def __init__(self, variant):
        self.variant = variant

    def reset(self, config):
        if int(config.get("bootstrap_timeout", BOOTSTRAP_TIMEOUT)) != BOOTSTRAP_TIMEOUT:
            raise ValueError("the configuration's bootstrap timeout is %s s, this code's %d s"
                             % (config["bootstrap_timeout"], BOOTSTRAP_TIMEOUT))
        self.rooms = config["rooms"]
        self.ranks = config["decode_ranks"]
        self.requests = [(r["room"], r["incarnation"]) for r in config["requests"]]
        self.required = config["required_dst_info_num"]
        self.clock = Clock()
        self.tick_before = bool(config.get("clock_before_timeout", True))
        self.mgr = NixlKVManager(self.variant, self.clock, config["num_chunks"])
        self.mgr.pull = {d: [] for d in range(len(self.ranks))}
        self.mgr.ack_push = {d: [] for d in range(len(self.ranks))}
        self.crashed = False
        self.sched = Scheduler(self.mgr)
        # decode emulator
        self.ti_sent = [set() for _ in self.requests]
        self.aborted = [False for _ in self.requests]
        self.pages_released = [set() for _ in self.requests]

    def room_id(self, q):
        return 1000 + self.requests[q][0]  # a bootstrap room as an integer

    def started(self, q):
        room, inc = self.requests[q]
        if inc <= 1:
            return True
        for o, (r2, i2) in enumerate(self.requests):
            if r2 == room and i2 == inc - 1:
                return self.aborted[o]
        return False

    def apply(self, action, p):
        if self.crashed and not action.startswith("Decode"):
            raise NotEnabled("the prefill process died")
        try:
            self._apply(action, p)
        except (KeyError, RuntimeError):
            if not action.startswith("Scheduler"):
                raise
            # check_status's KeyError or an "Unexpected poll state"
            # RuntimeError escapes the scheduler's event loop and kills the
            # prefill process
            self.crashed = True

    def _apply(self, action, p):
        s, m = self.sched, self.mgr
        if action == "SchedulerCreateSender":
            if not self.started(p[0]):
                raise NotEnabled("not started")
            s.add(p[0], self.room_id(p[0]))
        elif action == "SchedulerPollBootstrap":
            s.pop_bootstrapped()
        elif action == "SchedulerSend":
            s.run_batch(p[0])
        elif action == "SchedulerPollInFlight":
            s.process_inflight()
        elif action == "BootstrapRecvTransferInfo":
            m.bootstrap_thread_step(p[0], "TransferInfo")
        elif action == "BootstrapRecvAbort":
            m.bootstrap_thread_step(p[0], "ABORT")
        elif action == "WorkerPost":
            m.transfer_worker_post(p[0])
        elif action == "WorkerComplete":
            m.transfer_worker_complete(p[0])
        elif action == "Tick":
            s.tick(p[0], self.clock, self.tick_before)
        elif action == "DecodeSendTransferInfo":
            d, q = p
            if not self.started(q) or self.aborted[q] or d in self.ti_sent[q]:
                raise NotEnabled("decode cannot send")
            self.ti_sent[q].add(d)
            room = str(self.room_id(q)).encode()
            m.pull[d].append([NIXL_MSG_GUARD, room, b"10.0.0.2", str(17000 + d).encode(),
                              self.ranks[d].encode(), b"", b"0", str(self.required).encode(), b"", b"0", b"0"])
        elif action == "DecodeAbort":
            q = p[0]
            if not self.started(q) or self.aborted[q]:
                raise NotEnabled("decode cannot abort")
            self.aborted[q] = True
            room = str(self.room_id(q)).encode()
            for d in range(len(self.ranks)):
                m.pull[d].append([b"ABORT", room, b"10.0.0.2", str(17000 + d).encode()])
            if not self.variant.ack_abort:
                self.pages_released[q] = set(range(len(self.ranks)))  # no ABORT_ACK to wait for
        elif action == "DecodeRecvAbortAck":
            d = p[0]
            if not m.ack_push[d]:
                raise NotEnabled("no ABORT_ACK")
            room = int(m.ack_push[d].pop(0)[1])
            for q, (r, _) in enumerate(self.requests):
                if 1000 + r == room and self.aborted[q]:
                    self.pages_released[q].add(d)
        else:
            raise ValueError("unknown action " + action)

    def _batches(self):
        out = []
        for q in self.mgr.transfer_queue:
            if out and out[-1]["req"] == q:
                out[-1]["left"] += 1
            else:
                out.append({"req": q, "left": 1})
        return out

    def observe(self):
        m, s = self.mgr, self.sched
        agent_rank = {name: i for i, name in enumerate(self.ranks)}

        def room_index(room_id):
            return room_id - 1000

        def msg(frames, d):
            kind = "ABORT" if frames[0] == b"ABORT" else "TransferInfo"
            return {"type": kind, "room": room_index(int(frames[1])), "rank": d}

        return {
            "request_status": [POLL_NAMES[m.request_status[1000 + r]] if 1000 + r in m.request_status else "Absent"
                               for r in range(len(self.rooms))],
            "transfer_infos": [sorted(agent_rank[a] for a in m.transfer_infos.get(1000 + r, {}))
                               for r in range(len(self.rooms))],
            "tombstones": sorted(room_index(r) for r in m.tombstones),
            "bootstrap_alive": m.bootstrap_thread_alive,
            "prefill_crashed": self.crashed,
            "sender": [s.position(q) for q in range(len(self.requests))],
            "elapsed": [min(self.clock.now - s.senders[q].init_time, BOOTSTRAP_TIMEOUT)
                        if self.variant.bootstrap_timeout and s.position(q) not in ("NoSender", "Released")
                        else 0 for q in range(len(self.requests))],
            "kv_held": [q in s.pool.held for q in range(len(self.requests))],
            "kv_frees": [min(s.pool.frees.get(q, 0), 2) for q in range(len(self.requests))],
            "outstanding": [m._staging_outstanding.get(1000 + r, 0) for r in range(len(self.rooms))],
            "ack_target": [sorted(m._deferred_ack_targets.get(1000 + r, [])) for r in range(len(self.rooms))],
            "wqueue": self._batches(),
            "posted": [bool(m.inflight_writes.get(q)) for q in range(len(self.requests))],
            "chan": [[msg(f, d) for f in m.pull[d]] for d in range(len(self.ranks))],
            "ack_chan": [[{"type": "ABORT_ACK", "room": room_index(int(f[1])), "rank": d} for f in m.ack_push[d]]
                         for d in range(len(self.ranks))],
            "ti_sent": [sorted(x) for x in self.ti_sent],
            "aborted": list(self.aborted),
            "pages_released": [sorted(x) for x in self.pages_released],
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="upstream", choices=sorted(VARIANTS))
    h = Harness(VARIANTS[ap.parse_args().variant])
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        op = req.get("op")
        try:
            if op == "reset":
                h.reset(req["config"])
                resp = {"ok": True}
            elif op == "apply":
                h.apply(req["action"], req.get("params", []))
                resp = {"ok": True}
            elif op == "observe":
                resp = {"ok": True, "state": h.observe()}
            elif op == "quit":
                print(json.dumps({"ok": True}), flush=True)
                return
            else:
                resp = {"ok": False, "error": "unknown op %r" % op}
        except NotEnabled as e:
            resp = {"ok": False, "error": "not enabled: %s" % e}
        sys.stdout.write(json.dumps(resp) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
