#!/usr/bin/env python3
"""Prefill-side room handling of SGLang upstream a4ffb996 (NIXL backend),
shaped like python/sglang/srt/disaggregation/{common,nixl}/conn.py and
prefill.py, driven by roomspec's conformance suite over the JSON-lines
protocol of conformance/PROTOCOL.md (standard library only).

The classes mirror SGLang's: NixlKVManager holds the shared dicts
(request_status, transfer_infos) and runs the bootstrap thread's handler and
the transfer worker; NixlKVSender is one request's sender; Scheduler holds
the prefill scheduler's queues. Messages on the PULL sockets are lists of
byte frames, as on the wire (ROOM-LIFECYCLE.md, "Wire formats").

The protocol adapter at the bottom (Harness) maps spec actions to thread
steps and maps the dicts back onto the spec's variables (observe): that
mapping is the only part that knows the spec.
"""

import json
import sys


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
    def __init__(self, clock, num_chunks):
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
        if self.request_status[bootstrap_room] == KVPoll.Failed:
            return  # NIXL: Failed is sticky while the entry exists
        self.request_status[bootstrap_room] = max(self.request_status[bootstrap_room], status)

    def check_status(self, bootstrap_room):
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
        self.pull[conn].pop(0)
        if msg[0] == b"ABORT":
            self._handle_abort(msg)
            return
        assert msg[0] == NIXL_MSG_GUARD
        self._handle_transfer_info(msg)

    def _handle_transfer_info(self, msg):
        room = int(msg[1].decode("ascii"))
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
    def _handle_abort(self, msg):
        room = int(msg[1].decode("ascii"))
        if room in self.request_status and self.request_status[room] != KVPoll.Success:
            self.record_failure(room, "Aborted by decode")
            self.update_status(room, KVPoll.Failed)
        # else: absent or Success -> log only

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
        self.kv_mgr.update_status(bootstrap_room, KVPoll.Bootstrapping)

    def poll(self):
        return self.kv_mgr.check_status(self.bootstrap_room)

    def check_bootstrap_timeout(self):
        # the timeout branch of poll() (PR #34692), a step of its own
        status = self.kv_mgr.check_status(self.bootstrap_room)
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

    def reset(self, config):
        self.rooms = config["rooms"]
        self.ranks = config["decode_ranks"]
        self.requests = [(r["room"], r["incarnation"]) for r in config["requests"]]
        self.required = config["required_dst_info_num"]
        self.clock = Clock()
        self.mgr = NixlKVManager(self.clock, config["num_chunks"])
        self.mgr.pull = {d: [] for d in range(len(self.ranks))}
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
            self.pages_released[q] = set(range(len(self.ranks)))  # no ABORT_ACK upstream
        elif action == "DecodeRecvAbortAck":
            raise NotEnabled("upstream NIXL sends no ABORT_ACK")
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
            "tombstones": [],
            "bootstrap_alive": m.bootstrap_thread_alive,
            "prefill_crashed": False,
            "sender": [s.queue.get(q, "NoSender") for q in range(len(self.requests))],
            "queued": [m.transfer_queue.get(q, 0) for q in range(len(self.requests))],
            "posted": [bool(m.inflight_writes.get(q)) for q in range(len(self.requests))],
            "chan": [[msg(f, d) for f in m.pull[d]] for d in range(len(self.ranks))],
            "ack_chan": [[] for _ in self.ranks],
            "ti_sent": [sorted(x) for x in self.ti_sent],
            "aborted": list(self.aborted),
            "pages_released": [sorted(x) for x in self.pages_released],
        }


def main():
    h = Harness()
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
