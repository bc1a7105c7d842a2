package benchdata

import (
	"bytes"
	"io"
	"net"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// The connection benchmarks of issue 25 (decode, replay and watch over
// the same captures): many TCP connections left open in the middle of
// their ZMTP greeting when the capture ends, made in memory so that the
// benchmarks run without root. Kernel-made captures of the same shape,
// for whole-process runs, come from traces/testdata/make_conns.py --half N.

// GreetingHead is the signature and version of a ZMTP 3.1 greeting: 12
// of its 64 bytes.
var GreetingHead = []byte{0xff, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 3, 1}

// Greeting is a whole ZMTP 3.1 NULL greeting.
func Greeting() []byte {
	g := make([]byte, 64)
	copy(g, GreetingHead)
	copy(g[12:], "NULL")
	return g
}

// ReadyPush is a READY command announcing a PUSH socket.
func ReadyPush() []byte {
	body := append([]byte{5}, "READY"...)
	body = append(body, 11)
	body = append(body, "Socket-Type"...)
	body = append(body, 0, 0, 0, 4)
	body = append(body, "PUSH"...)
	return append([]byte{4, byte(len(body))}, body...)
}

// HalfGreetings serializes a pcap of n connections that each send a SYN
// and the first 12 bytes of a ZMTP greeting, 20 us apart, and are still
// open (in their greeting) when the capture ends; beside them, one ZeroMQ
// connection with a whole greeting sends a 2-frame ABORT after every
// every-th of them. It is the shape of make_conns.py --half N, made
// without root.
func HalfGreetings(tb testing.TB, n, every int) []byte {
	tb.Helper()
	var out bytes.Buffer
	if err := WriteHalfGreetings(&out, n, every); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

// WriteHalfGreetings writes HalfGreetings' capture to w (for
// whole-process runs: go run ./internal/benchdata/halfgreetings).
func WriteHalfGreetings(w io.Writer, n, every int) error {
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		return err
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	server := net.IP{10, 1, 0, 1}
	at := t0
	write := func(src net.IP, sport layers.TCPPort, dport layers.TCPPort, seq uint32, syn bool, payload []byte) error {
		at = at.Add(10 * time.Microsecond)
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src, DstIP: server}
		tcp := &layers.TCP{SrcPort: sport, DstPort: dport, Seq: seq, SYN: syn, ACK: !syn, PSH: len(payload) > 0, Window: 65495}
		if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
			return err
		}
		if err := gopacket.SerializeLayers(buf, opts, eth, ip, tcp, gopacket.Payload(payload)); err != nil {
			return err
		}
		pkt := buf.Bytes()
		return pw.WritePacket(gopacket.CaptureInfo{Timestamp: at, CaptureLength: len(pkt), Length: len(pkt)}, pkt)
	}
	// The live ZeroMQ connection: SYN, then a whole greeting and READY.
	live := net.IP{10, 2, 0, 1}
	liveSeq := uint32(1000)
	if err := write(live, 40000, 5556, liveSeq, true, nil); err != nil {
		return err
	}
	liveSeq++
	hello := append(Greeting(), ReadyPush()...)
	if err := write(live, 40000, 5556, liveSeq, false, hello); err != nil {
		return err
	}
	liveSeq += uint32(len(hello))
	abort := []byte{1, 5, 'A', 'B', 'O', 'R', 'T', 0, 3, '4', '2', '1'}
	for i := range n {
		client := net.IP{10, 0, byte(i >> 16), byte(i >> 8)}
		cport := layers.TCPPort(1024 + i&0xff)
		seq := uint32(i) * 7919
		if err := write(client, cport, 5555, seq, true, nil); err != nil {
			return err
		}
		if err := write(client, cport, 5555, seq+1, false, GreetingHead); err != nil {
			return err
		}
		if i%every == 0 {
			if err := write(live, 40000, 5556, liveSeq, false, abort); err != nil {
				return err
			}
			liveSeq += uint32(len(abort))
		}
	}
	return nil
}

// HeldAtEOF is a reader of data that, when the whole of it has been read
// (its first io.EOF), collects garbage and records the live heap in
// Held, less Before (the live heap when it was made): what the reader's
// consumer holds once the last packet is in and before it closes what
// is still open.
type HeldAtEOF struct {
	r            io.Reader
	Before, Held uint64
	done         bool
}

// NewHeldAtEOF returns a HeldAtEOF over data, after a collection.
func NewHeldAtEOF(data []byte) *HeldAtEOF {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return &HeldAtEOF{r: bytes.NewReader(data), Before: m.HeapAlloc}
}

// Read implements io.Reader.
func (e *HeldAtEOF) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF && !e.done {
		e.done = true
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		e.Held = m.HeapAlloc - min(m.HeapAlloc, e.Before)
	}
	return n, err
}

// ConnSize is one capture size of the connection benchmarks.
type ConnSize struct {
	N     int    // connections
	Label string // "10k", "1M"
}

// ReportPerConn reports, for each size, the wall and CPU time per
// connection of its passes ("ns/conn-L", "cpu-ns/conn-L"), each later
// size's ratio to the first ("L/F", "cpu-L/F": 1 when the cost is linear
// in the capture), and the allocations per connection of the last
// ("allocs/conn-L", "B/conn-L").
func ReportPerConn(b *testing.B, sizes []ConnSize, timers []Timer) {
	perConn := func(i int, d time.Duration) float64 {
		return float64(d.Nanoseconds()) / float64(b.N) / float64(sizes[i].N)
	}
	for i, sz := range sizes {
		t := &timers[i]
		b.ReportMetric(perConn(i, t.Wall), "ns/conn-"+sz.Label)
		if !t.NoCPU {
			b.ReportMetric(perConn(i, t.CPU), "cpu-ns/conn-"+sz.Label)
		}
		if i == 0 {
			continue
		}
		ratio := sz.Label + "/" + sizes[0].Label
		b.ReportMetric(perConn(i, t.Wall)/perConn(0, timers[0].Wall), ratio)
		if !t.NoCPU && timers[0].CPU > 0 {
			b.ReportMetric(perConn(i, t.CPU)/perConn(0, timers[0].CPU), "cpu-"+ratio)
		}
	}
	last := len(sizes) - 1
	conns := float64(b.N) * float64(sizes[last].N)
	b.ReportMetric(float64(timers[last].Allocs)/conns, "allocs/conn-"+sizes[last].Label)
	b.ReportMetric(float64(timers[last].Bytes)/conns, "B/conn-"+sizes[last].Label)
}

// HalfGreetingSizes are the sizes issue 25 benchmarks decode, replay and
// watch at: 10k, 100k and 1M connections open in their greeting (the
// goal: 1M/10k <= 1.5 per connection, under 500 MB).
var HalfGreetingSizes = []ConnSize{{10_000, "10k"}, {100_000, "100k"}, {1_000_000, "1M"}}

// BenchHalfGreetings is the benchmark of issue 25 over the half-greeting
// captures of HalfGreetingSizes (one ABORT per 1000 connections), which
// decode, replay and watch run: pass reads the capture from r, all of it,
// as the benchmarked command does, and checks what it found of sz's
// connections. It reports the time per connection of each size and the
// ratios to 10k's (ReportPerConn), the heap held when the last packet has
// been read and the process's peak RSS (ReportHeld). Every size is made
// before the first pass and kept in memory throughout, so that each pass
// runs with the same live heap.
func BenchHalfGreetings(b *testing.B, pass func(r io.Reader, sz ConnSize)) {
	sizes := HalfGreetingSizes
	data := make([][]byte, len(sizes))
	for i, sz := range sizes {
		data[i] = HalfGreetings(b, sz.N, 1000)
	}
	// Making them left garbage: return its memory to the system now.
	debug.FreeOSMemory()
	timers := make([]Timer, len(sizes))
	held := make([]uint64, len(sizes))
	for b.Loop() {
		for i, sz := range sizes {
			r := NewHeldAtEOF(data[i])
			timers[i].Time(func() { pass(r, sz) })
			held[i] = max(held[i], r.Held)
		}
	}
	ReportPerConn(b, sizes, timers)
	ReportHeld(b, sizes, held)
}

// ReportHeld reports the heap held at the end of each size's capture
// ("held-MB-L", the largest of its passes), and the process's peak RSS
// ("peak-RSS-MB": an upper bound of any one pass's, since the process
// also holds every size's capture in memory throughout).
func ReportHeld(b *testing.B, sizes []ConnSize, held []uint64) {
	for i, sz := range sizes {
		b.ReportMetric(float64(held[i])/(1<<20), "held-MB-"+sz.Label)
	}
	if rss, ok := MaxRSS(); ok {
		b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
	}
}
