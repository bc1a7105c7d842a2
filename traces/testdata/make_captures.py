#!/usr/bin/python3
"""Make the real test captures in traces/testdata/captures.

Starts real libzmq PUSH/PULL peers on loopback under tcpdump (or dumpcap for
pcapng), sends SGLang-format control messages and writes, next to each
capture, the sender's ground truth: every multipart message sent, per
connection, in the order it was sent.

Run as root (tcpdump needs it) with Debian's python3 and its python3-zmq:

    sudo /usr/bin/python3 traces/testdata/make_captures.py            # all small scenarios
    sudo /usr/bin/python3 traces/testdata/make_captures.py nixl_ranks # one scenario
    sudo /usr/bin/python3 traces/testdata/make_captures.py --large 1000000
    sudo /usr/bin/python3 traces/testdata/make_captures.py --rooms 10000

--large N writes traces/testdata/large/large_N.pcap (not committed), the
benchmark input of the decoder and of the replay: about N messages of valid
room lifecycles over 12 connections. Prefill rank 0 has one PULL socket; three
decode instances of two ranks each have one PUSH socket to it and a PULL socket
of their own, to which prefill has one PUSH socket; each rank announces its own
PULL endpoint. Each decode rank registers; then distinct 63-bit room ids,
round-robin over the instances: TransferInfo (11 frames, required_dst_info_num
2) from both ranks; every fourth room then a 4-frame ABORT from both ranks, sent
once prefill received both TransferInfos, and prefill answers each ABORT it
receives with a 3-frame ABORT_ACK to the rank that sent it. Its ground truth is
only counts (large_N.json: messages, rooms, aborted, connections).
--rooms N writes large/rooms_N.pcap: the same lifecycle for N rooms on one
decode instance of two ranks, paced at 250 rooms/s.

Ground truth (NAME.truth.jsonl) has one JSON object per message sent:
  conn            "SRC_IP:SRC_PORT->DST_IP:DST_PORT" (sender's local address first;
                  IPv6 addresses in brackets)
  seq             0-based index of the message on its connection
  kind            what the generator meant to send (Registration, TransferInfo, ...)
  parts           base64 of each frame body
  before_capture  true if it was sent before the capture started (midstream only)
"""

import argparse
import base64
import collections
import json
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

import zmq
from zmq.utils.monitor import recv_monitor_message

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "captures")
LARGE = os.path.join(HERE, "large")

# ---------------------------------------------------------------------------
# SGLang message builders (../shared/design/ROOM-LIFECYCLE.md, "Wire formats").


def b(x):
    return str(x).encode()


def u64s(xs):
    return b"".join(struct.pack("<Q", x) for x in xs)


def i32s(xs):
    return b"".join(struct.pack("<i", x) for x in xs)


def u32s(xs):
    return b"".join(struct.pack("<I", x) for x in xs)


def pack_int_lists(lists, fmt):
    """SGLang's pack_int_lists: empty for [], else (n+1) u32 LE header + lists."""
    if not lists:
        return b""
    bodies = [b"".join(struct.pack("<" + fmt, v) for v in l) for l in lists]
    head = struct.pack("<I", len(lists)) + b"".join(struct.pack("<I", len(x)) for x in bodies)
    return head + b"".join(bodies)


def nixl_registration(rng, ip, port, agent, rank, meta_len=600, staging=True, tp=4):
    return ("Registration", [
        b"NixlMsgGuard", b"None", b(ip), b(port), agent.encode(),
        rng.randbytes(meta_len),                          # agent metadata (opaque)
        u64s([rng.getrandbits(48) << 8 for _ in range(4)]),  # kv ptrs
        u64s([rng.getrandbits(48) << 8]),                  # aux ptrs
        pack_int_lists([[rng.getrandbits(40)], [rng.getrandbits(40), 7]], "Q"),  # state ptrs
        b(rank % 8),                                       # gpu id
        b(tp),                                             # attn tp size
        b(rank),                                           # engine rank
        b"131072",                                         # kv item len
        pack_int_lists([[4096, 4096]], "I"),               # state item lens
        pack_int_lists([[128, 64]], "I"),                  # state dims
        u64s([0x7f0000000000 + rank]) if staging else b"",  # staging base ptr
        b"1048576" if staging else b"0",                   # staging size
        b"64",                                             # num slots
        b"VRAM,VRAM",                                      # mem kinds
        u64s([131072, 131072]),                            # kv item lens
        pack_int_lists([[0, 1]], "I"),                     # state layer ids
        u32s(list(range(8))),                              # kv layer ids
        b"1",                                              # dcp size
        b"0",                                              # dcp rank
    ])


def nixl_transfer_info(rng, room, ip, port, agent, npages=8, required=1, old=False, dummy=False):
    pages = [] if dummy else [rng.randrange(1 << 20) for _ in range(npages)]
    parts = [
        b"NixlMsgGuard", b(room), b(ip), b(port), agent.encode(), i32s(pages),
        b(rng.randrange(1024)), b(required),
        pack_int_lists([[rng.randrange(1000) for _ in range(3)]], "i") if rng.random() < 0.5 else b"",
        b(rng.randrange(4096)), b"1" if dummy else b"0",
    ]
    return ("TransferInfo", parts[:8] if old else parts)


def abort(room, ip=None, port=None):
    if ip is None:
        return ("Abort", [b"ABORT", b(room)])
    return ("Abort", [b"ABORT", b(room), b(ip), b(port)])


def abort_ack(room, rank=None):
    if rank is None:
        return ("AbortAck", [b"ABORT_ACK", b(room)])
    return ("AbortAck", [b"ABORT_ACK", b(room), b(rank)])


def watermark(rnd, tail, session):
    return ("Watermark", [b"WATERMARK", b(rnd), b(tail), session.encode()])


def staging_rsp(room, chunk, offset, rnd, end, session):
    return ("StagingRsp", [b"STAGING_RSP", b(room), b(chunk), b(offset), b(rnd), b(end), session.encode()])


def mooncake_registration(rng, ip, port, session):
    # Mooncake frames carry no guard: registration starts with "None".
    # Layout of SGLang's KVArgsRegisterInfo.from_zmq (mooncake/conn.py), the
    # 10 required frames.
    return ("MooncakeRegistration", [
        b"None", b(ip), b(port), session.encode(),
        u64s([rng.getrandbits(48) << 8 for _ in range(4)]),  # kv ptrs
        u64s([rng.getrandbits(48) << 8]),                  # aux ptrs
        pack_int_lists([[rng.getrandbits(40)]], "Q"),      # state ptrs
        b"0", b"2", b"131072",                             # tp rank, attn tp size, kv item len
    ])


def mooncake_transfer_info(rng, room, ip, port, session, npages=6, required=1):
    return ("MooncakeTransferInfo", [
        b(room), b(ip), b(port), session.encode(),
        i32s([rng.randrange(1 << 20) for _ in range(npages)]),
        b(rng.randrange(1024)), b"", b(required), b(rng.randrange(4096)),
        i32s([rng.randrange(1 << 20) for _ in range(npages)]),
    ])


def mooncake_status(room, status, rank):
    return ("MooncakeStatus", [b(room), b(status), b(rank)])


# AUX_DATA and CHUNK_READY: ROOM-LIFECYCLE.md names them without a layout;
# these follow SGLang's send_aux_data_to_endpoint and _send_chunk_ready
# (mooncake/conn.py) as traces/wire reads them.
def aux_data(rng, room, buf_idx, aux_idx, n=64):
    data = rng.randbytes(n)
    return ("AuxData", [b"AUX_DATA", b(room), b(buf_idx), b(aux_idx), struct.pack(">I", n), data])


def chunk_ready(room, chunk, first_page, npages, session):
    return ("ChunkReady", [b"CHUNK_READY", b(room), b(chunk), b(first_page), b(npages), session.encode()])


# ---------------------------------------------------------------------------
# Capture process control.


class Capture:
    """tcpdump (pcap) or dumpcap (pcapng) on an interface, with a BPF filter."""

    def __init__(self, path, iface, bpf, tool="tcpdump", nano=False, linktype=None):
        self.path = path
        if tool == "tcpdump":
            cmd = ["tcpdump", "-U", "-n", "-B", "65536", "-s", "262144", "-i", iface, "-w", path]
            if nano:
                cmd += ["--time-stamp-precision=nano"]
            if linktype:
                cmd += ["-y", linktype]
            cmd += [bpf]
            ready = "listening on"
        else:
            cmd = ["dumpcap", "-q", "-B", "64", "-s", "262144", "-i", iface,
                   "-f", bpf, "-w", path]
            ready = "Capturing on"
        self.tool = tool
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        self.lines = []
        # Wait for the tool to say it is listening: before that, packets are lost.
        while True:
            line = self.proc.stderr.readline()
            if not line:
                raise RuntimeError("%s exited: %s" % (tool, "".join(self.lines)))
            self.lines.append(line)
            if ready in line:
                break
        time.sleep(0.3)

    def stop(self, drain=0.7):
        # Let the last segments and their ACKs reach the capture buffer. A
        # long capture needs drain > 1 s: libpcap's TPACKET_V3 ring hands a
        # partly filled block to tcpdump only when its 1 s timeout expires,
        # and tcpdump exits on SIGINT without reading the open block.
        time.sleep(drain)
        self.proc.send_signal(signal.SIGINT)
        rest = self.proc.stderr.read()
        self.proc.wait()
        out = "".join(self.lines) + rest
        if self.tool == "tcpdump":
            dropped = [l for l in out.splitlines() if "dropped by kernel" in l]
            if not dropped or not dropped[0].strip().startswith("0 "):
                raise RuntimeError("tcpdump dropped packets or said nothing:\n" + out)
        else:
            # dumpcap -q prints "Packets captured: N" / "Packets received/dropped ... N/M (x%)".
            ok = False
            for l in out.splitlines():
                if "received/dropped" in l:
                    counts = l.rsplit("': ", 1)[1].split()[0]  # "N/M"
                    ok = counts.split("/")[1] == "0"
            if not ok:
                raise RuntimeError("dumpcap dropped packets or said nothing:\n" + out)
        sys.stderr.write(out)


def fmt_addr(addr):
    host, port = addr[0], addr[1]
    if ":" in host:
        host = "[%s]" % host
    return "%s:%d" % (host, port)


class Scenario:
    """Owns the sockets of one scenario and records what each PUSH sends."""

    def __init__(self, name, ipv6=False):
        self.name = name
        self.ctx = zmq.Context()
        self.ipv6 = ipv6
        self.host = "::1" if ipv6 else "127.0.0.1"
        self.pulls = []   # (socket, port)
        self.pushes = []  # Conn
        self.truth = []
        self.sent = 0
        self.capturing = True

    def pull(self):
        s = self.ctx.socket(zmq.PULL)
        s.setsockopt(zmq.IPV6, 1 if self.ipv6 else 0)
        s.setsockopt(zmq.RCVHWM, 0)
        port = s.bind_to_random_port("tcp://" + ("[::1]" if self.ipv6 else "127.0.0.1"),
                                     min_port=20000, max_port=40000)
        self.pulls.append((s, port))
        return port

    def push(self, port):
        """Connects a new PUSH socket (one TCP connection) to port."""
        s = self.ctx.socket(zmq.PUSH)
        s.setsockopt(zmq.IPV6, 1 if self.ipv6 else 0)
        s.setsockopt(zmq.SNDHWM, 0)
        s.setsockopt(zmq.LINGER, 5000)
        mon = s.get_monitor_socket(zmq.EVENT_CONNECTED)
        s.connect("tcp://%s:%d" % ("[::1]" if self.ipv6 else "127.0.0.1", port))
        # The CONNECTED event carries the fd: its local address names the connection.
        while True:
            ev = recv_monitor_message(mon)
            if ev["event"] == zmq.EVENT_CONNECTED:
                fd = ev["value"]
                break
        fam = socket.AF_INET6 if self.ipv6 else socket.AF_INET
        dup = socket.fromfd(fd, fam, socket.SOCK_STREAM)
        local, remote = dup.getsockname(), dup.getpeername()
        dup.close()
        s.disable_monitor()
        mon.close()
        c = Conn(self, s, fmt_addr(local) + "->" + fmt_addr(remote))
        self.pushes.append(c)
        return c

    def drain(self):
        """Receives every message sent so far on the PULL sockets."""
        poller = zmq.Poller()
        for s, _ in self.pulls:
            poller.register(s, zmq.POLLIN)
        got = 0
        deadline = time.time() + 30
        while got < self.sent:
            if time.time() > deadline:
                raise RuntimeError("only %d of %d messages arrived" % (got, self.sent))
            for s, _ in poller.poll(1000):
                while True:
                    try:
                        s.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    got += 1
        self.sent = 0

    def close(self):
        for c in self.pushes:
            c.sock.close()
        for s, _ in self.pulls:
            s.close()
        self.ctx.term()

    def write_truth(self, path):
        with open(path, "w") as f:
            for t in self.truth:
                f.write(json.dumps(t, sort_keys=True) + "\n")


class Conn:
    def __init__(self, sc, sock, name):
        self.sc, self.sock, self.name, self.seq = sc, sock, name, 0

    def send(self, msg):
        kind, parts = msg
        self.sock.send_multipart(parts)
        self.sc.truth.append({
            "conn": self.name, "seq": self.seq, "kind": kind,
            "parts": [base64.b64encode(p).decode() for p in parts],
            "before_capture": not self.sc.capturing,
        })
        self.seq += 1
        self.sc.sent += 1


def bpf_ports(ports):
    return "tcp and (" + " or ".join("port %d" % p for p in ports) + ")"


# ---------------------------------------------------------------------------
# Scenarios.


def nixl_ranks(rng, path, **kw):
    """4 decode ranks -> 1 prefill PULL port: registration, TransferInfo (11 and
    8 frames), ABORT (4 and 2 frames), staging messages; prefill -> each decode
    rank's PULL port: ABORT_ACK. Includes frames > 255 bytes and > 64 KiB."""
    sc = Scenario("nixl_ranks")
    prefill = sc.pull()
    decodes = [sc.pull() for _ in range(4)]
    cap = Capture(path, kw.get("iface", "lo"), bpf_ports([prefill] + decodes),
                  tool=kw.get("tool", "tcpdump"), nano=kw.get("nano", False),
                  linktype=kw.get("linktype"))
    ranks = [sc.push(prefill) for _ in range(4)]
    acks = [sc.push(p) for p in decodes]
    for r, c in enumerate(ranks):
        agent = "decode-agent-%d" % r
        # Rank 2's metadata is over 64 KiB: one frame spans several TCP segments.
        c.send(nixl_registration(rng, "10.0.0.%d" % (r + 2), decodes[r], agent, r,
                                 meta_len=70000 if r == 2 else 300 + 100 * r, staging=r % 2 == 0))
    sc.drain()
    room = 1000
    for step in range(30):
        room += rng.randrange(1, 50)
        for r, c in enumerate(ranks):
            agent = "decode-agent-%d" % r
            np = 40000 if step == 7 and r == 1 else rng.randrange(0, 120)  # 160 KB page array once
            c.send(nixl_transfer_info(rng, room, "10.0.0.%d" % (r + 2), decodes[r], agent,
                                      npages=np, required=4, old=(step % 5 == 3),
                                      dummy=(step == 11 and r == 3)))
        if step % 4 == 1:
            r = rng.randrange(4)
            ranks[r].send(abort(room, "10.0.0.%d" % (r + 2), decodes[r]) if step % 8 == 1 else abort(room))
            acks[r].send(abort_ack(room, 0))
        if step % 6 == 2:
            ranks[0].send(watermark(step, rng.randrange(100), "sess-0"))
            ranks[0].send(staging_rsp(room, 1, 4096 * step, step, 0, "sess-0"))
        if step % 10 == 0:
            sc.drain()
    sc.drain()
    cap.stop()
    sc.close()
    return sc


def mooncake(rng, path, **kw):
    """Mooncake over IPv6: registration without guard, 10-frame TransferInfo,
    status frames, AUX_DATA, CHUNK_READY, 2-frame ABORT_ACK."""
    sc = Scenario("mooncake", ipv6=True)
    prefill = sc.pull()
    decode = sc.pull()
    cap = Capture(path, "lo", bpf_ports([prefill, decode]), nano=True)
    d2p = [sc.push(prefill) for _ in range(2)]
    p2d = sc.push(decode)
    for r, c in enumerate(d2p):
        c.send(mooncake_registration(rng, "fd00::%d" % (r + 1), decode, "sess-%d" % r))
    for i in range(25):
        room = 5000 + i
        for r, c in enumerate(d2p):
            c.send(mooncake_transfer_info(rng, room, "fd00::%d" % (r + 1), decode, "sess-%d" % r,
                                          npages=rng.randrange(1, 90), required=2))
        p2d.send(mooncake_status(room, 3, 0))
        if i % 3 == 0:
            p2d.send(chunk_ready(room, 0, 64 * i, 16, "sess-0"))
            p2d.send(aux_data(rng, room, i, 7, n=300))  # > 255 bytes: long frame
        if i % 7 == 4:
            d2p[0].send(abort(room, "fd00::1", decode))
            p2d.send(abort_ack(room))
            p2d.send(mooncake_status(room, 0, 0))
        else:
            p2d.send(mooncake_status(room, 4, 0))
    sc.drain()
    cap.stop()
    sc.close()
    return sc


def many_conns(rng, path, **kw):
    """48 decode-side PUSH connections to 3 prefill ports, written as pcapng by
    dumpcap."""
    sc = Scenario("many_conns")
    ports = [sc.pull() for _ in range(3)]
    cap = Capture(path, "lo", bpf_ports(ports), tool="dumpcap")
    conns = [sc.push(ports[i % 3]) for i in range(48)]
    for i, c in enumerate(conns):
        c.send(nixl_registration(rng, "10.1.0.%d" % i, 30000 + i, "agent-%d" % i, i, meta_len=200))
    for k in range(6):
        for i, c in enumerate(conns):
            room = 70000 + 10 * k + i % 10
            c.send(nixl_transfer_info(rng, room, "10.1.0.%d" % i, 30000 + i, "agent-%d" % i,
                                      npages=rng.randrange(1, 30)))
            if rng.random() < 0.2:
                c.send(abort(room, "10.1.0.%d" % i, 30000 + i))
    sc.drain()
    cap.stop()
    sc.close()
    return sc


def midstream(rng, path, **kw):
    """Connections established and used before the capture starts: the capture
    has no greeting and no handshake for them."""
    sc = Scenario("midstream")
    prefill = sc.pull()
    decode = sc.pull()
    ranks = [sc.push(prefill) for _ in range(3)]
    ack = sc.push(decode)
    sc.capturing = False
    for r, c in enumerate(ranks):
        c.send(nixl_registration(rng, "10.2.0.%d" % r, decode, "agent-%d" % r, r, meta_len=500))
        for i in range(5):
            c.send(nixl_transfer_info(rng, 200 + i, "10.2.0.%d" % r, decode, "agent-%d" % r,
                                      npages=rng.randrange(1, 50), required=3))
    ack.send(abort_ack(199, 0))
    sc.drain()
    time.sleep(0.3)
    cap = Capture(path, "lo", bpf_ports([prefill, decode]))
    sc.capturing = True
    for i in range(5, 30):
        for r, c in enumerate(ranks):
            c.send(nixl_transfer_info(rng, 200 + i, "10.2.0.%d" % r, decode, "agent-%d" % r,
                                      npages=rng.randrange(1, 300), required=3))
        if i % 5 == 0:
            ranks[i % 3].send(abort(200 + i, "10.2.0.%d" % (i % 3), decode))
            ack.send(abort_ack(200 + i, 0))
        time.sleep(0.01)  # one message batch per segment, mostly
    # A connection that starts inside the capture, for contrast.
    late = sc.push(prefill)
    late.send(nixl_registration(rng, "10.2.0.9", decode, "agent-9", 9, meta_len=300))
    late.send(abort(230))
    sc.drain()
    cap.stop()
    sc.close()
    return sc


def sll2(rng, path, **kw):
    """nixl_ranks-style traffic captured with -i any (LINUX_SLL2)."""
    return small_any(rng, path, "LINUX_SLL2")


def sll(rng, path, **kw):
    """The same on -i any with the older LINUX_SLL header."""
    return small_any(rng, path, "LINUX_SLL")


def small_any(rng, path, linktype):
    sc = Scenario(linktype)
    prefill = sc.pull()
    decode = sc.pull()
    cap = Capture(path, "any", bpf_ports([prefill, decode]), linktype=linktype)
    ranks = [sc.push(prefill) for _ in range(2)]
    ack = sc.push(decode)
    for r, c in enumerate(ranks):
        c.send(nixl_registration(rng, "10.3.0.%d" % r, decode, "agent-%d" % r, r, meta_len=400))
    for i in range(12):
        for r, c in enumerate(ranks):
            c.send(nixl_transfer_info(rng, 900 + i, "10.3.0.%d" % r, decode, "agent-%d" % r,
                                      npages=rng.randrange(1, 100), required=2, old=(i == 4)))
        if i % 4 == 3:
            ranks[1].send(abort(900 + i, "10.3.0.1", decode))
            ack.send(abort_ack(900 + i, 1))
    sc.drain()
    cap.stop()
    sc.close()
    return sc


SCENARIOS = {
    "nixl_ranks": (nixl_ranks, "pcap"),
    "mooncake": (mooncake, "pcap"),
    "many_conns": (many_conns, "pcapng"),
    "midstream": (midstream, "pcap"),
    "sll2": (sll2, "pcap"),
    "sll": (sll, "pcap"),
}


# ---------------------------------------------------------------------------
# Large capture for benchmarks.


class Prefill(threading.Thread):
    """Plays prefill rank 0's bootstrap thread and decode's receivers: receives
    on every PULL socket of the scenario, counts what prefill received from
    each decode rank (by the decode port frame every decode->prefill message
    carries), and answers each ABORT with the 3-frame NIXL ABORT_ACK
    (ABORT_ACK, room, prefill rank "0") on prefill's PUSH socket to the rank
    that sent it, named by the ABORT's decode port frame (SGLang's
    deferred-release mode). Runs until `total` (set by finish once the sender
    is done) messages have arrived."""

    def __init__(self, sc, prefill_port, ranks):
        super().__init__(daemon=True)
        self.sc = sc
        self.prefill = next(s for s, p in sc.pulls if p == prefill_port)
        # decode port frame (bytes) -> (rank index, prefill's PUSH socket to it)
        self.by_port = {b(r["port"]): (i, r["ack"].sock) for i, r in enumerate(ranks)}
        # Messages prefill received from each rank: what the rank sent before
        # them is on the wire, so in the capture, before anything sent later.
        self.from_rank = [0] * len(ranks)
        self.received = 0
        self.acks = 0
        self.total = None
        self.error = None

    def run(self):
        try:
            self._run()
        except Exception as e:  # raised again by finish()
            self.error = e

    def _run(self):
        poller = zmq.Poller()
        for s, _ in self.sc.pulls:
            poller.register(s, zmq.POLLIN)
        prefill, by_port, from_rank = self.prefill, self.by_port, self.from_rank
        idle = 0
        while self.total is None or self.received < self.total:
            ready = poller.poll(200)
            idle = 0 if ready else idle + 1
            if idle > 300:  # 60 s without a message
                raise RuntimeError("only %d of %s messages arrived" % (self.received, self.total))
            for s, _ in ready:
                while True:
                    try:
                        parts = s.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    self.received += 1
                    if s is prefill:
                        # Registration, TransferInfo and 4-frame ABORT all
                        # carry the decode port in frame 3.
                        i, ack = by_port[parts[3]]
                        from_rank[i] += 1
                        if len(parts) == 4 and parts[0] == b"ABORT":
                            ack.send_multipart([b"ABORT_ACK", parts[1], b"0"])
                            self.acks += 1

    def lag(self, sent):
        """Messages sent (by decode, and ACKs by prefill) not received yet."""
        return sent + self.acks - self.received

    def has(self, rank, seq):
        """Whether prefill received the first seq messages of rank."""
        return self.from_rank[rank] >= seq

    def check(self):
        if self.error:
            raise self.error
        if not self.is_alive():
            raise RuntimeError("the prefill thread stopped")

    def finish(self, sent, aborts):
        """Waits until the `sent` decode messages and one ACK per ABORT arrived;
        returns the number of messages in all."""
        self.total = sent + aborts
        self.join()
        if self.error:
            raise self.error
        assert self.acks == aborts and self.received == self.total, (self.acks, aborts, self.received, self.total)
        return self.total


def pd_topology(sc, instances, ranks_per_instance):
    """Prefill rank 0's PULL socket and, per decode rank, its own PULL socket
    (where ABORT_ACKs arrive). Returns (prefill port, ranks), each rank a dict
    with idx, inst, rank (within its instance), port (its PULL port: the
    endpoint it announces) and agent. Start the capture, then connect_ranks."""
    prefill = sc.pull()
    ranks = []
    for i in range(instances):
        for k in range(ranks_per_instance):
            ranks.append({"idx": len(ranks), "inst": i, "rank": k, "port": sc.pull(),
                          "agent": "decode-%d-rank-%d" % (i, k), "seq": 0})
    return prefill, ranks


def connect_ranks(sc, prefill, ranks):
    """Connects every rank's PUSH socket to prefill ("d2p", "sock") and one
    PUSH socket of prefill to every rank's PULL socket ("ack")."""
    for r in ranks:
        r["d2p"] = sc.push(prefill)
        r["sock"] = r["d2p"].sock
    for r in ranks:
        r["ack"] = sc.push(r["port"])


def send_aborts(pair, rb):
    """Decode's abort of room rb (bytes): one 4-frame ABORT per rank of its
    instance, each after that rank's TransferInfo on the same socket."""
    for r in pair:
        parts = r["ab"][:]
        parts[1] = rb
        r["sock"].send_multipart(parts)
        r["seq"] += 1


def large(n, out_dir, window=5000):
    """Writes large_N.pcap: about N messages of valid room lifecycles. One
    prefill rank; three decode instances of two ranks, each rank announcing its
    own PULL endpoint; 12 connections. Registration on each decode->prefill
    connection, then distinct rooms (63-bit ids) round-robin over the instances:
    TransferInfo from both ranks (required_dst_info_num 2); every fourth room
    then ABORT from both ranks, each answered by prefill with an ABORT_ACK to
    the rank that sent it."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "large_%d.pcap" % n)
    rng = random.Random(n)
    sc = Scenario("large")
    prefill, ranks = pd_topology(sc, 3, 2)
    cap = Capture(path, "lo", bpf_ports([prefill] + [r["port"] for r in ranks]))
    connect_ranks(sc, prefill, ranks)
    ip = "127.0.0.1"
    sent = 0
    for r in ranks:
        r["sock"].send_multipart(nixl_registration(rng, ip, r["port"], r["agent"], r["rank"], tp=2)[1])
        r["seq"] += 1
        sent += 1
        # Building each message in Python would make the generator, not the
        # capture, the bottleneck: one TransferInfo per rank, the room frame
        # substituted per room.
        r["ti"] = nixl_transfer_info(rng, 0, ip, r["port"], r["agent"],
                                     npages=rng.randrange(1, 64), required=2)[1]
        r["ab"] = [b"ABORT", b"", b(ip), b(r["port"])]
    by_inst = [[r for r in ranks if r["inst"] == i] for i in range(3)]
    pf = Prefill(sc, prefill, ranks)
    pf.start()
    # Decode aborts a room once, for all its ranks: its ABORTs must follow the
    # TransferInfo of both ranks in the capture, not only on their own
    # connection. A room's ABORTs wait (per instance, in order) until prefill
    # received both TransferInfos, so these were on the wire before.
    pending = [collections.deque() for _ in by_inst]  # (room bytes, seq of each rank's TI)

    def flush(wait):
        nonlocal sent
        for inst, q in enumerate(pending):
            a, c = by_inst[inst]
            while q:
                rb, sa, sb = q[0]
                if not (pf.has(a["idx"], sa) and pf.has(c["idx"], sb)):
                    if not wait:
                        break
                    pf.check()
                    time.sleep(0.001)
                    continue
                q.popleft()
                send_aborts((a, c), rb)
                sent += 2

    # SGLang's bootstrap_room is random: an odd multiplier makes i -> id a
    # bijection modulo 2**63, so ids never repeat (checked all the same).
    seed = rng.getrandbits(63)
    mask = (1 << 63) - 1
    seen = set()
    rooms = aborted = 0
    total = sent  # messages in all, counting the ABORTs and ACKs to come
    next_report = 100000
    while True:
        ab = rooms % 4 == 3
        cost = 6 if ab else 2  # 2 TransferInfo (+ 2 ABORT, 2 ABORT_ACK)
        if total + cost > n:
            break
        room = (rooms * 0x9E3779B97F4A7C15 + seed) & mask
        if room in seen:
            raise RuntimeError("room id collision: %d" % room)
        seen.add(room)
        rb = b(room)
        inst = rooms % 3
        pair = by_inst[inst]
        for r in pair:
            parts = r["ti"][:]
            parts[1] = rb
            r["sock"].send_multipart(parts)
            r["seq"] += 1
        sent += 2
        if ab:
            pending[inst].append((rb, pair[0]["seq"], pair[1]["seq"]))
            aborted += 1
        total += cost
        rooms += 1
        if rooms % 64 == 0:
            flush(False)
            # Keep the sender at most `window` messages ahead of the readers:
            # unbounded queues would only measure memory, and the readers
            # fall behind (and with them the ABORTs, which wait for them).
            while pf.lag(sent) > window:
                pf.check()
                time.sleep(0.001)
        if total >= next_report:
            next_report += 100000
            sys.stderr.write("\rsent %d" % total)
    flush(True)
    msgs = pf.finish(sent, 2 * aborted)
    assert msgs == total, (msgs, total)
    cap.stop(drain=2.0)
    sc.close()
    conns = len(sc.pushes)
    with open(os.path.join(out_dir, "large_%d.json" % n), "w") as f:
        json.dump({"messages": msgs, "rooms": rooms, "aborted": aborted, "connections": conns}, f)
    print("\nwrote %s: %d messages (%d registrations, %d TransferInfo, %d ABORT, %d ABORT_ACK), "
          "%d rooms, %d aborted, %d connections"
          % (path, msgs, len(ranks), 2 * rooms, 2 * aborted, 2 * aborted, rooms, aborted, conns))


def many_rooms(n, out_dir, rate=250.0, eager=False):
    """Writes rooms_N.pcap: N distinct rooms on one decode instance of two
    ranks, each announcing its own PULL endpoint, paced at `rate` rooms per
    second so that only a few are in flight at a time (each room: TransferInfo
    from both ranks, required_dst_info_num 2; every fourth room then ABORT from
    both ranks once prefill received both TransferInfos, each ABORT answered by
    prefill with an ABORT_ACK to the rank that sent it). For memory
    measurements of tools that process rooms as a stream (not committed).
    With eager, the ABORTs go out right after the TransferInfos (a client
    that aborts at once), into rooms_N_eager.pcap: libzmq flushes each socket
    on its own, so the capture often shows one rank's ABORT before the other
    rank's TransferInfo."""
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "rooms_%d%s.pcap" % (n, "_eager" if eager else ""))
    rng = random.Random(n)
    sc = Scenario("rooms")
    prefill, ranks = pd_topology(sc, 1, 2)
    cap = Capture(path, "lo", bpf_ports([prefill] + [r["port"] for r in ranks]))
    connect_ranks(sc, prefill, ranks)
    ip = "127.0.0.1"
    for r in ranks:
        r["sock"].send_multipart(nixl_registration(rng, ip, r["port"], r["agent"], r["rank"], tp=2)[1])
        r["seq"] += 1
        r["ab"] = [b"ABORT", b"", b(ip), b(r["port"])]
    sent = len(ranks)
    aborts = 0
    pf = Prefill(sc, prefill, ranks)
    pf.start()
    t0 = time.time()
    for i in range(n):
        room = 1000000 + i
        for r in ranks:
            r["sock"].send_multipart(nixl_transfer_info(rng, room, ip, r["port"], r["agent"], npages=4, required=2)[1])
            r["seq"] += 1
            sent += 1
        if i % 4 == 3:
            # Decode's one abort follows both TransferInfos on the wire
            # (unless eager).
            while not eager and not all(pf.has(r["idx"], r["seq"]) for r in ranks):
                pf.check()
                time.sleep(0.0002)
            send_aborts(ranks, b(room))
            sent += 2
            aborts += 2
        delay = t0 + (i + 1) / rate - time.time()
        if delay > 0:
            time.sleep(delay)
        if i % 1000 == 999:
            sys.stderr.write("\rrooms %d" % (i + 1))
            pf.check()
    msgs = pf.finish(sent, aborts)
    # The connections end inside the capture (FIN both ways), so that the
    # capture can follow itself: roomspec watch's soak plays it in a loop.
    sc.close()
    cap.stop(drain=2.0)
    print("\nwrote %s: %d rooms (%d aborted), %d messages (%d ABORT_ACK), %d connections"
          % (path, n, aborts // 2, msgs, aborts, len(sc.pushes)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenarios", nargs="*", help="scenarios to make (default all): " + ", ".join(SCENARIOS))
    ap.add_argument("--large", type=int, metavar="N", help="make only a large capture of about N messages")
    ap.add_argument("--rooms", type=int, metavar="N", help="make only rooms_N.pcap: N distinct rooms, paced (for streaming memory tests)")
    ap.add_argument("--eager", action="store_true", help="with --rooms: ABORTs right after the TransferInfos (rooms_N_eager.pcap)")
    ap.add_argument("--out", default=None, help="output directory")
    a = ap.parse_args()
    if a.large:
        large(a.large, a.out or LARGE)
        return
    if a.rooms:
        many_rooms(a.rooms, a.out or LARGE, eager=a.eager)
        return
    out = a.out or OUT
    os.makedirs(out, exist_ok=True)
    for name in a.scenarios or list(SCENARIOS):
        fn, ext = SCENARIOS[name]
        # A fixed seed per scenario: reruns differ only in ports and timing.
        rng = random.Random(name)
        path = os.path.join(out, "%s.%s" % (name, ext))
        sc = fn(rng, path)
        sc.write_truth(os.path.join(out, name + ".truth.jsonl"))
        print("%s: %d messages on %d connections" % (path, len(sc.truth), len(sc.pushes)))


if __name__ == "__main__":
    main()
