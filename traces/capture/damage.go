package capture

import (
	"fmt"
	"hash/crc32"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/ip4defrag"
	"github.com/google/gopacket/layers"
)

// DiagKind classifies a Diagnostic, so that callers count and branch on
// kinds rather than on text.
type DiagKind uint8

// Diagnostic kinds: what is wrong with the capture itself.
const (
	// DiagMalformed: a packet that does not parse down to TCP.
	DiagMalformed DiagKind = iota + 1
	// DiagSnaplen: a packet cut by the capture's snap length: bytes of
	// its TCP segment were never captured.
	DiagSnaplen
	// DiagLinkType: a packet of a link type this package cannot decode.
	DiagLinkType
	// DiagFragment: an IP fragment that could not be reassembled (IPv6,
	// or an IPv4 datagram whose fragments never all came).
	DiagFragment
	// DiagRetransmission: a TCP retransmission whose bytes differ from the
	// first copy's; the first copy is kept.
	DiagRetransmission
	// DiagTimeJump: capture time steps back, or forward by an hour or
	// more, between two packets (a clock step, or files of one capture
	// that overlap).
	DiagTimeJump
	// DiagEvicted: too many connections open at once; the idlest closed.
	DiagEvicted
	// DiagFile: the file ends inside a record or is corrupt.
	DiagFile
	numDiagKinds
)

var diagNames = [...]string{
	DiagMalformed:      "malformed-packet",
	DiagSnaplen:        "snaplen",
	DiagLinkType:       "link-type",
	DiagFragment:       "ip-fragment",
	DiagRetransmission: "retransmission-conflict",
	DiagTimeJump:       "time-jump",
	DiagEvicted:        "evicted",
	DiagFile:           "damaged-file",
}

// String returns the kind's name, as decode's summaries count it.
func (k DiagKind) String() string {
	if k > 0 && k < numDiagKinds {
		return diagNames[k]
	}
	return fmt.Sprintf("DiagKind(%d)", int(k))
}

// DiagKinds lists the kinds, in order.
func DiagKinds() []DiagKind {
	out := make([]DiagKind, 0, numDiagKinds-1)
	for k := DiagKind(1); k < numDiagKinds; k++ {
		out = append(out, k)
	}
	return out
}

// Damage counts the packets (or events) of each kind of damage.
type Damage [numDiagKinds]int

// Of returns the count of kind k.
func (d *Damage) Of(k DiagKind) int {
	if k >= numDiagKinds {
		return 0
	}
	return d[k]
}

// Backward steps of capture time up to this much are the ordinary
// jitter of a capture taken on several cores, not a jump.
const jumpBackTolerance = 10 * time.Millisecond

// JumpForward is the smallest forward step of capture time between two
// packets that is reported as a jump (DiagTimeJump): longer than any
// silence of the control plane a deadline would be measured across.
const JumpForward = time.Hour

// timeStep reports a jump of capture time between the previous packet
// and rec.
func (a *Assembler) timeStep(rec *Record) {
	prev, prevFrame := a.lastTime, a.stepFrame
	a.lastTime, a.stepFrame = rec.Time, rec.Frame
	if prev.IsZero() {
		return
	}
	switch d := rec.Time.Sub(prev); {
	case d < -jumpBackTolerance:
		a.diagK(DiagTimeJump, rec.Frame, rec.Time, "capture time goes back %v (to %s, from %s at frame %d)",
			-d, rec.Time.Format(time.RFC3339Nano), prev.Format(time.RFC3339Nano), prevFrame)
	case d >= JumpForward:
		a.diagK(DiagTimeJump, rec.Frame, rec.Time, "capture time jumps forward %v (from %s at frame %d): a clock step, or nothing captured for that long",
			d, prev.Format(time.RFC3339Nano), prevFrame)
	}
}

// defrag reassembles IPv4 fragments (gopacket's ip4defrag, with capture
// time). It returns the whole datagram's packet when rec's fragment
// completes one, ok false while fragments are missing.
func (a *Assembler) defrag(rec *Record, raw []byte) (p ipPacket, ok bool, err error) {
	if a.frags == nil {
		a.frags = ip4defrag.NewIPv4Defragmenter()
	}
	// The defragmenter keeps the fragment: it must own its bytes.
	ip := new(layers.IPv4)
	if err := ip.DecodeFromBytes(append([]byte(nil), raw...), gopacket.NilDecodeFeedback); err != nil {
		return p, false, fmt.Errorf("IPv4 fragment: %w", err)
	}
	a.stats.Fragments++
	a.fragsOpen = true
	out, err := a.frags.DefragIPv4WithTimestamp(ip, rec.Time)
	if err != nil {
		return p, false, err
	}
	if out == nil {
		return p, false, nil
	}
	a.stats.Defragmented++
	if out.Protocol != layers.IPProtocolTCP {
		return p, false, errNotTCP
	}
	return ipPacket{src: out.SrcIP.To4(), dst: out.DstIP.To4(), tcp: out.Payload}, true, nil
}

// discardFragments forgets the fragments of datagrams not completed
// within FlushAfter (all of them at the end of the capture).
func (a *Assembler) discardFragments(before time.Time) {
	if !a.fragsOpen {
		return
	}
	if n := a.frags.DiscardOlderThan(before); n > 0 {
		a.stats.Damage[DiagFragment] += n - 1 // diagK counts one
		a.diagK(DiagFragment, a.frame, a.now, "%d fragmented IPv4 datagrams never completed; their fragments are dropped", n)
	}
}

// recentSums is how many delivered segments a direction remembers to
// check retransmissions against.
const recentSums = 8

// segSum is what a direction remembers of a delivered segment: where it
// was in the stream, and a checksum of its bytes.
type segSum struct {
	seq   uint32
	n     uint32
	crc   uint32
	frame int
}

// remember records the delivered bytes data, starting at seq.
func (h *Half) remember(seq uint32, data []byte, frame int) {
	if len(data) == 0 {
		return
	}
	h.sums[h.nsums%recentSums] = segSum{seq: seq, n: uint32(len(data)), crc: crc32.ChecksumIEEE(data), frame: frame}
	h.nsums++
}

// conflict checks the bytes of a segment at seq that lie before next (a
// retransmission of delivered bytes) against the delivered segments h
// remembers, whole ones only: it returns the frame of a first copy whose
// bytes differ, or 0.
func (h *Half) conflict(seq, next uint32, data []byte) int {
	over := int32(next - seq)
	if over <= 0 || h.nsums == 0 {
		return 0
	}
	for i := range min(h.nsums, recentSums) {
		s := &h.sums[i]
		off := int32(s.seq - seq)
		if off < 0 || int64(off)+int64(s.n) > int64(min(int(over), len(data))) {
			continue // not wholly inside the retransmitted, delivered bytes
		}
		if crc32.ChecksumIEEE(data[off:off+int32(s.n)]) != s.crc {
			return s.frame
		}
	}
	return 0
}
