package decode

import (
	"bytes"
	"encoding/binary"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/roomspec/roomspec/traces/capture"
)

// The damaged captures are made from scenarios/storm-fixed.pcap by
// ../testdata/make_damaged.py.
const damagedBase = "../testdata/scenarios/storm-fixed.pcap"

func damaged(name string) string { return filepath.Join("..", "testdata", "damaged", name) }

// decodeDamaged decodes path and returns its messages' contents (kind,
// room, parts: not frame numbers, which damage shifts), the diagnostics
// given to onDiag and the summary. The counts Options.Count was given as
// they grew must be the summary's.
func decodeDamaged(t *testing.T, path string) (msgs []string, diags []Diagnostic, sum Summary) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counted := Counts{}
	defer func() {
		if !maps.Equal(counted, sum.Kinds) {
			t.Errorf("Options.Count counted %v, the summary %v", counted, sum.Kinds)
		}
	}()
	sum, err = Run(f, Options{Count: func(k Kind) { counted[k]++ }}, func(m *Message) {
		msgs = append(msgs, m.Src.String()+" "+string(m.Wire.Kind())+" "+string(bytes.Join(m.Parts, []byte{'|'})))
	}, func(d Diagnostic) { diags = append(diags, d) })
	if err != nil {
		t.Fatal(err)
	}
	return msgs, diags, sum
}

// ethIPv4 returns the IPv4 header fields of an Ethernet record: total
// length, flags and fragment offset, id, and the TCP segment (nil if not
// TCP or cut before it).
type ipv4Fields struct {
	total, fragField, id int
	tcp                  []byte
}

func ethIPv4(data []byte) (ipv4Fields, bool) {
	if len(data) < 34 || binary.BigEndian.Uint16(data[12:]) != 0x0800 || data[23] != 6 {
		return ipv4Fields{}, false
	}
	ip := data[14:]
	ihl := int(ip[0]&0x0f) * 4
	f := ipv4Fields{total: int(binary.BigEndian.Uint16(ip[2:])), fragField: int(binary.BigEndian.Uint16(ip[6:])), id: int(binary.BigEndian.Uint16(ip[4:]))}
	if len(ip) > ihl {
		f.tcp = ip[ihl:min(len(ip), f.total)]
	}
	return f, true
}

func readAll(t *testing.T, path string) []capture.Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := capture.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []capture.Record
	for {
		r, err := rd.Next()
		if err != nil {
			return out
		}
		r.Data = slices.Clone(r.Data)
		out = append(out, r)
	}
}

// onlyFirst checks that onDiag saw kind k once, and the summary counted
// want of it.
func onlyFirst(t *testing.T, diags []Diagnostic, sum Summary, k Kind, want int) {
	t.Helper()
	seen := 0
	for _, d := range diags {
		if d.Kind == k {
			seen++
		}
	}
	if seen != 1 || sum.Kinds[k] != want {
		t.Errorf("%s: %d diagnostics given, %d counted; want 1 given and %d counted", k, seen, sum.Kinds[k], want)
	}
}

// TestDamagedCaptures: each kind of damage to a capture is reassembled
// through (IPv4 fragments) or said (the other kinds: once, then counted
// in the summary), and what could be decoded is.
func TestDamagedCaptures(t *testing.T) {
	base, baseDiags, _ := decodeDamaged(t, damagedBase)
	if len(baseDiags) != 0 || len(base) == 0 {
		t.Fatalf("the base capture: %d messages, diagnostics %v", len(base), baseDiags)
	}
	t.Run("fragments", func(t *testing.T) {
		ids := map[int]bool{}
		frags := 0
		for _, r := range readAll(t, damaged("fragments.pcap")) {
			if f, ok := ethIPv4(r.Data); ok && f.fragField&0x3fff != 0 {
				ids[f.id] = true
				frags++
			}
		}
		msgs, diags, sum := decodeDamaged(t, damaged("fragments.pcap"))
		if len(ids) == 0 || sum.Defragmented != len(ids) || sum.Fragments != frags || len(diags) != 0 {
			t.Errorf("%d datagrams in %d fragments: %d reassembled from %d, diagnostics %v", len(ids), frags, sum.Defragmented, sum.Fragments, diags)
		}
		if !slices.Equal(msgs, base) {
			t.Errorf("%d messages, the whole capture has %d (or they differ)", len(msgs), len(base))
		}
	})
	t.Run("snaplen", func(t *testing.T) {
		cut := 0
		for _, r := range readAll(t, damaged("snaplen.pcap")) {
			if f, ok := ethIPv4(r.Data); ok && f.total > len(r.Data)-14 {
				cut++
			}
		}
		_, diags, sum := decodeDamaged(t, damaged("snaplen.pcap"))
		onlyFirst(t, diags, sum, KindSnaplen, cut)
	})
	t.Run("linktype", func(t *testing.T) {
		_, diags, sum := decodeDamaged(t, damaged("linktype.pcap"))
		onlyFirst(t, diags, sum, KindLinkType, sum.Frames)
		if len(diags) != 1 {
			t.Errorf("%d diagnostics, want one line: %v", len(diags), diags)
		}
	})
	t.Run("retransmit", func(t *testing.T) {
		recs := readAll(t, damaged("retransmit.pcap"))
		conflicts, copies := 0, 0
		for i := 1; i < len(recs); i++ {
			a, okA := ethIPv4(recs[i-1].Data)
			b, okB := ethIPv4(recs[i].Data)
			if okA && okB && len(a.tcp) > 20 && len(a.tcp) == len(b.tcp) && bytes.Equal(a.tcp[:8], b.tcp[:8]) {
				copies++
				hl := int(a.tcp[12]>>4) * 4
				if !bytes.Equal(a.tcp[hl:], b.tcp[hl:]) {
					conflicts++
				}
			}
		}
		msgs, diags, sum := decodeDamaged(t, damaged("retransmit.pcap"))
		if conflicts == 0 || conflicts == copies {
			t.Fatalf("%d retransmissions, %d differing: the input no longer has both kinds", copies, conflicts)
		}
		onlyFirst(t, diags, sum, KindRetransmission, conflicts)
		if !slices.Equal(msgs, base) {
			t.Errorf("the first copies are not what was decoded: %d messages, the whole capture has %d (or they differ)", len(msgs), len(base))
		}
	})
	t.Run("timejump", func(t *testing.T) {
		_, _, sum := decodeDamaged(t, damaged("timejump.pcap"))
		if sum.Kinds[KindTimeJump] != 2 {
			t.Errorf("%d time jumps, want 2 (back 5 s, forward 2 h)", sum.Kinds[KindTimeJump])
		}
	})
}
