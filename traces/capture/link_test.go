package capture

import (
	"bytes"
	"encoding/binary"
	"os"
	"slices"
	"testing"
)

// rewritePcap rebuilds a little-endian Ethernet pcap with another link
// header (or byte order), packet by packet: the way to get real traffic in
// link types a Linux loopback capture does not produce.
func rewritePcap(t *testing.T, src []byte, link LinkType, order binary.ByteOrder, header func(ethType uint16) []byte) []byte {
	t.Helper()
	le := binary.LittleEndian
	out := make([]byte, 24)
	order.PutUint32(out, pcapMagicMicro)
	order.PutUint16(out[4:], 2)
	order.PutUint16(out[6:], 4)
	order.PutUint32(out[16:], le.Uint32(src[16:]))
	order.PutUint32(out[20:], uint32(link))
	for off := 24; off+16 <= len(src); {
		capLen := int(le.Uint32(src[off+8:]))
		pkt := src[off+16 : off+16+capLen]
		body := append(header(binary.BigEndian.Uint16(pkt[12:])), pkt[14:]...)
		var h [16]byte
		order.PutUint32(h[0:], le.Uint32(src[off:]))
		order.PutUint32(h[4:], le.Uint32(src[off+4:]))
		order.PutUint32(h[8:], uint32(len(body)))
		order.PutUint32(h[12:], le.Uint32(src[off+12:])-14+uint32(len(body)-capLen+14))
		out = append(append(out, h[:]...), body...)
		off += 16 + capLen
	}
	return out
}

func TestLinkTypes(t *testing.T) {
	src, err := os.ReadFile("../testdata/captures/nixl_ranks.pcap")
	if err != nil {
		t.Fatal(err)
	}
	af := func(order binary.ByteOrder) func(uint16) []byte {
		return func(uint16) []byte { b := make([]byte, 4); order.PutUint32(b, 2); return b }
	}
	cases := []struct {
		name   string
		link   LinkType
		order  binary.ByteOrder
		header func(uint16) []byte
	}{
		{"ethernet big-endian file", LinkEthernet, binary.BigEndian, func(et uint16) []byte {
			return binary.BigEndian.AppendUint16(make([]byte, 12), et)
		}},
		{"ethernet with 802.1Q tag", LinkEthernet, binary.LittleEndian, func(et uint16) []byte {
			b := binary.BigEndian.AppendUint16(make([]byte, 12), etherVLAN)
			b = binary.BigEndian.AppendUint16(b, 42)
			return binary.BigEndian.AppendUint16(b, et)
		}},
		{"raw IP", LinkRaw, binary.LittleEndian, func(uint16) []byte { return nil }},
		{"IPv4", LinkIPv4, binary.LittleEndian, func(uint16) []byte { return nil }},
		{"BSD NULL little-endian", LinkNull, binary.LittleEndian, af(binary.LittleEndian)},
		{"BSD NULL big-endian", LinkNull, binary.LittleEndian, af(binary.BigEndian)},
		{"OpenBSD LOOP", LinkLoop, binary.LittleEndian, af(binary.BigEndian)},
		{"Linux SLL", LinkSLL, binary.LittleEndian, func(et uint16) []byte {
			return binary.BigEndian.AppendUint16(make([]byte, 14), et)
		}},
		{"Linux SLL2", LinkSLL2, binary.LittleEndian, func(et uint16) []byte {
			return append(binary.BigEndian.AppendUint16(nil, et), make([]byte, 18)...)
		}},
	}
	want, _, _ := collect(t, "../testdata/captures/nixl_ranks.pcap", Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := rewritePcap(t, src, tc.link, tc.order, tc.header)
			path := t.TempDir() + "/x.pcap"
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, res, diags := collect(t, path, Options{})
			if len(diags) > 0 || res.Err != nil {
				t.Fatalf("diagnostics %v, error %v", diags, res.Err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d directions, want %d", len(got), len(want))
			}
			for k, w := range want {
				g := got[k]
				if g == nil || !bytes.Equal(g.data, w.data) || !slices.Equal(g.frames, w.frames) {
					t.Errorf("%s: stream or frames differ from the Ethernet original", k)
				}
			}
		})
	}
}
