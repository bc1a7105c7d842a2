#!/usr/bin/env python3
"""Prefill-side room handling of SGLang (NIXL backend, upstream a4ffb996,
and the variants of docs/ROOM-LIFECYCLE.md), shaped like
python/sglang/srt/disaggregation/{common,nixl,mooncake}/conn.py and
prefill.py, driven by roomspec's conformance suite over the JSON-lines
protocol of conformance/PROTOCOL.md (standard library only).

    python3 prefill.py [--variant upstream|pre-30352|fork-90a52f44a|mooncake|fixed|fixed-deferred]

The code is upstream's; what a variant changes is listed in VARIANTS, and
each change is one `if self.variant.X` at the place the code differs.

The classes mirror SGLang's: NixlKVManager holds the shared dicts
(request_status, transfer_infos) and runs the bootstrap thread's handler and
the transfer worker; NixlKVSender is one request's sender; Scheduler holds
the prefill scheduler's queues. Messages on the PULL sockets are lists of
byte frames, as on the wire (docs/ROOM-LIFECYCLE.md, "What the wire carries").

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
        # upstream a4ffb996 (NIXL):
        self.failed_sticky = True  # nixl/conn.py:698 override
        self.bootstrap_timeout = True  # PR #34692
        self.abort_branch = True  # PR #30352: ABORT handled, not asserted on
        self.abort_spares_success = True
        self.abort_pops_transfer_infos = False
        self.worker_skips_missing = False
        self.absent_room = "WaitingForInput"  # check_status .get default
        self.ack_abort = False  # prefill sends ABORT_ACK
        self.ack_waits_for_writes = False
        self.tombstones = False
        for k, v in changes.items():
            if not hasattr(self, k):
                raise ValueError("unknown variant switch " + k)
            setattr(self, k, v)


VARIANTS = {
    "upstream": Variant("upstream"),
    # before PR #30352: ABORT has no NixlMsgGuard frame; the thread's assert kills it
    "pre-30352": Variant("pre-30352", abort_branch=False, bootstrap_timeout=False),
    # fork 90a52f44a: Failed if present (Success too), pop transfer_infos always,
    # the worker skips rooms missing from transfer_infos, no bootstrap timeout
    "fork-90a52f44a": Variant("fork-90a52f44a", abort_spares_success=False,
                              abort_pops_transfer_infos=True, worker_skips_missing=True,
                              bootstrap_timeout=False),
    # Mooncake: KeyError for an absent room, Failed not sticky, ACK every ABORT
    "mooncake": Variant("mooncake", failed_sticky=False, abort_spares_success=False,
                        absent_room="KeyError", ack_abort=True),
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
BOOTSTRAP_TIMEOUT = 300.0


class NotEnabled(Exception):
    """The thread has nothing to do for this step; nothing changed."""


class Clock:
    """Monotonic time, advanced by the harness (timeouts)."""

    def __init__(self):
        self.now = 0.0

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
        # transfer queue: request -> chunks waiting; in flight: request -> bool
        self.transfer_queue = {}
        self.inflight_writes = {}
        self.chunk_room = {}

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
        if bootstrap_room not in self.transfer_infos:
            return
        self.transfer_queue[req_id] = self.transfer_queue.get(req_id, 0) + num_chunks
        self.chunk_room[req_id] = bootstrap_room

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
        if room in self.request_status and not (
                v.abort_spares_success and self.request_status[room] == KVPoll.Success):
            self.record_failure(room, "Aborted by decode")
            self.update_status(room, KVPoll.Failed)
        elif v.tombstones and room not in self.request_status:
            self.tombstones.add(room)
        # else: absent or Success -> log only
        if v.abort_pops_transfer_infos:
            self.transfer_infos.pop(room, None)
            self.req_to_decode_prefix_len.pop(room, None)
        if v.ack_abort:
            self.ack_push.setdefault(conn, []).append([b"ABORT_ACK", msg[1]])

    # ---- transfer worker -------------------------------------------------
    def transfer_worker_post(self, req_id):
        if self.transfer_queue.get(req_id, 0) == 0 or self.inflight_writes.get(req_id):
            raise NotEnabled("no chunk")
        self.transfer_queue[req_id] -= 1
        if self.transfer_queue[req_id] == 0:
            del self.transfer_queue[req_id]
        room = self.chunk_room[req_id]
        if self.request_status.get(room) == KVPoll.Failed:
            return  # skip chunks of a failed room
        if room not in self.transfer_infos and self.variant.worker_skips_missing:
            return  # fork 90a52f44a: drain guard
        try:
            assert room in self.transfer_infos
            self.update_status(room, KVPoll.Transferring)
            self.inflight_writes[req_id] = True
        except Exception:
            self.update_status(room, KVPoll.Failed)

    def transfer_worker_complete(self, req_id):
        if not self.inflight_writes.get(req_id):
            raise NotEnabled("no write in flight")
        del self.inflight_writes[req_id]
        if self.transfer_queue.get(req_id, 0) == 0:
            room = self.chunk_room[req_id]
            self.update_status(room, KVPoll.Success)
            self.transfer_infos.pop(room, None)


class NixlKVSender:
    def __init__(self, mgr, bootstrap_room):
        self.kv_mgr = mgr
        self.bootstrap_room = bootstrap_room
        self.init_time = mgr.clock.time()
        if mgr.variant.tombstones and bootstrap_room in mgr.tombstones:
            mgr.request_status[bootstrap_room] = KVPoll.Failed  # the fix
            return
        self.kv_mgr.update_status(bootstrap_room, KVPoll.Bootstrapping)

    def poll(self):
        return self.kv_mgr.check_status(self.bootstrap_room)

    def check_bootstrap_timeout(self):
        # the timeout branch of poll() (PR #34692), a step of its own
        if not self.kv_mgr.variant.bootstrap_timeout:
            return False
        status = self.kv_mgr.request_status.get(self.bootstrap_room)
        elapsed = self.kv_mgr.clock.time() - self.init_time
        if (self.bootstrap_room in self.kv_mgr.request_status
                and status == KVPoll.Bootstrapping and elapsed >= BOOTSTRAP_TIMEOUT):
            self.kv_mgr.record_failure(self.bootstrap_room, "bootstrap timeout")
            self.kv_mgr.update_status(self.bootstrap_room, KVPoll.Failed)
            return True
        return False

    def send(self, req_id):
        self.kv_mgr.add_transfer_request(req_id, self.bootstrap_room, self.kv_mgr.num_chunks)

    def clear(self):
        self.kv_mgr.request_status.pop(self.bootstrap_room, None)
        self.kv_mgr.transfer_infos.pop(self.bootstrap_room, None)
        self.kv_mgr.req_to_decode_prefix_len.pop(self.bootstrap_room, None)


class Scheduler:
    """The prefill scheduler's queues (prefill.py), per request."""

    def __init__(self, mgr):
        self.kv_mgr = mgr
        self.senders = {}  # req_id -> NixlKVSender
        self.queue = {}  # req_id -> "BootstrapQueue" | "WaitingQueue" | "InflightQueue" | "Released"

    def add(self, req_id, room):
        if req_id in self.senders:
            raise NotEnabled("sender exists")
        self.senders[req_id] = NixlKVSender(self.kv_mgr, room)
        self.queue[req_id] = "BootstrapQueue"

    def pop_bootstrapped(self, req_id):
        if self.queue.get(req_id) != "BootstrapQueue":
            raise NotEnabled("not in the bootstrap queue")
        status = self.senders[req_id].poll()
        if status == KVPoll.Bootstrapping:
            raise NotEnabled("still bootstrapping")
        if status == KVPoll.Failed:
            self.queue[req_id] = "Released"  # prepare_abort, no clear()
        else:
            self.queue[req_id] = "WaitingQueue"

    def run_batch(self, req_id):
        if self.queue.get(req_id) != "WaitingQueue":
            raise NotEnabled("not waiting")
        self.queue[req_id] = "InflightQueue"
        self.senders[req_id].send(req_id)

    def process_inflight(self, req_id):
        if self.queue.get(req_id) != "InflightQueue":
            raise NotEnabled("not in flight")
        status = self.senders[req_id].poll()
        if status not in (KVPoll.Success, KVPoll.Failed):
            raise NotEnabled("keep polling")  # no timeout here
        self.queue[req_id] = "Released"
        self.senders[req_id].clear()

    def bootstrap_timeout(self, req_id, clock):
        if self.queue.get(req_id) != "BootstrapQueue":
            raise NotEnabled("not in the bootstrap queue")
        sender = self.senders[req_id]
        saved = clock.now
        clock.now = max(clock.now, sender.init_time + BOOTSTRAP_TIMEOUT)
        if not sender.check_bootstrap_timeout():
            clock.now = saved
            raise NotEnabled("not bootstrapping")


class Harness:
    """The JSON-lines protocol: spec actions in, spec variables out."""

    def __init__(self, variant):
        self.variant = variant

    def reset(self, config):
        self.rooms = config["rooms"]
        self.ranks = config["decode_ranks"]
        self.requests = [(r["room"], r["incarnation"]) for r in config["requests"]]
        self.required = config["required_dst_info_num"]
        self.clock = Clock()
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
        except KeyError:
            if action not in ("SchedulerPollBootstrap", "SchedulerPollInFlight"):
                raise
            # check_status's KeyError escapes the scheduler's event loop and
            # kills the prefill process
            self.crashed = True

    def _apply(self, action, p):
        s, m = self.sched, self.mgr
        if action == "SchedulerCreateSender":
            if not self.started(p[0]):
                raise NotEnabled("not started")
            s.add(p[0], self.room_id(p[0]))
        elif action == "SchedulerPollBootstrap":
            s.pop_bootstrapped(p[0])
        elif action == "SchedulerSend":
            s.run_batch(p[0])
        elif action == "SchedulerPollInFlight":
            s.process_inflight(p[0])
        elif action == "BootstrapRecvTransferInfo":
            m.bootstrap_thread_step(p[0], "TransferInfo")
        elif action == "BootstrapRecvAbort":
            m.bootstrap_thread_step(p[0], "ABORT")
        elif action == "WorkerPost":
            m.transfer_worker_post(p[0])
        elif action == "WorkerComplete":
            m.transfer_worker_complete(p[0])
        elif action == "BootstrapTimeout":
            s.bootstrap_timeout(p[0], self.clock)
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
            "sender": [s.queue.get(q, "NoSender") for q in range(len(self.requests))],
            "queued": [m.transfer_queue.get(q, 0) for q in range(len(self.requests))],
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
