#!/usr/bin/python3
"""Make the replay scenarios in traces/testdata/scenarios: real libzmq
sockets on loopback under tcpdump, a decode emulator and a prefill emulator.

The prefill emulator is conformance/python/prefill.py (the Python
implementation of each variant) driven by real threads: a bootstrap thread
reading a ZeroMQ PULL socket, a slow scheduler thread (it creates a
request's sender some time after decode bootstrapped it) and a transfer
worker. It is instrumented by traces/instrument/roomlog.py, which writes the
prefill event log. The decode emulator has two ranks, each with its own PUSH
socket, and sends TransferInfo and client ABORTs on a schedule.

At the end the emulators know which aborted requests prefill still holds
(pinned) and write the expected verdicts with the log (NAME.expected.json):
pinned rooms are violated when the capture ran past their deadline, else
inconclusive; every other aborted room is satisfied.

Run as root (tcpdump) with Debian's python3 and its python3-zmq:

    sudo /usr/bin/python3 traces/testdata/scenarios/make_scenarios.py [NAME...]
"""

import json
import os
import random
import socket
import sys
import threading
import time

import zmq

sys.dont_write_bytecode = True  # leave no __pycache__ in the tree

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path[:0] = [os.path.join(ROOT, "conformance", "python"), os.path.join(ROOT, "traces", "instrument"),
                os.path.join(ROOT, "traces", "testdata")]

import prefill as P  # noqa: E402
import roomlog  # noqa: E402
from make_captures import Capture, nixl_transfer_info, abort  # noqa: E402

DEADLINE = 2.0  # seconds: the -deadline the tests replay with
TICK = 0.02  # scheduler and worker loop period


class RealClock(P.Clock):
    def time(self):
        return time.monotonic()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Prefill:
    def __init__(self, variant, port, log):
        self.mgr = P.NixlKVManager(P.VARIANTS[variant], RealClock(), 1)
        self.sched = P.Scheduler(self.mgr)
        self.lock = threading.Lock()
        self.arrivals = []  # (time, room): the request reaches the scheduler
        self.stop = threading.Event()
        self.ctx = zmq.Context.instance()
        self.pull = self.ctx.socket(zmq.PULL)
        self.pull.bind("tcp://127.0.0.1:%d" % port)
        self.writes = {}  # req -> time the write completes
        self.threads = [threading.Thread(target=f, name=n) for f, n in
                        ((self.bootstrap, "bootstrap"), (self.scheduler, "scheduler"), (self.worker, "worker-0"))]

    def start(self):
        for t in self.threads:
            t.start()

    def join(self):
        self.stop.set()
        for t in self.threads:
            t.join()
        self.pull.close(linger=0)

    def bootstrap(self):
        poller = zmq.Poller()
        poller.register(self.pull, zmq.POLLIN)
        acks = {}  # decode endpoint -> PUSH socket for its ABORT_ACKs
        while not self.stop.is_set():
            if poller.poll(20):
                msg = self.pull.recv_multipart()
                # One FIFO per decode rank, keyed by the endpoint it
                # announces (TransferInfo and 4-frame ABORT carry it).
                conn = (msg[2].decode(), int(msg[3])) if len(msg) >= 4 else ("?", 0)
                with self.lock:
                    self.mgr.pull.setdefault(conn, []).append(msg)
            with self.lock:
                for conn, queue in self.mgr.pull.items():
                    while queue:
                        kind = "ABORT" if queue[0][0] == b"ABORT" else "TransferInfo"
                        try:
                            self.mgr.bootstrap_thread_step(conn, kind)
                        except P.NotEnabled:
                            break  # an ABORT waiting for the room's writes
                for conn, out in self.mgr.ack_push.items():
                    for ack in out:
                        if conn not in acks:
                            acks[conn] = self.ctx.socket(zmq.PUSH)
                            acks[conn].connect("tcp://%s:%d" % conn)
                        acks[conn].send_multipart(ack)
                    out.clear()
        for sock in acks.values():
            sock.close(linger=1000)

    def scheduler(self):
        while not self.stop.is_set():
            now = time.monotonic()
            with self.lock:
                for t, room in list(self.arrivals):
                    if t <= now:
                        self.arrivals.remove((t, room))
                        self.sched.add(room, room)
                for req in list(self.sched.queue):
                    q = self.sched.queue[req]
                    try:
                        if q == "BootstrapQueue":
                            if not self.sched.senders[req].check_bootstrap_timeout():
                                self.sched.pop_bootstrapped(req)
                        elif q == "WaitingQueue":
                            self.sched.run_batch(req)
                        elif q == "InflightQueue":
                            self.sched.process_inflight(req)
                    except P.NotEnabled:
                        pass
            time.sleep(TICK)

    def worker(self):
        while not self.stop.is_set():
            now = time.monotonic()
            with self.lock:
                for req in list(self.mgr.transfer_queue):
                    try:
                        self.mgr.transfer_worker_post(req)
                        if self.mgr.inflight_writes.get(req):
                            self.writes[req] = now + 0.05
                    except P.NotEnabled:
                        pass
                for req, t in list(self.writes.items()):
                    if t <= now:
                        del self.writes[req]
                        try:
                            self.mgr.transfer_worker_complete(req)
                        except P.NotEnabled:
                            pass
            time.sleep(TICK / 2)


def run(name, variant, plan, tail, seed, real_decode=False, expected_suffix=".expected.json"):
    """plan: list of (room, kind, t) with kind "ok" (TransferInfo from both
    ranks at t), "abort-early" (ABORTs at t, before any TransferInfo) or
    "abort-late" (TransferInfo at t, ABORTs 0.15 s later); the request
    reaches prefill's scheduler 0.3 s after t (slow scheduler). With
    real_decode, the decode ranks announce real loopback endpoints where
    they listen for ABORT_ACKs (variants that send them). expected_suffix names
    the suffix of the expectations file."""
    rng = random.Random(seed)
    P.BOOTSTRAP_TIMEOUT = 1.0  # scaled down with the deadline
    port = free_port()
    dports = [free_port() for _ in range(2)] if real_decode else [17000, 17001]
    pcap = os.path.join(HERE, name + ".pcap")
    logpath = os.path.join(HERE, name + ".events.jsonl")
    bpf = " or ".join("tcp port %d" % p for p in [port] + (dports if real_decode else []))
    cap = Capture(pcap, "lo", bpf)
    logf = open(logpath, "w")
    log = roomlog.EventLog(logf, host="prefill-0", role="prefill", rank=0)
    undo = roomlog.instrument(P, log)
    pre = Prefill(variant, port, log)
    pre.start()
    ctx = zmq.Context.instance()
    ranks = []
    listeners = []
    for i in range(2):
        if real_decode:
            ln = ctx.socket(zmq.PULL)
            ln.bind("tcp://127.0.0.1:%d" % dports[i])
            listeners.append(ln)
        s = ctx.socket(zmq.PUSH)
        # ZMTP PINGs every 200 ms keep packets flowing while nothing else
        # is sent, so the capture's last packet is its end.
        s.setsockopt(zmq.HEARTBEAT_IVL, 200)
        s.connect("tcp://127.0.0.1:%d" % port)
        ip = "127.0.0.1" if real_decode else "10.9.0.%d" % (i + 1)
        ranks.append((s, ip, dports[i], "decode-agent-%d" % i))
    time.sleep(0.3)
    t0 = time.monotonic()
    events = []
    for room, kind, t in plan:
        if kind in ("ok", "abort-late"):
            events.append((t, "ti", room))
        if kind == "abort-early":
            events.append((t, "abort", room))
        if kind == "abort-late":
            events.append((t + 0.15, "abort", room))
        events.append((t + 0.3, "arrive", room))
    events.sort()
    aborted = {}
    for t, what, room in events:
        delay = t0 + t - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        if what == "arrive":
            with pre.lock:
                pre.arrivals.append((time.monotonic(), room))
            continue
        for sock, ip, dport, agent in ranks:
            if what == "ti":
                _, parts = nixl_transfer_info(rng, room, ip, dport, agent, required=2)
            else:
                _, parts = abort(room, ip, dport)
                aborted.setdefault(room, time.time())
            sock.send_multipart(parts)
    time.sleep(tail)
    with pre.lock:
        pinned = sorted(r for r in aborted if pre.sched.queue.get(r) not in (None, "Released"))
        end = time.time()
    pre.join()
    for sock, *_ in ranks:
        sock.close(linger=1000)
    for ln in listeners:
        ln.close(linger=0)
    undo()
    logf.close()
    cap.stop()
    expected = {}
    for room, t in sorted(aborted.items()):
        if room in pinned:
            expected[str(room)] = "violated" if end - t >= DEADLINE + 0.1 else "inconclusive"
        else:
            expected[str(room)] = "satisfied"
    with open(os.path.join(HERE, name + expected_suffix), "w") as f:
        json.dump({"variant": variant, "deadline": "%gs" % DEADLINE, "pinned": pinned,
                   "with_log": expected}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(name, variant, "pinned", pinned, "expected", expected)


def storm(seed):
    rng = random.Random(seed)
    plan = []
    for i in range(12):
        kind = ["ok", "abort-early", "abort-late"][i % 3]
        plan.append((100 + i, kind, 0.05 * i + rng.random() * 0.02))
    return plan


SCENARIOS = {
    "healthy": lambda: run("healthy", "upstream", [(10 + i, "ok", 0.05 * i) for i in range(6)]
                           + [(20, "abort-late", 0.1)], tail=DEADLINE + 1.0, seed=1),
    "storm-fork": lambda: run("storm-fork", "fork-90a52f44a", storm(2), tail=DEADLINE + 1.0, seed=2),
    "storm-fixed": lambda: run("storm-fixed", "fixed", storm(2), tail=DEADLINE + 1.0, seed=2),
    "storm-fixed-deferred": lambda: run("storm-fixed-deferred", "fixed-deferred", storm(4), tail=DEADLINE + 1.0,
                                        seed=4, real_decode=True),
    "storm-fork-cut": lambda: run("storm-fork-cut", "fork-90a52f44a", storm(3), tail=0.8, seed=3),
    # Healthy under the fork: every room concludes as recorded, but the
    # aborted room can be pinned by another interleaving of prefill's
    # threads (conformance's Captured tests find it). Its expectations go
    # to .captured.json, which the replay golden tests do not glob.
    "healthy-pinnable": lambda: run("healthy-pinnable", "fork-90a52f44a",
                                    [(30 + i, "ok", 0.05 * i) for i in range(6)] + [(40, "abort-late", 0.1)],
                                    tail=DEADLINE + 1.0, seed=5, expected_suffix=".captured.json"),
}


def main():
    names = sys.argv[1:] or list(SCENARIOS)
    for n in names:
        SCENARIOS[n]()


if __name__ == "__main__":
    main()
