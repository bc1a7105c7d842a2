package capture

import (
	"net"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// seg describes one TCP segment for tcpRecord.
type seg struct {
	src, dst     string // "10.0.0.1:4000"
	seq          uint32
	syn, fin     bool
	rst          bool
	payload      []byte
	at           time.Duration // after t0
	frame        int
	ipID         uint16
	fragOff      uint16 // in 8-byte units
	moreFrags    bool
	rawIPPayload []byte // when set, the IP payload instead of a TCP segment
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func hostPort(t testing.TB, s string) (net.IP, layers.TCPPort) {
	t.Helper()
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		t.Fatal(err)
	}
	var port int
	for _, c := range p {
		port = port*10 + int(c-'0')
	}
	return net.ParseIP(h).To4(), layers.TCPPort(port)
}

// tcpBytes serializes s's TCP segment (header and payload), checksummed
// for its IPv4 addresses.
func tcpBytes(t testing.TB, s seg) []byte {
	t.Helper()
	sip, sport := hostPort(t, s.src)
	dip, dport := hostPort(t, s.dst)
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: sip, DstIP: dip}
	tcp := &layers.TCP{SrcPort: sport, DstPort: dport, Seq: s.seq, SYN: s.syn, FIN: s.fin, RST: s.rst, ACK: !s.syn, Window: 65495}
	if err := tcp.SetNetworkLayerForChecksum(ip); err != nil {
		t.Fatal(err)
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, tcp, gopacket.Payload(s.payload)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tcpRecord returns the raw-IPv4 record of s.
func tcpRecord(t testing.TB, s seg) Record {
	t.Helper()
	payload := s.rawIPPayload
	if payload == nil {
		payload = tcpBytes(t, s)
	}
	sip, _ := hostPort(t, s.src)
	dip, _ := hostPort(t, s.dst)
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: sip, DstIP: dip, Id: s.ipID, FragOffset: s.fragOff}
	if s.moreFrags {
		ip.Flags = layers.IPv4MoreFragments
	}
	buf := gopacket.NewSerializeBuffer()
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, gopacket.Payload(payload)); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	return Record{Frame: s.frame, Time: t0.Add(s.at), Link: LinkIPv4, Data: data, Length: len(data)}
}

// records numbers segs as frames 1, 2, ... (1 ms apart unless at is
// set) and returns their records.
func records(t testing.TB, segs ...seg) []Record {
	t.Helper()
	out := make([]Record, len(segs))
	for i, s := range segs {
		s.frame = i + 1
		if s.at == 0 {
			s.at = time.Duration(i) * time.Millisecond
		}
		out[i] = tcpRecord(t, s)
	}
	return out
}
