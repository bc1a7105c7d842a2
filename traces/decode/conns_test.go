package decode

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"github.com/roomspec/roomspec/traces/capture"
)

// refusedRounds returns a pcap of the refused connections of
// ../testdata/conns/conns.pcap (SYNs to a closed port and the kernel's
// RST/ACKs) played k times, each round later than the one before.
func refusedRounds(t *testing.T, k int) []byte {
	t.Helper()
	data, err := os.ReadFile("../testdata/conns/conns.pcap")
	if err != nil {
		t.Fatal(err)
	}
	rd, err := capture.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		t            time.Time
		data         []byte
		sport, dport layers.TCPPort
		synAck, syn  bool
	}
	var recs []rec
	for {
		r, err := rd.Next()
		if err != nil {
			break
		}
		if r.Link != capture.LinkEthernet {
			t.Fatalf("frame %d: link %v, want Ethernet", r.Frame, r.Link)
		}
		p := gopacket.NewPacket(r.Data, layers.LinkTypeEthernet, gopacket.Default)
		tcp, ok := p.Layer(layers.LayerTypeTCP).(*layers.TCP)
		if !ok {
			t.Fatalf("frame %d: no TCP", r.Frame)
		}
		recs = append(recs, rec{r.Time, bytes.Clone(r.Data), tcp.SrcPort, tcp.DstPort, tcp.SYN && tcp.ACK, tcp.SYN})
	}
	// A closed port is sent SYNs and answers none with a SYN/ACK.
	closed := map[layers.TCPPort]bool{}
	for _, r := range recs {
		if r.syn && !r.synAck {
			closed[r.dport] = true
		}
	}
	for _, r := range recs {
		if r.synAck {
			delete(closed, r.sport)
		}
	}
	var keep []rec
	for _, r := range recs {
		if closed[r.sport] || closed[r.dport] {
			keep = append(keep, r)
		}
	}
	if len(keep) != 6 {
		t.Fatalf("%d packets of refused connections, want 6", len(keep))
	}
	var out bytes.Buffer
	w := pcapgo.NewWriter(&out)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	span := keep[len(keep)-1].t.Sub(keep[0].t) + time.Millisecond
	for i := range k {
		for _, r := range keep {
			ci := gopacket.CaptureInfo{Timestamp: r.t.Add(time.Duration(i) * span), CaptureLength: len(r.data), Length: len(r.data)}
			if err := w.WritePacket(ci, r.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out.Bytes()
}

// Decoding a refused connection makes no garbage: the Assembler's
// connection and the pipeline's stream of one are reused by the next, so
// that the collector's work does not grow with the connections a capture
// has seen. A run over 4 times the connections allocates no more.
func TestRefusedConnectionsAllocateNothing(t *testing.T) {
	allocs := func(k int) float64 {
		data := refusedRounds(t, k)
		return testing.AllocsPerRun(3, func() {
			sum, err := Run(bytes.NewReader(data), Options{}, func(*Message) {}, nil)
			if err != nil || sum.Connections != 3*k || sum.Diagnostics != 0 {
				t.Fatalf("%v; %v; want %d connections, no diagnostic", sum, err, 3*k)
			}
		})
	}
	few, many := allocs(100), allocs(400)
	if per := (many - few) / 900; per > 0.01 {
		t.Errorf("%.3f allocations per refused connection (%v for 300, %v for 1200), want 0", per, few, many)
	}
}
