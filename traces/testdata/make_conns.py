#!/usr/bin/env python3
"""Make captures of many short TCP connections, with real TCP on loopback.

The kernel's own TCP makes every packet; tcpdump captures them. Nothing is
written by hand. Four kinds:

  conns/conns.pcap (committed, the default): 3 connections that exchange a few
      bytes and close with FIN/FIN/ACK, 3 refused (SYN, RST/ACK), and 2 that
      exchange bytes and are reset (close with SO_LINGER 0): 8 connections.
  --rst N: rst_N.pcap, N connections refused by a closed port (SYN, RST).
  --syn N: syn_N.pcap, the same N connections captured with a BPF filter
      that keeps only the SYNs: what a capture that missed the replies of a
      SYN flood shows (every connection half-open).
  --half N: half_N.pcap, N connections that each send the first 12 bytes of
      a ZMTP 3.1 greeting (signature and version) and nothing more, captured
      without their FINs and RSTs, so that every one is still open, in the
      middle of its greeting, when the capture ends; meanwhile a real libzmq
      PUSH socket sends a TransferInfo and an ABORT of a new room to a PULL
      socket after every 1000 of them. The decode, replay and watch
      measurements of issue 25 (time per connection, RSS at 10k, 100k and
      1M open connections) read them.

The large ones go to traces/testdata/large (not committed); the decode
benchmarks and the memory measurements of traces/decode read them. Each
connection binds its own source address and port (127.1.0.0/16 and ports
20000-59999), so no 4-tuple is reused within a capture.

Run as root (tcpdump needs it):

    sudo /usr/bin/python3 traces/testdata/make_conns.py              # conns.pcap
    sudo /usr/bin/python3 traces/testdata/make_conns.py --syn 2000000
    sudo /usr/bin/python3 traces/testdata/make_conns.py --rst 1000000
    sudo /usr/bin/python3 traces/testdata/make_conns.py --half 1000000
"""

import argparse
import errno
import os
import signal
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PORTS = 40000  # source ports per source address


class Capture:
    """tcpdump on lo with a BPF filter; stop() fails if it dropped packets."""

    def __init__(self, path, bpf, snaplen=128):
        cmd = ["tcpdump", "-U", "-n", "-B", "262144", "-s", str(snaplen), "-i", "lo", "-w", path, bpf]
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        self.lines = []
        while True:
            line = self.proc.stderr.readline()
            if not line:
                raise RuntimeError("tcpdump exited: " + "".join(self.lines))
            self.lines.append(line)
            if "listening on" in line:
                break
        time.sleep(0.3)

    def stop(self):
        # More than libpcap's 1 s block timeout, so the last block is read.
        time.sleep(1.5)
        self.proc.send_signal(signal.SIGINT)
        out = "".join(self.lines) + self.proc.stderr.read()
        self.proc.wait()
        dropped = [l for l in out.splitlines() if "dropped by kernel" in l]
        if not dropped or not dropped[0].strip().startswith("0 "):
            raise RuntimeError("tcpdump dropped packets or said nothing:\n" + out)
        sys.stderr.write(out)


def source(i):
    """The i-th source address and port: distinct for i < 65536 * PORTS."""
    a = i // PORTS
    return ("127.1.%d.%d" % (a // 256, a % 256), 20000 + i % PORTS)


def closed_port():
    """A loopback port nothing listens on (bound, then closed)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def refused(n, port, progress=True):
    """n connections to a closed port: SYN, then the kernel's RST/ACK."""
    for i in range(n):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(source(i))
        err = s.connect_ex(("127.0.0.1", port))
        s.close()
        if err != errno.ECONNREFUSED:
            raise RuntimeError("connection %d to closed port %d: %s" % (i, port, os.strerror(err)))
        if progress and i and i % 100000 == 0:
            sys.stderr.write("%d connections\n" % i)


def exchange(srv, i, reset):
    """One connection to srv that exchanges bytes, then closes with FIN or RST."""
    c = socket.socket()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    c.bind(source(i))
    c.connect(srv.getsockname())
    a, _ = srv.accept()
    c.sendall(b"hello %d\n" % i)
    assert a.recv(64).startswith(b"hello")
    a.sendall(b"bye\n")
    assert c.recv(64) == b"bye\n"
    if reset:
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        c.close()
        time.sleep(0.05)
        a.close()
        return
    c.shutdown(socket.SHUT_WR)
    assert a.recv(64) == b""
    a.close()
    assert c.recv(64) == b""
    c.close()
    time.sleep(0.05)


# The signature and version of a ZMTP 3.1 greeting: 12 of its 64 bytes.
GREETING_HEAD = b"\xff" + b"\x00" * 8 + b"\x7f\x03\x01"


def half_greetings(n, path):
    """n connections stopped in their greeting, beside a live ZeroMQ pair."""
    import random
    import threading
    import zmq
    sys.path.insert(0, HERE)
    from make_captures import nixl_transfer_info, abort

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4096)
    hport = srv.getsockname()[1]

    def accept():
        while True:
            try:
                a, _ = srv.accept()
            except OSError:
                return
            a.close()

    threading.Thread(target=accept, daemon=True).start()
    ctx = zmq.Context()
    pull = ctx.socket(zmq.PULL)
    zport = pull.bind_to_random_port("tcp://127.0.0.1")
    push = ctx.socket(zmq.PUSH)
    bpf = "tcp port %d or (tcp dst port %d and tcp[tcpflags] & (tcp-fin|tcp-rst) == 0)" % (zport, hport)
    cap = Capture(path, bpf, snaplen=65535)
    push.connect("tcp://127.0.0.1:%d" % zport)
    rng = random.Random(25)
    room = 1 << 40
    for i in range(n):
        c = socket.socket()
        c.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        c.bind(source(i))
        c.connect(("127.0.0.1", hport))
        c.sendall(GREETING_HEAD)
        c.close()
        if i % 1000 == 0:
            room += 1
            for _, parts in (nixl_transfer_info(rng, room, "127.0.0.1", 7000, "decode-0"), abort(room)):
                push.send_multipart(parts)
                pull.recv_multipart()
        if i and i % 100000 == 0:
            sys.stderr.write("%d connections\n" % i)
    cap.stop()
    srv.close()
    push.close(linger=0)
    pull.close(linger=0)
    ctx.term()


def small(out):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    port = closed_port()
    path = os.path.join(out, "conns.pcap")
    cap = Capture(path, "tcp port %d or tcp port %d" % (srv.getsockname()[1], port))
    for i in range(3):
        exchange(srv, i, reset=False)
    refused(3, port, progress=False)  # sources 0-2 again: different ports, so other 4-tuples
    for i in range(3, 5):
        exchange(srv, i, reset=True)
    cap.stop()
    srv.close()
    print(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rst", type=int, metavar="N", help="make rst_N.pcap: N refused connections")
    ap.add_argument("--syn", type=int, metavar="N", help="make syn_N.pcap: N connections, SYNs only")
    ap.add_argument("--half", type=int, metavar="N", help="make half_N.pcap: N connections stopped in their greeting")
    ap.add_argument("--out", default=None, help="output directory")
    args = ap.parse_args()
    if args.rst is None and args.syn is None and args.half is None:
        small(args.out or os.path.join(HERE, "conns"))
        return
    out = args.out or os.path.join(HERE, "large")
    os.makedirs(out, exist_ok=True)
    for n, name, extra in ((args.rst, "rst", ""), (args.syn, "syn", " and tcp[tcpflags] & tcp-syn != 0")):
        if n is None:
            continue
        port = closed_port()
        path = os.path.join(out, "%s_%d.pcap" % (name, n))
        cap = Capture(path, "tcp port %d%s" % (port, extra))
        refused(n, port)
        cap.stop()
        print(path)
    if args.half is not None:
        path = os.path.join(out, "half_%d.pcap" % args.half)
        half_greetings(args.half, path)
        print(path)


if __name__ == "__main__":
    main()
