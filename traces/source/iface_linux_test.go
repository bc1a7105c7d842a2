//go:build linux

package source

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"golang.org/x/net/bpf"

	"github.com/roomspec/roomspec/traces/capture"
)

// TestTCPFilter runs the interface's BPF program (without the loopback
// part, which the x/net VM cannot run) on the frames of the committed
// Ethernet captures (IPv4 and IPv6) and compares its decision with
// gopacket's decoding of each frame: TCP passes, with ports given only
// TCP to or from one of them; other EtherTypes and IP protocols are
// dropped.
func TestTCPFilter(t *testing.T) {
	for _, name := range []string{"nixl_ranks.pcap", "mooncake.pcap", "midstream.pcap"} {
		f, err := os.Open(filepath.Join("..", "testdata", "captures", name))
		if err != nil {
			t.Fatal(err)
		}
		rd, err := capture.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		var frames [][]byte
		for {
			rec, err := rd.Next()
			if err != nil {
				break
			}
			frames = append(frames, append([]byte(nil), rec.Data...))
		}
		f.Close()
		// The port of the first TCP segment's destination, and a range
		// around another connection's source port.
		var ports []PortRange
		for _, fr := range frames {
			if tcp, ok := gopacket.NewPacket(fr, layers.LayerTypeEthernet, gopacket.Default).Layer(layers.LayerTypeTCP).(*layers.TCP); ok {
				ports = []PortRange{{uint16(tcp.DstPort), uint16(tcp.DstPort)}}
				break
			}
		}
		for _, ps := range [][]PortRange{nil, ports, {{1, 2}, {65000, 65535}}} {
			vm, err := bpf.NewVM(tcpFilter(false, ps))
			if err != nil {
				t.Fatal(err)
			}
			passed := 0
			for i, fr := range frames {
				want := false
				if tcp, ok := gopacket.NewPacket(fr, layers.LayerTypeEthernet, gopacket.Default).Layer(layers.LayerTypeTCP).(*layers.TCP); ok {
					want = len(ps) == 0
					for _, r := range ps {
						for _, p := range []uint16{uint16(tcp.SrcPort), uint16(tcp.DstPort)} {
							want = want || r.Lo <= p && p <= r.Hi
						}
					}
				}
				n, err := vm.Run(fr)
				if err != nil {
					t.Fatal(err)
				}
				if (n > 0) != want {
					t.Errorf("%s frame %d, ports %v: filter passes %v, want %v", name, i+1, ps, n > 0, want)
				}
				if n > 0 {
					passed++
				}
				// The same frame as ARP, and as UDP.
				other := append([]byte(nil), fr...)
				other[12], other[13] = 0x08, 0x06
				if n, _ := vm.Run(other); n != 0 {
					t.Errorf("%s frame %d as ARP passes", name, i+1)
				}
				other = append(other[:0], fr...)
				if other[12] == 0x08 {
					other[14+9] = 17
				} else {
					other[14+6] = 17
				}
				if n, _ := vm.Run(other); n != 0 {
					t.Errorf("%s frame %d as UDP passes", name, i+1)
				}
			}
			t.Logf("%s, ports %v: %d of %d frames pass", name, ps, passed, len(frames))
			if len(ps) < 2 && passed == 0 {
				t.Errorf("%s, ports %v: no frame passes", name, ps)
			}
		}
	}
}
