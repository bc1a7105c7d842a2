#!/usr/bin/env python3
"""Make damaged copies of a bundled capture and its event log (issue 25).

Every damaged input starts from a real capture of ../testdata/scenarios
(made by make_scenarios.py with libzmq under tcpdump) or its prefill event
log, and changes it the way a real capture or log goes wrong; nothing else
is written by hand. The base, storm-fixed, has every aborted room
released, so a replay that calls any room violated on these is wrong. The
decode tests (traces/decode/damaged_test.go) and the event-log tests read
them, and the fuzz targets use the captures as seeds.

  damaged/fragments.pcap   every IPv4 packet with more than 40 bytes of TCP
                           payload sent as IP fragments of 48 bytes (the
                           fragments of every other packet in reverse
                           order), as a path with a small MTU would
  damaged/snaplen.pcap     every packet cut to 96 captured bytes, as
                           "tcpdump -s 96" writes it
  damaged/linktype.pcap    the file header says link type 147 (USER0)
  damaged/retransmit.pcap  every fifth data packet is followed by a
                           retransmission of it: a faithful copy, or (every
                           second time) one with its last payload byte
                           changed, which disagrees with the first copy
  damaged/timejump.pcap    the capture clock steps back 5 s at the middle
                           packet and forward 2 h at three quarters
  damaged/bom.events.jsonl        the log with a UTF-8 byte order mark
  damaged/dup.events.jsonl        every line written twice
  damaged/reordered.events.jsonl  lines swapped in pairs (each pair out of
                                  time order)
  damaged/binary.events.jsonl     the capture itself, given as the log
  damaged/logonly.events.jsonl    the log with a room the capture does not
                                  show: each line of room 101 followed by a
                                  copy for room 999

Rerun (no root needed; Python 3 standard library only):

    python3 traces/testdata/make_damaged.py
"""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.join(HERE, "scenarios", "storm-fixed")
OUT = os.path.join(HERE, "damaged")


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic != 0xA1B2C3D4:
        raise SystemExit("%s: not a little-endian microsecond pcap" % path)
    header = bytearray(data[:24])
    recs = []
    off = 24
    while off < len(data):
        sec, usec, caplen, origlen = struct.unpack("<IIII", data[off:off + 16])
        recs.append([sec, usec, bytes(data[off + 16:off + 16 + caplen]), origlen])
        off += 16 + caplen
    return header, recs


def write_pcap(path, header, recs):
    with open(path, "wb") as f:
        f.write(bytes(header))
        for sec, usec, data, origlen in recs:
            f.write(struct.pack("<IIII", sec, usec, len(data), max(origlen, len(data))))
            f.write(data)


def ip_checksum(hdr):
    s = 0
    for i in range(0, len(hdr), 2):
        s += (hdr[i] << 8) + hdr[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def tcp_payload_len(pkt):
    """The TCP payload length of an Ethernet/IPv4/TCP packet, or -1."""
    if len(pkt) < 34 or pkt[12:14] != b"\x08\x00" or pkt[23] != 6:
        return -1
    ihl = (pkt[14] & 0x0F) * 4
    total = struct.unpack(">H", pkt[16:18])[0]
    thl = (pkt[14 + ihl + 12] >> 4) * 4
    return total - ihl - thl


def fragments(recs):
    out = []
    n = 0
    for sec, usec, pkt, _ in recs:
        if tcp_payload_len(pkt) <= 40:
            out.append([sec, usec, pkt, len(pkt)])
            continue
        eth, ip = pkt[:14], pkt[14:]
        ihl = (ip[0] & 0x0F) * 4
        total = struct.unpack(">H", ip[2:4])[0]
        hdr, payload = ip[:ihl], ip[ihl:total]
        frags = []
        for start in range(0, len(payload), 48):
            piece = payload[start:start + 48]
            more = start + 48 < len(payload)
            h = bytearray(hdr)
            struct.pack_into(">H", h, 2, ihl + len(piece))
            struct.pack_into(">H", h, 4, 0x4000 + n)  # an IP id of our own
            struct.pack_into(">H", h, 6, (0x2000 if more else 0) | (start // 8))
            struct.pack_into(">H", h, 10, 0)
            struct.pack_into(">H", h, 10, ip_checksum(h))
            frags.append(eth + bytes(h) + piece)
        if n % 2:
            frags.reverse()
        for k, f in enumerate(frags):
            out.append([sec, usec + k, f, len(f)])
        n += 1
    return out


def snaplen(recs, cut=96):
    return [[s, u, p[:cut], len(p)] for s, u, p, _ in recs]


def retransmit(recs):
    out = []
    n = 0
    for sec, usec, pkt, orig in recs:
        out.append([sec, usec, pkt, orig])
        if tcp_payload_len(pkt) <= 0:
            continue
        n += 1
        if n % 5:
            continue
        copy = bytearray(pkt)
        if n % 10 == 0:
            copy[-1] ^= 0x5A  # disagrees with the first copy
        out.append([sec, usec + 1, bytes(copy), len(copy)])
    return out


def timejump(recs):
    out = []
    mid, late = len(recs) // 2, len(recs) * 3 // 4
    for i, (sec, usec, pkt, orig) in enumerate(recs):
        if i >= mid:
            sec -= 5
        if i >= late:
            sec += 7200
        out.append([sec, usec, pkt, orig])
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    header, recs = read_pcap(BASE + ".pcap")
    write_pcap(os.path.join(OUT, "fragments.pcap"), header, fragments(recs))
    cut = bytearray(header)
    struct.pack_into("<I", cut, 16, 96)
    write_pcap(os.path.join(OUT, "snaplen.pcap"), cut, snaplen(recs))
    user0 = bytearray(header)
    struct.pack_into("<I", user0, 20, 147)
    write_pcap(os.path.join(OUT, "linktype.pcap"), user0, recs)
    write_pcap(os.path.join(OUT, "retransmit.pcap"), header, retransmit(recs))
    write_pcap(os.path.join(OUT, "timejump.pcap"), header, timejump(recs))

    with open(BASE + ".events.jsonl", "rb") as f:
        lines = f.read().splitlines(keepends=True)
    with open(os.path.join(OUT, "bom.events.jsonl"), "wb") as f:
        f.write(b"\xef\xbb\xbf" + b"".join(lines))
    with open(os.path.join(OUT, "dup.events.jsonl"), "wb") as f:
        f.write(b"".join(l + l for l in lines))
    swapped = list(lines)
    for i in range(0, len(swapped) - 1, 2):
        swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    with open(os.path.join(OUT, "reordered.events.jsonl"), "wb") as f:
        f.write(b"".join(swapped))
    with open(BASE + ".pcap", "rb") as src, open(os.path.join(OUT, "binary.events.jsonl"), "wb") as f:
        f.write(src.read())
    with open(os.path.join(OUT, "logonly.events.jsonl"), "wb") as f:
        for l in lines:
            f.write(l)
            if b'"room":101,' in l:
                f.write(l.replace(b'"room":101,', b'"room":999,'))


if __name__ == "__main__":
    main()
