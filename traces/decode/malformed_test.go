package decode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// pcapRecord locates one record of a little-endian pcap file with
// Ethernet/IPv4/TCP packets (the layout of nixl_ranks.pcap).
type pcapRecord struct {
	off     int // of the 16-byte record header
	data    int // of the packet bytes
	capLen  int
	payload int // of the TCP payload, file offset
	payLen  int
	src     string // "ip:port->ip:port"
}

func pcapRecords(t *testing.T, file []byte) []pcapRecord {
	t.Helper()
	if binary.LittleEndian.Uint32(file) != 0xa1b2c3d4 || binary.LittleEndian.Uint32(file[20:]) != 1 {
		t.Fatal("want a little-endian microsecond Ethernet pcap")
	}
	var recs []pcapRecord
	for off := 24; off+16 <= len(file); {
		capLen := int(binary.LittleEndian.Uint32(file[off+8:]))
		r := pcapRecord{off: off, data: off + 16, capLen: capLen}
		p := file[r.data : r.data+capLen]
		ihl := int(p[14]&0x0f) * 4
		tcp := p[14+ihl:]
		doff := int(tcp[12]>>4) * 4
		total := int(binary.BigEndian.Uint16(p[16:]))
		r.payload = r.data + 14 + ihl + doff
		r.payLen = total - ihl - doff
		r.src = fmt.Sprintf("%d.%d.%d.%d:%d->%d.%d.%d.%d:%d", p[26], p[27], p[28], p[29], binary.BigEndian.Uint16(tcp),
			p[30], p[31], p[32], p[33], binary.BigEndian.Uint16(tcp[2:]))
		recs = append(recs, r)
		off = r.data + capLen
	}
	return recs
}

// isSubsequence reports whether every message of got appears in want, in
// order: nothing decoded is wrong, though some may be missing.
func isSubsequence(want, got []got) bool {
	i := 0
	for _, g := range got {
		for i < len(want) && !slices.EqualFunc(want[i].Parts, g.Parts, func(a, b string) bool { return a == b }) {
			i++
		}
		if i == len(want) {
			return false
		}
		i++
	}
	return true
}

// TestMalformed damages the real nixl_ranks.pcap in each way a capture can
// be damaged and checks that decoding reports the damage with the right
// frame number, never panics, decodes every untouched connection exactly,
// and never emits a wrong message on the damaged one.
func TestMalformed(t *testing.T) {
	const path = "../testdata/captures/nixl_ranks.pcap"
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := pcapRecords(t, orig)
	truth := map[string][]got{}
	for _, m := range readTruth(t, path) {
		truth[m.Conn] = append(truth[m.Conn], got{Kind: m.Kind, Parts: m.Parts})
	}
	// A data record in the middle of a decode->prefill stream that carries
	// more than one record's worth of messages; frame numbers are 1-based.
	target := -1
	for i := len(recs) / 2; i < len(recs); i++ {
		if recs[i].payLen > 100 && len(truth[recs[i].src]) > 20 {
			target = i
			break
		}
	}
	if target < 0 {
		t.Fatal("no suitable data record")
	}
	victim := recs[target].src
	frame := target + 1
	// A later record of the victim that starts with a message: its first
	// frame header is "more, short, 12 bytes: NixlMsgGuard".
	msgStart := -1
	for i := target; i < len(recs); i++ {
		r := recs[i]
		if r.src == victim && r.payLen > 14 && bytes.HasPrefix(orig[r.payload:], []byte("\x01\x0cNixlMsgGuard")) {
			msgStart = i
			break
		}
	}
	if msgStart < 0 {
		t.Fatal("no record starting with a message")
	}

	cases := []struct {
		name   string
		damage func() []byte
		// A diagnostic of kind wantDiag must be reported at wantFrame
		// (0: any frame; negative: at or after -wantFrame).
		wantDiag  Kind
		wantFrame int
		// damaged is the connection allowed to lose messages; "" means
		// every connection keeps only a prefix (the file was cut).
		damaged   string
		truncated bool
		// exact: nothing is lost (reordering, retransmission), no diagnostic.
		exact bool
	}{
		{
			name: "truncated file",
			damage: func() []byte {
				r := recs[target]
				return slices.Clone(orig[:r.data+r.capLen/2])
			},
			wantDiag: KindDamagedFile, wantFrame: frame, truncated: true,
		},
		{
			name: "truncated packet",
			damage: func() []byte {
				// Cut the record as a short snap length would: keep the
				// first 80 bytes, leave the original length.
				r := recs[target]
				out := slices.Clone(orig[:r.data+80])
				binary.LittleEndian.PutUint32(out[r.off+8:], 80)
				return append(out, orig[r.data+r.capLen:]...)
			},
			wantDiag: KindSnaplen, wantFrame: frame, damaged: victim,
		},
		{
			name: "garbage bytes between records",
			damage: func() []byte {
				r := recs[target]
				garbage := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 16)
				out := slices.Clone(orig[:r.off])
				out = append(out, garbage...)
				return append(out, orig[r.off:]...)
			},
			wantDiag: KindDamagedFile, wantFrame: frame, truncated: true,
		},
		{
			name: "huge declared frame size",
			damage: func() []byte {
				out := slices.Clone(orig)
				// The segment starts with a frame header: make it a long
				// frame declaring 2^63 bytes.
				p := out[recs[msgStart].payload:]
				p[0] = 0x03
				copy(p[1:9], []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
				return out
			},
			wantDiag: "oversize", wantFrame: msgStart + 1, damaged: victim,
		},
		{
			name: "gap in a stream",
			damage: func() []byte {
				r := recs[target]
				out := slices.Clone(orig[:r.off])
				return append(out, orig[r.data+r.capLen:]...)
			},
			// The record is gone, so the gap is noticed at the next
			// packet of the stream, which now has the removed one's number
			// or a later one.
			wantDiag: "gap", wantFrame: -frame, damaged: victim,
		},
		{
			name: "reordered packets",
			damage: func() []byte {
				// Swap the target with the victim's next record: TCP
				// reassembly must put them back.
				next := target + 1
				for recs[next].src != victim || recs[next].payLen == 0 {
					next++
				}
				a, b := recs[target], recs[next]
				out := slices.Clone(orig[:a.off])
				out = append(out, orig[b.off:b.data+b.capLen]...)
				out = append(out, orig[a.data+a.capLen:b.off]...)
				out = append(out, orig[a.off:a.data+a.capLen]...)
				return append(out, orig[b.data+b.capLen:]...)
			},
			wantDiag: "", exact: true,
		},
		{
			name: "retransmitted packet",
			damage: func() []byte {
				r := recs[target]
				out := slices.Clone(orig[:r.data+r.capLen])
				out = append(out, orig[r.off:r.data+r.capLen]...)
				return append(out, orig[r.data+r.capLen:]...)
			},
			wantDiag: "", exact: true,
		},
		{
			name: "non-ZMTP connection",
			damage: func() []byte {
				out := slices.Clone(orig)
				// Break the greeting signature (0xff ... 0x7f) of the
				// victim's first data segment.
				for _, r := range recs {
					if r.src == victim && r.payLen > 0 {
						out[r.payload] = 'G'
						break
					}
				}
				return out
			},
			wantDiag: "not ZMTP", damaged: victim,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := decodeBytes(t, tc.damage(), Options{})
			found := tc.exact && len(r.diags) == 0
			for _, d := range r.diags {
				okFrame := tc.wantFrame == 0 || d.Frame == tc.wantFrame || (tc.wantFrame < 0 && d.Frame >= -tc.wantFrame)
				if okFrame && d.Kind == tc.wantDiag && !tc.exact {
					found = true
				}
			}
			if !found {
				t.Errorf("no %q diagnostic at frame %d; got %v", tc.wantDiag, tc.wantFrame, r.diags)
			}
			if r.sum.Truncated != tc.truncated {
				t.Errorf("Summary.Truncated = %v, want %v", r.sum.Truncated, tc.truncated)
			}
			if r.sum.OutOfOrder != 0 {
				t.Errorf("%d messages out of order", r.sum.OutOfOrder)
			}
			for i := 1; i < len(r.msgs); i++ {
				if r.msgs[i].Frame < r.msgs[i-1].Frame {
					t.Errorf("message %d at frame %d comes after one at frame %d", i, r.msgs[i].Frame, r.msgs[i-1].Frame)
					break
				}
			}
			for conn, w := range truth {
				g := r.byConn[conn]
				switch {
				case tc.truncated:
					if len(g) > len(w) || !slices.EqualFunc(w[:len(g)], g, eqGot) {
						t.Errorf("%s: decoded messages are not a prefix of the ground truth", conn)
					}
				case conn == tc.damaged:
					if !isSubsequence(w, g) {
						t.Errorf("%s: a decoded message is not in the ground truth", conn)
					}
					if len(g) == len(w) && tc.name != "truncated packet" {
						t.Errorf("%s: damage went unnoticed: all %d messages decoded", conn, len(g))
					}
				default:
					if !slices.EqualFunc(w, g, eqGot) {
						t.Errorf("%s: undamaged connection lost or changed messages: %d of %d", conn, len(g), len(w))
						for i := range min(len(g), len(w)) {
							if !eqGot(w[i], g[i]) {
								t.Errorf("first difference at message %d: %s (%d parts) vs %s (%d parts)", i, w[i].Kind, len(w[i].Parts), g[i].Kind, len(g[i].Parts))
								break
							}
						}
					}
				}
			}
			for _, d := range r.diags {
				t.Log(d)
			}
		})
	}
}

func eqGot(a, b got) bool {
	return a.Kind == b.Kind && slices.Equal(a.Parts, b.Parts)
}

// TestForcedPort breaks a connection's greeting: without -port it is not
// ZeroMQ; with its port forced it is decoded by resync, losing only what
// precedes the resync point and emitting nothing wrong.
func TestForcedPort(t *testing.T) {
	const path = "../testdata/captures/nixl_ranks.pcap"
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[string][]got{}
	for _, m := range readTruth(t, path) {
		truth[m.Conn] = append(truth[m.Conn], got{Kind: m.Kind, Parts: m.Parts})
	}
	recs := pcapRecords(t, orig)
	var victim string
	var port uint16
	data := slices.Clone(orig)
	for _, r := range recs {
		if len(truth[r.src]) > 20 && r.payLen > 0 {
			victim = r.src
			data[r.payload] = 'G'
			fmt.Sscanf(victim[strings.LastIndex(victim, ":")+1:], "%d", &port)
			break
		}
	}
	plain := decodeBytes(t, data, Options{})
	if n := len(plain.byConn[victim]); n != 0 {
		t.Fatalf("without -port: %d messages decoded on the broken connection", n)
	}
	forced := decodeBytes(t, data, Options{Ports: []uint16{port}})
	g, w := forced.byConn[victim], truth[victim]
	if !isSubsequence(w, g) {
		t.Fatal("with -port: a decoded message is not in the ground truth")
	}
	if len(g) < len(w)-2 {
		t.Errorf("with -port: %d of %d messages decoded", len(g), len(w))
	}
	for conn, w := range truth {
		if conn != victim && !slices.EqualFunc(w, forced.byConn[conn], eqGot) {
			t.Errorf("%s: other connection changed", conn)
		}
	}
	t.Logf("port %d: %d of %d messages after forcing", port, len(g), len(w))
	for _, d := range forced.diags {
		t.Log(d)
	}
}
