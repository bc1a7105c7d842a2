package decode

import (
	"fmt"
	"sort"
	"strings"

	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/zmtp"
)

// Kind names what a Diagnostic is about, so that callers count and
// branch on kinds, never on text: a problem of one stream is named as
// zmtp names its kind (StreamKind), a problem of the capture itself by
// what went wrong (Damage reports which). It prints as the name.
type Kind string

// Kinds of the capture itself (traces/capture): the packets.
const (
	KindMalformedPacket Kind = "malformed-packet"        // a packet that does not parse down to TCP
	KindSnaplen         Kind = "snaplen"                 // a packet cut by the capture's snap length
	KindLinkType        Kind = "link-type"               // a packet of a link type not decoded
	KindFragment        Kind = "ip-fragment"             // an IP fragment not reassembled
	KindRetransmission  Kind = "retransmission-conflict" // a retransmission that differs from the first copy
	KindTimeJump        Kind = "time-jump"               // capture time steps back, or forward by an hour
	KindEvicted         Kind = "evicted"                 // too many connections open: the idlest closed
	KindDamagedFile     Kind = "damaged-file"            // a file truncated or corrupt
)

// Kinds of one stream's bytes (traces/zmtp), with zmtp.Kind's names.
const (
	KindGap              Kind = "gap"
	KindResynced         Kind = "resynced"
	KindMalformedFrame   Kind = "malformed frame"
	KindOversize         Kind = "oversize" // a frame, or a message's bytes or frames, above the bounds
	KindMalformedCommand Kind = "malformed command"
	KindDroppedMessage   Kind = "dropped message"
	KindTruncated        Kind = "truncated"
	KindNotZMTP          Kind = "not ZMTP"
	KindUnsupported      Kind = "unsupported"
	KindNoSync           Kind = "no sync"
)

func kindOfCapture(k capture.DiagKind) Kind { return Kind(k.String()) }

// StreamKind is the Kind of a stream diagnostic of zmtp kind k.
func StreamKind(k zmtp.Kind) Kind { return Kind(k.String()) }

// Damage reports whether kind k is damage of the capture itself (what
// a replay must say it judged through), rather than of a stream.
func (k Kind) Damage() bool {
	switch k {
	case KindMalformedPacket, KindSnaplen, KindLinkType, KindFragment, KindRetransmission, KindTimeJump, KindEvicted, KindDamagedFile:
		return true
	}
	return false
}

// perPacket are the capture kinds that may occur at every packet: only
// the first of each is given to onDiag (it says so); the Summary counts
// them all.
func perPacket(k Kind) bool {
	switch k {
	case KindMalformedPacket, KindSnaplen, KindLinkType, KindFragment, KindRetransmission:
		return true
	}
	return false
}

// Counts counts diagnostics by kind.
type Counts map[Kind]int

// String lists the counts, largest first: "3 snaplen, 1 gap".
func (c Counts) String() string {
	kinds := make([]Kind, 0, len(c))
	for k := range c {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		if c[kinds[i]] != c[kinds[j]] {
			return c[kinds[i]] > c[kinds[j]]
		}
		return kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", c[k], k)
	}
	return strings.Join(parts, ", ")
}
