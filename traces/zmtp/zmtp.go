// Package zmtp decodes one direction of a ZMTP 3.0/3.1 connection (RFC 23 and
// RFC 37) from captured TCP bytes into greetings, commands and complete
// multipart messages.
//
// The decoder is written for evidence, not for talking to peers: it never
// trusts a declared size with an allocation, it survives captures that start
// in the middle of a connection or lose bytes, and it never hands out a
// message with missing parts. Everything it cannot decode becomes a
// [Diagnostic] that carries the capture frame of the offending byte.
//
// The package knows nothing of pcap or of what the messages mean: callers
// feed in-order bytes with their provenance ([Mark]) and receive events
// through a [Handler].
package zmtp

import (
	"fmt"
	"strings"
	"time"
)

// Mark is the provenance of bytes: the 1-based capture frame number
// (Wireshark's numbering) and the frame's timestamp.
type Mark struct {
	Frame int
	Time  time.Time
}

// Defaults used when the corresponding Options field is zero.
const (
	// DefaultMaxFrameSize bounds a single frame. ZeroMQ control traffic is
	// kilobytes; 64 MiB leaves room for bulky metadata while a corrupt
	// 8-byte size (often petabytes) is still caught at once.
	DefaultMaxFrameSize = 64 << 20
	// DefaultMaxMessageSize bounds the sum of a multipart message's parts,
	// which is what the decoder must hold before it can emit the message.
	DefaultMaxMessageSize = 256 << 20
	// DefaultMaxParts bounds the frames of a multipart message. Empty
	// frames cost two bytes on the wire but a part header each in memory:
	// without a bound, one message of millions of empty frames would take
	// gigabytes.
	DefaultMaxParts = 1 << 16
	// DefaultResyncChain is how many non-empty frames must chain exactly
	// before a resync boundary, and again after it, before the decoder
	// believes it. A random byte passes one frame-header check with
	// probability about 6/256, but structured binary (little-endian arrays
	// of small integers) is far more frame-like: on such content chains of
	// 4 and 5 were still fooled at some start offsets, 6 never was (see
	// TestResyncFalsePositives). It costs about one message per resync.
	DefaultResyncChain = 6
	// DefaultResyncWindow bounds the bytes held while resynchronizing.
	DefaultResyncWindow = 256 << 10
)

// Options tune a Decoder. The zero value selects the defaults.
type Options struct {
	// MaxFrameSize is the largest frame body accepted. A larger declared
	// size is reported (KindOversize) and the decoder resynchronizes; the
	// size is never allocated. Zero means DefaultMaxFrameSize.
	MaxFrameSize uint64
	// MaxMessageSize bounds the total size of one multipart message. A
	// message that grows beyond it is dropped whole (KindOversize) and the
	// stream stays in sync. Zero means DefaultMaxMessageSize.
	MaxMessageSize uint64
	// MaxParts bounds the frames of one multipart message. A message with
	// more is dropped whole (KindOversize) and the stream stays in sync.
	// Zero means DefaultMaxParts.
	MaxParts int
	// MidStream says the stream's beginning was not captured: no greeting is
	// expected and the decoder resynchronizes before emitting anything.
	MidStream bool
	// ResyncChain is the number of non-empty frames that must tile the bytes
	// after a candidate offset before the resync boundary, and again after
	// it, before the decoder accepts the candidate. Zero means
	// DefaultResyncChain. Empty frames do not count, so runs of zero bytes
	// (which parse as empty frames) can never confirm a candidate.
	ResyncChain int
	// ResyncWindow bounds the bytes buffered while searching for a
	// resynchronization point. Frames before a candidate boundary are
	// checked as they stream past, whatever their size, but the bytes from
	// the boundary on must be kept until ResyncChain more frames confirm
	// it: a candidate needing more than the window is abandoned, so a
	// stream made only of frames larger than window/ResyncChain cannot
	// resynchronize. Zero means DefaultResyncWindow.
	ResyncWindow int
	// ReuseParts lends a Message's Parts to Handler.Message only: they
	// may lie in the data given to Feed or in buffers the decoder reuses
	// for the next message, so that a steady stream is decoded without
	// copying or allocating. A receiver that keeps a message must then
	// copy it. By default every message is handed
	// out in memory the receiver owns.
	ReuseParts bool
	// SegmentStartsOnly restricts resync candidates to offsets where a TCP
	// segment started. By default every byte offset is a candidate, because
	// libzmq batches writes and segment starts often fall inside frames.
	SegmentStartsOnly bool
}

func (o Options) withDefaults() Options {
	if o.MaxFrameSize == 0 {
		o.MaxFrameSize = DefaultMaxFrameSize
	}
	if o.MaxMessageSize == 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.MaxParts <= 0 {
		o.MaxParts = DefaultMaxParts
	}
	if o.ResyncChain <= 0 {
		o.ResyncChain = DefaultResyncChain
	}
	if o.ResyncWindow <= 0 {
		o.ResyncWindow = DefaultResyncWindow
	}
	return o
}

// Greeting is a peer's ZMTP 3.x greeting.
type Greeting struct {
	Major, Minor uint8
	// Mechanism is the security mechanism name without its NUL padding,
	// e.g. "NULL", "PLAIN" or "CURVE".
	Mechanism string
	AsServer  bool
	// First and Last are the provenance of the greeting's first and last byte.
	First, Last Mark
}

// Version returns the version as "major.minor".
func (g Greeting) Version() string { return fmt.Sprintf("%d.%d", g.Major, g.Minor) }

// Command is a ZMTP command frame. The fields after Data are filled for the
// commands that define them; Data always holds the raw body after the name.
type Command struct {
	Name string
	Data []byte
	// Properties holds the metadata of READY and INITIATE, names as sent.
	// Use Property for the case-insensitive lookup the RFC asks for.
	Properties map[string]string
	// TTL is a PING's time-to-live in tenths of a second.
	TTL uint16
	// Context is a PING's or PONG's context.
	Context []byte
	// Reason is an ERROR's reason.
	Reason string
	// Topic is a SUBSCRIBE's or CANCEL's subscription prefix.
	Topic       []byte
	First, Last Mark
	// Offset is the stream offset of the command's first byte (lost bytes
	// are not counted), comparable with Diagnostic.Offset.
	Offset int64
}

// Property returns the metadata property name, matched case-insensitively.
func (c Command) Property(name string) (string, bool) {
	if v, ok := c.Properties[name]; ok {
		return v, true
	}
	for k, v := range c.Properties {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// Message is a complete multipart message. Parts are owned by the receiver:
// the decoder never writes to them again (unless Options.ReuseParts says
// they are only lent until Handler.Message returns).
type Message struct {
	Parts [][]byte
	// First is the provenance of the message's first byte (its first frame's
	// flags), Last of its last byte.
	First, Last Mark
	// Offset is the stream offset of the message's first byte (lost bytes
	// are not counted). After a KindResynced diagnostic, messages start at
	// or after its Offset.
	Offset int64
}

// Kind classifies a Diagnostic so callers can branch on it.
type Kind int

// Diagnostic kinds.
const (
	// KindGap: bytes were lost; the decoder resynchronizes.
	KindGap Kind = iota + 1
	// KindResynced: the decoder found frame boundaries again; Skipped
	// counts the bytes it could not decode. From here on messages flow.
	KindResynced
	// KindMalformedFrame: a frame header is impossible (reserved flag bits,
	// a command with MORE); the decoder resynchronizes.
	KindMalformedFrame
	// KindOversize: a declared frame size above MaxFrameSize (the decoder
	// resynchronizes) or a message above MaxMessageSize or MaxParts (it is
	// dropped).
	KindOversize
	// KindMalformedCommand: a command's body does not parse; framing is
	// intact, so decoding continues.
	KindMalformedCommand
	// KindDroppedMessage: a partly assembled message was discarded, because
	// of a gap, a malformed frame or an oversize message.
	KindDroppedMessage
	// KindTruncated: the stream ended inside a greeting, frame or message.
	KindTruncated
	// KindNotZMTP: the stream does not start with a ZMTP greeting; the rest
	// of the stream is ignored.
	KindNotZMTP
	// KindUnsupported: a ZMTP 1.0/2.0 greeting or an encrypting mechanism;
	// the rest of the stream is ignored.
	KindUnsupported
	// KindNoSync: the stream ended while the decoder was still looking for
	// frame boundaries.
	KindNoSync
)

var kindNames = [...]string{
	KindGap:              "gap",
	KindResynced:         "resynced",
	KindMalformedFrame:   "malformed frame",
	KindOversize:         "oversize",
	KindMalformedCommand: "malformed command",
	KindDroppedMessage:   "dropped message",
	KindTruncated:        "truncated",
	KindNotZMTP:          "not ZMTP",
	KindUnsupported:      "unsupported",
	KindNoSync:           "no sync",
}

// String returns a short lower-case name of the kind.
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Diagnostic reports something the decoder could not decode normally.
type Diagnostic struct {
	Kind Kind
	// Mark is the provenance of the byte the diagnostic is about.
	Mark Mark
	// Offset is that byte's position in the bytes fed so far (lost bytes
	// are not counted).
	Offset int64
	// Skipped is the number of fed bytes not decoded (KindResynced,
	// KindNoSync).
	Skipped int64
	Text    string
}

// Error formats the diagnostic; Diagnostic satisfies error so callers can
// wrap it.
func (d Diagnostic) Error() string {
	return fmt.Sprintf("zmtp: frame %d: %s: %s", d.Mark.Frame, d.Kind, d.Text)
}

// Handler receives a Decoder's events, in stream order.
type Handler interface {
	Greeting(Greeting)
	Command(Command)
	Message(Message)
	Diagnostic(Diagnostic)
}
