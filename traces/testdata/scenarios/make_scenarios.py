#!/usr/bin/python3
"""Make the replay scenarios in traces/testdata/scenarios: real libzmq
sockets on loopback under tcpdump, a decode emulator and a prefill emulator.

The prefill emulator is conformance/python/prefill.py (the Python
implementation of each variant) driven by real threads: a bootstrap thread
reading a ZeroMQ PULL socket, a slow scheduler thread (it creates a
request's sender some time after decode bootstrapped it) and a transfer
worker. It is instrumented by traces/instrument/roomspec_instrument.py, which writes the
prefill event log. The decode emulator has two ranks, each with its own PUSH
socket, and sends TransferInfo and client ABORTs on a schedule.

At the end the emulators know which aborted requests prefill still holds
(pinned) and write the expected verdicts with the log (NAME.expected.json):
pinned rooms are violated when the capture ran past their deadline, else
inconclusive; every other aborted room is satisfied.

Besides the storm plans (run's plan), a scenario can give decode's schedule
message by message (run's events): per rank, per incarnation of a reused
room id, in tight bursts, or partly before the capture starts (before).

Run as root (tcpdump) with Debian's python3 and its python3-zmq:

    sudo /usr/bin/python3 traces/testdata/scenarios/make_scenarios.py [NAME...]

With --live OUTDIR --port PORT NAME it runs one scenario's emulators on
that prefill port without capturing, for a caller that captures the
traffic itself (roomspec watch's live test), and writes the log and the
expectations into OUTDIR.

The real-* scenarios run SGLang's own prefill code instead of the
emulator (roomspec's harness, conformance/sglang, free-running: real
ZeroMQ sockets, the real bootstrap thread, transfer workers and prefill.py's
scheduler functions; NIXL, torch and the model faked), instrumented by
roomspec_instrument.instrument_sglang; real-storm-mooncake-* runs
Mooncake's backend (mooncake/conn.py, its transfer engine faked) the same
way, decode speaking Mooncake's wire forms. They need SGLang's python/ folder at the commit
the scenario names (none of SGLang's code is committed here):

    sudo /usr/bin/python3 make_scenarios.py --real /path/to/sglang-at-COMMIT/python real-storm-adca19c4

With --variant V --commit C after --real, NAME is any name: ten rooms of
the same storm, their expectations under variant V (traces/instrument's
test runs each commit of roomspec history so, under the start-up hook of
python -m roomspec_instrument, which then writes the log instead).
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
                os.path.join(ROOT, "traces", "testdata"), os.path.join(ROOT, "conformance", "sglang", "harness")]

import prefill as P  # noqa: E402
import roomspec_instrument  # noqa: E402
from make_captures import Capture, nixl_transfer_info, mooncake_transfer_info, abort  # noqa: E402

DEADLINE = 2.0  # seconds: the -deadline the tests replay with
TICK = 0.02  # scheduler and worker loop period
BOTH = (0, 1)  # decode ranks a message goes to, in sending order

# The code each spec variant runs: upstream-reuse is upstream's code with a
# decode that reuses room ids (the PD re-bootstrap path).
IMPL = {"upstream-reuse": "upstream"}


class RealClock(P.Clock):
    def time(self):
        return time.monotonic()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def mooncake_as_nixl(msg):
    """Mooncake's TransferInfo (room, ip, port, session, kv idx, aux idx,
    state idx, required_dst_info_num, decode prefix len, device kv idx) in
    the frame layout prefill.py's handler reads (guard, room, ip, port,
    agent, kv idx, aux idx, required, state idx, prefix len, is_dummy):
    Mooncake keys transfer_infos[room] by session as NIXL does by agent
    name. ABORT has the same 4 frames in both backends."""
    if msg[0] in (b"ABORT", b"None", P.NIXL_MSG_GUARD):
        return msg
    return [P.NIXL_MSG_GUARD, msg[0], msg[1], msg[2], msg[3], msg[4], msg[5], msg[7], msg[6], msg[8], b"0"]


class Prefill:
    def __init__(self, variant, port, log, wire="nixl"):
        self.mgr = P.NixlKVManager(P.VARIANTS[IMPL.get(variant, variant)], RealClock(), 1)
        self.sched = P.Scheduler(self.mgr)
        self.wire = wire
        self.lock = threading.Lock()
        # (time, request, room): the request reaches the scheduler. A
        # request is (room, incarnation): a reused room id is two requests.
        self.arrivals = []
        self.crashed = None  # (request, error) once check_status raised
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
                if self.wire == "mooncake":
                    msg = mooncake_as_nixl(msg)
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
                for t, req, room in list(self.arrivals):
                    if t <= now:
                        self.arrivals.remove((t, req, room))
                        self.sched.add(req, room)
                # one iteration of the event loop: the bootstrap-queue pass
                # (a sender's poll fires the bootstrap timeout), the forward
                # pass of the waiting requests, the in-flight pass
                try:
                    for step in (self.sched.pop_bootstrapped, self._forward, self.sched.process_inflight):
                        try:
                            step()
                        except P.NotEnabled:
                            pass
                except (KeyError, RuntimeError) as e:
                    # common/Mooncake check_status on an absent room, or
                    # an "Unexpected poll state": the exception escapes
                    # the event loop, prefill dies
                    self.crashed = (None, repr(e))
                    return
            time.sleep(TICK)

    def _forward(self):
        for req in list(self.sched.waiting_queue):
            self.sched.run_batch(req)

    def worker(self):
        while not self.stop.is_set():
            now = time.monotonic()
            with self.lock:
                # one worker queue, FIFO; the worker waits on a chunk's
                # writes before it takes the next chunk
                while self.mgr.transfer_queue and not self.writes:
                    req = self.mgr.transfer_queue[0]
                    try:
                        self.mgr.transfer_worker_post(req)
                        if self.mgr.inflight_writes.get(req):
                            self.writes[req] = now + 0.05
                    except P.NotEnabled:
                        break
                for req, t in list(self.writes.items()):
                    if t <= now:
                        del self.writes[req]
                        try:
                            self.mgr.transfer_worker_complete(req)
                        except P.NotEnabled:
                            pass
            time.sleep(TICK / 2)


class RealPrefill:
    """SGLang's real prefill code (conformance/sglang's harness,
    free-running) with what run_real drives: arrivals, held requests, a
    crash. Its PULL socket is SGLang's own, on the port SGLang picks."""

    def __init__(self, source, log, env, backend="nixl"):
        from roomspec_sglang.live import LivePrefill

        self.undo = lambda: None

        def instrument(h):
            self.undo = roomspec_instrument.instrument_sglang(h.prefill, h.conn,
                                                              h.loader.module("disaggregation.common.utils"), log)

        env = dict(env, SGLANG_HOST_IP="127.0.0.1")
        self.live = LivePrefill(source, env=env, instrument=instrument if log is not None else None,
                                backend=backend)
        self.port = self.live.port

    @property
    def crashed(self):
        return self.live.crashed

    def start(self):
        self.live.start()

    def arrive(self, req, room):
        self.live.arrive(req, room)

    def held(self):
        return self.live.held()

    def join(self):
        self.live.join()
        self.undo()


def plan_events(plan):
    """The decode events of a storm plan (see run)."""
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
    return [(t, what, room, 1, BOTH) for t, what, room in events]


def run(name, variant, plan, tail, seed, real_decode=False, expected_suffix=".expected.json",
        wire="nixl", events=None, before=None, lead=0.5, port=None, outdir=HERE, capture=True):
    """plan: list of (room, kind, t) with kind "ok" (TransferInfo from both
    ranks at t), "abort-early" (ABORTs at t, before any TransferInfo) or
    "abort-late" (TransferInfo at t, ABORTs 0.15 s later); the request
    reaches prefill's scheduler 0.3 s after t (slow scheduler). With
    real_decode, the decode ranks announce real loopback endpoints where
    they listen for ABORT_ACKs (variants that send them). expected_suffix names
    the suffix of the expectations file.

    wire: "nixl" or "mooncake", the form of decode's TransferInfo.

    events (instead of plan): decode's schedule message by message, a list
    of (t, what, room, incarnation, ranks): what "ti" or "abort" is sent at
    t on the sockets of ranks (a tuple of decode rank indices, in sending
    order; events of one t go out in list order with no sleep between);
    "arrive" hands the request (room, incarnation) to prefill's scheduler.
    A room id with incarnation 2 is reused (a second request of the same
    room id; the schedule must start it after decode aborted incarnation 1).

    before: events played before the capture starts (the connections are
    then up, so the capture has no greeting for them); events' times are
    then counted from the capture's start. The event log covers the whole
    run, as a prefill's log outlives an ad hoc capture; the expectations
    cover the rooms aborted inside the capture (pinned_before_capture
    lists the requests aborted before it that prefill still holds). The capture's
    first lead seconds carry only ZMTP heartbeats (PINGs every 200 ms). On
    a connection seen mid-stream the decoder resynchronizes at the end of
    the first message after a chain of six non-empty frames
    (traces/zmtp/resync.go): that message is not decoded, so the inside
    events should open with a message whose loss the expectations do not
    depend on.

    port, outdir, capture: the prefill's PULL port (default: a free one),
    where the log and the expectations go, and whether to capture (live
    mode: the caller captures, e.g. tcpdump -w - into roomspec watch)."""
    rng = random.Random(seed)
    P.BOOTSTRAP_TIMEOUT = 1.0  # scaled down with the deadline
    port = port or free_port()
    dports = [free_port() for _ in range(2)] if real_decode else [17000, 17001]
    pcap = os.path.join(outdir, name + ".pcap")
    logpath = os.path.join(outdir, name + ".events.jsonl")
    bpf = " or ".join("tcp port %d" % p for p in [port] + (dports if real_decode else []))
    cap = Capture(pcap, "lo", bpf) if before is None and capture else None
    logf = open(logpath, "w")
    log = roomspec_instrument.EventLog(logf, host="prefill-0", role="prefill", rank=0)
    undo = roomspec_instrument.instrument(P, log)
    pre = Prefill(variant, port, log, wire=wire)
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
    aborted = {}  # request -> time of its first ABORT
    inside = set()  # requests aborted while the capture ran

    def play(evs, capturing):
        t0 = time.monotonic()
        for t, what, room, inc, rks in sorted(evs, key=lambda e: e[0]):
            delay = t0 + t - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            if what == "arrive":
                with pre.lock:
                    pre.arrivals.append((time.monotonic(), (room, inc), room))
                continue
            for i in rks:
                sock, ip, dport, agent = ranks[i]
                if what == "ti" and wire == "mooncake":
                    _, parts = mooncake_transfer_info(rng, room, ip, dport, "decode-session-%d" % i, required=2)
                elif what == "ti":
                    _, parts = nixl_transfer_info(rng, room, ip, dport, agent, required=2)
                else:
                    _, parts = abort(room, ip, dport)
                    aborted.setdefault((room, inc), time.time())
                    if capturing:
                        inside.add((room, inc))
                sock.send_multipart(parts)

    if before is not None:
        play(before, False)
        time.sleep(0.3)  # let prefill settle what it can before the capture
        cap = Capture(pcap, "lo", bpf) if capture else None
        time.sleep(lead)
    play(plan_events(plan) if events is None else events, True)
    time.sleep(tail)
    with pre.lock:
        held = {req for req in pre.sched.senders if pre.sched.position(req) != "Released"}
        end = time.time()
    pre.join()
    for sock, *_ in ranks:
        sock.close(linger=1000)
    for ln in listeners:
        ln.close(linger=0)
    undo()
    if cap:
        cap.stop()
    if logf is not None:
        logf.close()
    if pre.crashed:
        raise RuntimeError("%s: prefill crashed in its scheduler: request %s, %s" % (name, *pre.crashed))
    pinned_at = {}  # room -> first ABORT of its aborted requests prefill still holds
    for req, t in aborted.items():
        if req in held and req in inside:
            pinned_at[req[0]] = min(t, pinned_at.get(req[0], t))
    pinned = sorted(pinned_at)
    expected = {}
    for room in sorted({req[0] for req in inside}):
        if room in pinned:
            expected[str(room)] = "violated" if end - pinned_at[room] >= DEADLINE + 0.1 else "inconclusive"
        else:
            expected[str(room)] = "satisfied"
    out = {"variant": variant, "deadline": "%gs" % DEADLINE, "pinned": pinned, "with_log": expected}
    if before is not None:
        out["pinned_before_capture"] = sorted([r, i] for r, i in held & (set(aborted) - inside))
    with open(os.path.join(outdir, name + expected_suffix), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(name, variant, "pinned", pinned, "expected", expected,
          "held", sorted(held, key=str), "aborted", sorted(aborted, key=str))


def run_real(name, variant, events, tail, real, outdir=HERE):
    """run() for SGLang's real code: real["source"] is its python/ folder,
    real["env"] its environment, real["commit"] the commit it is,
    real["backend"] the backend whose conn.py runs ("nixl", the default, or
    "mooncake"). Decode registers each rank first (the real worker needs
    the registration), and sends TransferInfos the real handler accepts
    (decode prefix 0), in the backend's wire form."""
    from roomspec_sglang import driver, mooncake
    from roomspec_sglang.driver import TOKENS_PER_CHUNK

    backend = real.get("backend", "nixl")
    if backend == "mooncake":
        # A decode rank's Mooncake session id names its transfer engine
        # (faked here): "ip:port", one port per rank.
        def registration(guard, addr, agent, i):
            return mooncake.registration_frames(addr, agent, i)

        def transfer_info(guard, room, addr, agent, k, tokens, required):
            return mooncake.transfer_info_frames(room, addr, agent, k, tokens, required)

        def agent_name(i):
            return "127.0.0.1:%d" % (mooncake.SESSION_PORT + i)
    else:
        registration, transfer_info = driver.registration_frames, driver.transfer_info_frames

        def agent_name(i):
            return "decode-agent-%d" % i

    if not real.get("source"):
        raise SystemExit("%s: give SGLang's python/ folder at commit %s with --real" % (name, real["commit"]))
    pcap = os.path.join(outdir, name + ".pcap")
    logf = log = None
    if not roomspec_instrument.active():
        logf = open(os.path.join(outdir, name + ".events.jsonl"), "w")
        log = roomspec_instrument.EventLog(logf, host="prefill-0", role="prefill", rank=0)
    # else: run under python -m roomspec_instrument --log OUTDIR/NAME.events.jsonl,
    # whose start-up hook instruments SGLang's code as it is imported.
    pre = RealPrefill(real["source"], log, real.get("env", {}), backend=backend)
    dports = [free_port() for _ in range(2)]
    cap = Capture(pcap, "lo", " or ".join("tcp port %d" % p for p in [pre.port] + dports))
    pre.start()
    ctx = zmq.Context.instance()
    ranks, listeners = [], []
    for i in range(2):
        ln = ctx.socket(zmq.PULL)  # ABORT_ACKs, where the code sends them
        ln.bind("tcp://127.0.0.1:%d" % dports[i])
        listeners.append(ln)
        sock = ctx.socket(zmq.PUSH)
        sock.setsockopt(zmq.HEARTBEAT_IVL, 200)
        sock.connect("tcp://127.0.0.1:%d" % pre.port)
        agent = agent_name(i)
        sock.send_multipart(registration(pre.live.guard, ("127.0.0.1", dports[i]), agent, i))
        ranks.append((sock, dports[i], agent))
    time.sleep(0.3)
    aborted, index = {}, {}
    t0 = time.monotonic()
    for t, what, room, inc, rks in sorted(events, key=lambda e: e[0]):
        delay = t0 + t - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        if what == "arrive":
            pre.arrive((room, inc), room)
            continue
        for i in rks:
            sock, dport, agent = ranks[i]
            if what == "ti":
                k = index.setdefault((room, inc), len(index))
                parts = transfer_info(pre.live.guard, room, ("127.0.0.1", dport), agent, k,
                                      TOKENS_PER_CHUNK, 2)
            else:
                _, parts = abort(room, "127.0.0.1", dport)
                aborted.setdefault((room, inc), time.time())
            sock.send_multipart(parts)
    time.sleep(tail)
    held = pre.held()
    end = time.time()
    pre.join()
    for sock, *_ in ranks:
        sock.close(linger=1000)
    for ln in listeners:
        ln.close(linger=0)
    cap.stop()
    if logf is not None:
        logf.close()
    if pre.crashed:
        raise RuntimeError("%s: prefill crashed in its scheduler: %s" % (name, pre.crashed))
    pinned_at = {}
    for req, t in aborted.items():
        if req in held:
            pinned_at[req[0]] = min(t, pinned_at.get(req[0], t))
    pinned = sorted(pinned_at)
    expected = {}
    for room in sorted({req[0] for req in aborted}):
        if room in pinned:
            expected[str(room)] = "violated" if end - pinned_at[room] >= DEADLINE + 0.1 else "inconclusive"
        else:
            expected[str(room)] = "satisfied"
    latency = {}  # room -> seconds from its first ABORT to its release, as prefill saw them
    for req, t in aborted.items():
        if req in pre.live.released_at:
            latency[str(req[0])] = round(pre.live.released_at[req] - t, 4)
    out = {"variant": variant, "deadline": "%gs" % DEADLINE, "pinned": pinned, "with_log": expected,
           "sglang_commit": real["commit"], "released_after_abort_s": latency}
    if backend != "nixl":
        out["sglang_backend"] = backend
    with open(os.path.join(outdir, name + ".expected.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    print(name, variant, "pinned", pinned, "expected", expected)


def real_storm(seed, rooms=40):
    """rooms rooms (40: 32 aborted), 0.05 s apart, four of each five
    aborted at different points of their life: before any TransferInfo;
    after both TransferInfos, before the request reaches the scheduler;
    while it is transferring; after only rank 0's TransferInfo. Requests
    reach the scheduler 0.3 s after their first message; one room in five
    is never aborted."""
    rng = random.Random(seed)
    out = []
    for k in range(rooms):
        room, t = 700 + k, 0.05 * k + rng.random() * 0.01
        kind = k % 5
        if kind == 0:
            out += [ev(t, "ti", room), ev(t + 0.3, "arrive", room)]
        elif kind == 1:
            out += [ev(t, "abort", room), ev(t + 0.3, "arrive", room)]
        elif kind == 2:
            out += [ev(t, "ti", room), ev(t + 0.15, "abort", room), ev(t + 0.3, "arrive", room)]
        elif kind == 3:
            out += [ev(t, "ti", room), ev(t + 0.3, "arrive", room), ev(t + 0.36, "abort", room)]
        else:
            out += [ev(t, "ti", room, ranks=(0,)), ev(t + 0.1, "abort", room), ev(t + 0.3, "arrive", room)]
    return out


def storm(seed):
    rng = random.Random(seed)
    plan = []
    for i in range(12):
        kind = ["ok", "abort-early", "abort-late"][i % 3]
        plan.append((100 + i, kind, 0.05 * i + rng.random() * 0.02))
    return plan


def ev(t, what, room, inc=1, ranks=BOTH):
    return (t, what, room, inc, ranks)


def midstream(seed):
    """Decode's schedule around a capture that starts mid-stream: (before,
    inside). Before the capture: rooms 300-302 wholly (abort-early,
    abort-late, ok), TransferInfo of 310-312 from both ranks and of 320-321
    from rank 0 only. Inside it: first room 309's TransferInfo (the first
    message of each connection, which the decoder's resync does not
    decode; 309 is never aborted, its log events show), then ABORTs of 310
    (long done), 311 (before its request reaches the scheduler) and 312
    (while it runs); rank 1's TransferInfo of 320 then both ABORTs; both
    ABORTs of 321, whose rank 1 never sent TransferInfo; then a storm of
    rooms 330-341 wholly inside. As in the spec, decode aborts once, on
    every rank, and sends no TransferInfo after it."""
    before = [
        ev(0.00, "abort", 300), ev(0.30, "arrive", 300),
        ev(0.02, "ti", 301), ev(0.17, "abort", 301), ev(0.32, "arrive", 301),
        ev(0.04, "ti", 302), ev(0.34, "arrive", 302),
        ev(0.06, "ti", 310), ev(0.36, "arrive", 310),
        ev(0.08, "ti", 311),
        ev(0.10, "ti", 312),
        ev(0.12, "ti", 320, ranks=(0,)),
        ev(0.14, "ti", 321, ranks=(0,)),
    ]
    inside = [
        ev(0.00, "ti", 309), ev(0.30, "arrive", 309),
        ev(0.05, "abort", 310),
        ev(0.10, "abort", 311), ev(0.25, "arrive", 311),
        ev(0.05, "arrive", 312), ev(0.10, "abort", 312),
        ev(0.05, "ti", 320, ranks=(1,)), ev(0.20, "abort", 320), ev(0.35, "arrive", 320),
        ev(0.10, "abort", 321), ev(0.40, "arrive", 321),
    ]
    inside += plan_events([(room + 230, kind, 0.5 + t) for room, kind, t in storm(seed)])
    return before, inside


def reuse(seed):
    """Decode re-bootstraps rooms under the same id (incarnation 2 after it
    aborted incarnation 1; requests reach prefill's scheduler 0.3 s after
    their TransferInfo would):
      retry-after-success  400-402: ABORT 1 once prefill concluded it, then TI 2
      retry-early          403-410: ABORT 1 before any TI, TI 2 d later
                           (d = 30..170 ms), request 2 reaching the scheduler
                           once request 1 concluded (while request 1 is
                           Transferring, request 2's bootstrap poll would
                           raise RuntimeError and kill prefill), ABORT 2
                           1.4 s after ABORT 1 (decode's waiting timeout)
      retry-late           411-412: TI 1, ABORT 1, TI 2, all before prefill's
                           scheduler has request 1
      retry-released       413-414: TI 1, ABORT 1 just before request 1
                           reaches the scheduler, TI 2 once it was released,
                           request 2 0.9 s later. (ABORT 1 while request 1's
                           write is in flight makes that write re-insert the
                           cleared room as Success, and request 2's bootstrap
                           poll then raises RuntimeError: prefill dies.)
      ok                   415: no reuse, no abort
      reversed             416: request 2 reaches the scheduler first (its
                           sender, then ABORT 1), request 1 afterwards. With
                           the per-request emulator this pinned the room
                           (request 2's failure cleared it between the two
                           requests' polls); polled as a whole queue, as
                           poll_and_all_reduce does, both read the timeout's
                           Failed and are released: the pin Room.tla finds
                           under reuse (upstream-reuse) needs request 1 past
                           the bootstrap queue when ABORT 1 lands."""
    rng = random.Random(seed)
    out = []
    for k in range(17):
        room, t = 400 + k, 0.07 * k + rng.random() * 0.01
        if k < 3:
            out += [ev(t, "ti", room), ev(t + 0.3, "arrive", room), ev(t + 0.6, "abort", room),
                    ev(t + 0.65, "ti", room, 2), ev(t + 0.95, "arrive", room, 2)]
        elif k < 11:
            d = 0.03 + 0.02 * (k - 3)
            out += [ev(t, "abort", room), ev(t + d, "ti", room, 2), ev(t + 0.3, "arrive", room),
                    ev(t + 1.2, "arrive", room, 2), ev(t + 1.4, "abort", room, 2)]
        elif k < 13:
            out += [ev(t, "ti", room), ev(t + 0.15, "abort", room), ev(t + 0.2, "ti", room, 2),
                    ev(t + 0.3, "arrive", room), ev(t + 0.5, "arrive", room, 2)]
        elif k < 15:
            out += [ev(t, "ti", room), ev(t + 0.2, "abort", room), ev(t + 0.3, "arrive", room),
                    ev(t + 0.36, "ti", room, 2), ev(t + 1.2, "arrive", room, 2)]
        elif k < 16:
            out += [ev(t, "ti", room), ev(t + 0.3, "arrive", room)]
        else:
            # Request 2 reaches prefill's scheduler before request 1 and
            # before the bootstrap thread handled ABORT 1 (see above).
            out += [ev(t, "arrive", room, 2), ev(t + 0.005, "abort", room), ev(t + 0.1, "arrive", room)]
    return out


def burst(seed):
    """Rooms 600-623, 50 ms apart: each room's messages in one burst with no
    sleep between (TI rank 0, TI rank 1, ABORT rank 0, ABORT rank 1), every
    fourth room without ABORTs; requests reach the scheduler 0.3 s later."""
    rng = random.Random(seed)
    out = []
    for k in range(24):
        room, t = 600 + k, 0.05 * k + rng.random() * 0.01
        out += [ev(t, "ti", room, ranks=(0,)), ev(t, "ti", room, ranks=(1,))]
        if k % 4 != 3:
            out += [ev(t, "abort", room, ranks=(0,)), ev(t, "abort", room, ranks=(1,))]
        out.append(ev(t + 0.3, "arrive", room))
    return out


SCENARIOS = {
    "healthy": lambda **kw: run("healthy", "upstream", [(10 + i, "ok", 0.05 * i) for i in range(6)]
                           + [(20, "abort-late", 0.1)], tail=DEADLINE + 1.0, seed=1, **kw),
    "storm-fork": lambda **kw: run("storm-fork", "fork-90a52f44a", storm(2), tail=DEADLINE + 1.0, seed=2, **kw),
    "storm-fixed": lambda **kw: run("storm-fixed", "fixed", storm(2), tail=DEADLINE + 1.0, seed=2, **kw),
    "storm-fixed-deferred": lambda **kw: run("storm-fixed-deferred", "fixed-deferred", storm(4), tail=DEADLINE + 1.0,
                                        seed=4, real_decode=True, **kw),
    "storm-fork-cut": lambda **kw: run("storm-fork-cut", "fork-90a52f44a", storm(3), tail=0.8, seed=3, **kw),
    # Healthy under the fork: every room concludes as recorded, but the
    # aborted room can be pinned by another interleaving of prefill's
    # threads (conformance's Captured tests find it). Its expectations go
    # to .captured.json, which the replay golden tests do not glob.
    "healthy-pinnable": lambda **kw: run("healthy-pinnable", "fork-90a52f44a",
                                    [(30 + i, "ok", 0.05 * i) for i in range(6)] + [(40, "abort-late", 0.1)],
                                    tail=DEADLINE + 1.0, seed=5, expected_suffix=".captured.json", **kw),
    # Mooncake wire forms (10-frame TransferInfo without guard, 4-frame
    # ABORT), under the mooncake variant as Mooncake's real code showed it
    # (Room.tla, MOONCAKE): no ABORT_ACK decode acts on (the real code's
    # 2-frame ACK, only logged by decode, is not emulated).
    # The storm has no reuse, so no live sender's room is ever absent and
    # check_status never raises KeyError (run fails if it does).
    "storm-mooncake": lambda **kw: run("storm-mooncake", "mooncake", storm(6), tail=DEADLINE + 1.0, seed=6,
                                  real_decode=True, wire="mooncake", **kw),
    # Connections up and rooms bootstrapped before the capture starts.
    "midstream-fork": lambda **kw: run("midstream-fork", "fork-90a52f44a", None, tail=DEADLINE + 1.0, seed=7,
                                  events=midstream(7)[1], before=midstream(7)[0], **kw),
    # Room ids reused on purpose (PD re-bootstrap) under upstream's code.
    "reuse-upstream": lambda **kw: run("reuse-upstream", "upstream-reuse", None, tail=DEADLINE + 1.0, seed=8,
                                  events=reuse(8), **kw),
    # Each room's messages in one burst from both ranks: the capture
    # reorders messages across connections.
    "burst-fork": lambda **kw: run("burst-fork", "fork-90a52f44a", None, tail=DEADLINE + 1.0, seed=9,
                              events=burst(9), **kw),
}


# SGLang's real code at two commits (give its python/ folder with --real).
REAL = {
    # PR #35360: every aborted room released, the slowest by the bootstrap
    # timeout (1 s here).
    "real-storm-adca19c4": dict(variant="sglang-35360", commit="adca19c4970933fa1990fecf3541b527d3153594"),
    # Before PR #34692 (a82f8e177^): no bootstrap timeout, so a room whose
    # ABORTs reached prefill before its sender existed stays Bootstrapping.
    "real-storm-69a31ce34": dict(variant="sglang-30545", commit="69a31ce342e7"),
    # The same, ten rooms: the README's first command.
    "real-small-69a31ce34": dict(variant="sglang-30545", commit="69a31ce342e7", rooms=10),
    # Mooncake's backend (mooncake/conn.py) at the same commit as the
    # first: its own wire forms, its transfer engine faked.
    "real-storm-mooncake-adca19c4": dict(variant="mooncake", commit="adca19c4970933fa1990fecf3541b527d3153594",
                                         backend="mooncake"),
}
REAL_SOURCE = None


def real_scenario(name, variant=None, commit=None):
    """The real-code scenario name of REAL, or, given variant and commit
    (--variant, --commit: any commit, e.g. those of roomspec history), a
    storm of ten rooms under that name."""
    r = REAL[name] if name in REAL else dict(variant=variant, commit=commit, rooms=10)

    def make(outdir=HERE, **kw):
        run_real(name, r["variant"], real_storm(11, r.get("rooms", 40)), DEADLINE + 1.5,
                 dict(source=REAL_SOURCE, commit=r["commit"], env={"SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT": "1"},
                      backend=r.get("backend", "nixl")),
                 outdir=outdir)
    return make


def main():
    global REAL_SOURCE
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--real":
        REAL_SOURCE, args = args[1], args[2:]
    real_as = {}
    while len(args) >= 2 and args[0] in ("--variant", "--commit"):
        real_as[args[0][2:]], args = args[1], args[2:]
    kw = {}
    # --live OUTDIR --port PORT NAME: run scenario NAME's emulators on the
    # given prefill port without capturing (the caller captures), writing
    # the log and the expectations into OUTDIR.
    while args and args[0] in ("--live", "--port"):
        if len(args) < 2:
            sys.exit("usage: make_scenarios.py [--live OUTDIR --port PORT] [NAME...]")
        if args[0] == "--live":
            kw.update(outdir=args[1], capture=False)
        else:
            kw["port"] = int(args[1])
        args = args[2:]
    names = args or list(SCENARIOS)
    real = False
    for n in names:
        if n in REAL or real_as:
            real_scenario(n, **real_as)(**{k: v for k, v in kw.items() if k == "outdir"})
            real = True
            continue
        SCENARIOS[n](**kw)
    if real:
        # SGLang's bootstrap thread is not a daemon and never returns: leave
        # without waiting for it.
        sys.stdout.flush()
        os._exit(0)


if __name__ == "__main__":
    main()
