package zmtp

import (
	"encoding/binary"
	"fmt"
	"strings"
)

const (
	greetingSize = 64

	flagMore    = 0x01
	flagLong    = 0x02
	flagCommand = 0x04
	flagsRsvd   = 0xF8
)

type state uint8

const (
	stGreeting state = iota
	stFrames
	stResync
	stDead // not ZMTP, unsupported, or closed: ignore everything
)

// Decoder decodes ONE direction of one TCP connection. It is not safe for
// concurrent use.
//
// Memory is bounded by the frame being assembled (at most its declared size,
// and only as its bytes arrive), the message being assembled (at most
// Options.MaxMessageSize) and, while resynchronizing, Options.ResyncWindow
// plus one 64 KiB piece of input.
type Decoder struct {
	h    Handler
	opts Options

	state  state
	closed bool
	off    int64 // stream offset of the next byte Feed receives

	// Greeting being assembled.
	greet      [greetingSize]byte
	greetN     int
	greetFirst Mark

	// Frame being assembled.
	hdr       [9]byte
	hdrN      int
	hdrMark   Mark
	hdrOff    int64
	inBody    bool
	flags     byte
	remaining uint64

	// Message being assembled: the bodies of its parts back to back in
	// buf[msgStart:], each part's end (relative to msgStart) in ends.
	// buf[:msgStart] holds messages already emitted, which are never
	// written again: the message is assembled where the receiver will own
	// it, so its bytes are copied once, from the input.
	inMsg    bool
	discard  bool // the message went over MaxMessageSize: skip to its end
	msgFirst Mark
	msgOff   int64
	buf      []byte
	msgStart int
	ends     []int

	// Emitted messages' part headers are carved from this and never
	// written again; with ReuseParts, lent from scratch instead, which
	// also gathers the parts of a message found whole in the input.
	partSlab [][]byte
	scratch  [][]byte

	cmdBuf []byte

	socketType string
	identity   string
	greeting   *Greeting

	rs resync
}

// NewDecoder returns a decoder that reports to h.
func NewDecoder(h Handler, opts Options) *Decoder {
	d := &Decoder{h: h, opts: opts.withDefaults()}
	if d.opts.MidStream {
		d.enterResync(0, 0, nil, Mark{})
	}
	return d
}

// Synced reports whether the decoder is at known frame boundaries: after a
// valid greeting, or after a successful resynchronization (announced by a
// KindResynced diagnostic). After Close it keeps its last value.
func (d *Decoder) Synced() bool { return d.state == stFrames }

// PeerSocketType returns the Socket-Type property of the last READY (or
// INITIATE) command seen, or "" if none was seen.
func (d *Decoder) PeerSocketType() string { return d.socketType }

// PeerIdentity returns the Identity property of the last READY (or
// INITIATE) command seen.
func (d *Decoder) PeerIdentity() string { return d.identity }

// PeerGreeting returns the greeting seen at the start of the stream, if any.
func (d *Decoder) PeerGreeting() (Greeting, bool) {
	if d.greeting == nil {
		return Greeting{}, false
	}
	return *d.greeting, true
}

// Feed decodes the next in-order bytes of the stream, all with provenance m.
// segmentStart says data[0] is the first byte of a TCP segment, a likely
// frame boundary when resynchronizing. Feed does not retain data.
func (d *Decoder) Feed(data []byte, m Mark, segmentStart bool) {
	if d.closed {
		return
	}
	base := d.off
	d.off += int64(len(data))
	for len(data) > 0 {
		var n int
		switch d.state {
		case stGreeting:
			n = d.greetingBytes(data, m, base)
		case stFrames:
			n = d.frames(data, m, base)
		case stResync:
			// Hand the bytes over in pieces so that one huge Feed cannot
			// make the resync buffer grow beyond the window plus a piece.
			n = min(len(data), resyncPiece)
			d.rsAppend(data[:n], m, segmentStart, base)
			d.rsRun()
		default:
			return
		}
		data = data[n:]
		base += int64(n)
		segmentStart = false
	}
}

// Gap says bytes were lost before the next Feed; m is the provenance of the
// first byte after the gap, if known. Any partly assembled message is
// dropped and the decoder resynchronizes.
func (d *Decoder) Gap(m Mark) {
	if d.closed {
		return
	}
	switch d.state {
	case stDead:
		return
	case stResync:
		d.diag(KindGap, m, d.off, "bytes lost while resynchronizing; restarting the search")
		d.rs.restart(d.off)
		return
	case stGreeting:
		if d.greetN > 0 {
			d.diag(KindGap, m, d.off, fmt.Sprintf("bytes lost after %d of %d greeting bytes; resynchronizing", d.greetN, greetingSize))
		} else {
			d.diag(KindGap, m, d.off, "bytes lost before the greeting; resynchronizing")
		}
	case stFrames:
		d.diag(KindGap, m, d.off, "bytes lost; resynchronizing")
		d.dropPartial(m, d.off, "gap")
	}
	d.enterResync(d.off, d.off, nil, m)
}

// Close ends the stream, reporting anything left incomplete. Later calls
// to Feed, Gap and Close do nothing.
func (d *Decoder) Close(m Mark) {
	if d.closed {
		return
	}
	d.closed = true
	switch d.state {
	case stGreeting:
		if d.greetN > 0 {
			d.diag(KindTruncated, m, d.off, fmt.Sprintf("stream ended after %d of %d greeting bytes", d.greetN, greetingSize))
		}
	case stFrames:
		switch {
		case d.inBody:
			d.diag(KindTruncated, m, d.off, fmt.Sprintf("stream ended inside a frame at offset %d, %d body bytes missing", d.hdrOff, d.remaining))
		case d.hdrN > 0:
			d.diag(KindTruncated, m, d.off, fmt.Sprintf("stream ended inside a frame header at offset %d", d.hdrOff))
		case d.inMsg:
			d.diag(KindTruncated, m, d.off, fmt.Sprintf("stream ended after part %d of a message, before its last part", len(d.ends)))
		}
		d.dropPartial(m, d.off, "end of stream")
	case stResync:
		d.report(Diagnostic{Kind: KindNoSync, Mark: m, Offset: d.off, Skipped: d.off - d.rs.from,
			Text: fmt.Sprintf("stream ended before frame boundaries were found; %d bytes not decoded", d.off-d.rs.from)})
	}
	d.rs.release()
	d.buf, d.msgStart, d.ends, d.cmdBuf = nil, 0, nil, nil
	d.inMsg, d.inBody, d.hdrN = false, false, 0
}

func (d *Decoder) diag(k Kind, m Mark, off int64, text string) {
	d.h.Diagnostic(Diagnostic{Kind: k, Mark: m, Offset: off, Text: text})
}

func (d *Decoder) report(x Diagnostic) { d.h.Diagnostic(x) }

// greetingBytes consumes greeting bytes from data and returns how many.
func (d *Decoder) greetingBytes(data []byte, m Mark, base int64) int {
	if d.greetN == 0 {
		d.greetFirst = m
	}
	n := copy(d.greet[d.greetN:], data)
	d.greetN += n
	g := d.greet[:d.greetN]
	// Check what has arrived so far, so that a non-ZMTP stream is given up
	// at its first byte rather than after 64.
	if g[0] != 0xFF {
		d.diag(KindNotZMTP, d.greetFirst, base-int64(d.greetN-n),
			fmt.Sprintf("stream starts with 0x%02x, not a ZMTP greeting signature (0xFF); ignoring this stream", g[0]))
		d.state = stDead
		return len(data)
	}
	if len(g) > 9 && g[9]&0x01 == 0 {
		d.diag(KindUnsupported, m, base, "ZMTP 1.0 peer (no greeting); ignoring this stream")
		d.state = stDead
		return len(data)
	}
	if len(g) > 10 && g[10] < 3 {
		d.diag(KindUnsupported, m, base, fmt.Sprintf("ZMTP revision %d (ZMTP 2.0 or older) is not supported; ignoring this stream", g[10]))
		d.state = stDead
		return len(data)
	}
	if d.greetN < greetingSize {
		return n
	}
	gr := Greeting{
		Major:     g[10],
		Minor:     g[11],
		Mechanism: strings.TrimRight(string(g[12:32]), "\x00"),
		AsServer:  g[32] != 0,
		First:     d.greetFirst,
		Last:      m,
	}
	d.greeting = &gr
	d.h.Greeting(gr)
	switch gr.Mechanism {
	case "NULL", "PLAIN":
		d.state = stFrames
	default:
		// CURVE and GSSAPI carry messages encrypted inside commands.
		d.diag(KindUnsupported, m, base+int64(n)-1, fmt.Sprintf("mechanism %q encrypts traffic; ignoring the rest of this stream", gr.Mechanism))
		d.state = stDead
		return len(data)
	}
	return n
}

// frames decodes frames from data, whose first byte is at stream offset
// base. It returns how many bytes it consumed; it stops early only when it
// switched to resynchronizing, and the rest of data then belongs to the
// resync search.
func (d *Decoder) frames(data []byte, m Mark, base int64) int {
	i := 0
	for i < len(data) {
		if d.inBody {
			n := len(data) - i
			if uint64(n) > d.remaining {
				n = int(d.remaining)
			}
			switch {
			case d.flags&flagCommand != 0:
				d.cmdBuf = append(d.cmdBuf, data[i:i+n]...)
			case !d.discard:
				d.appendBody(data[i : i+n])
			}
			d.remaining -= uint64(n)
			i += n
			if d.remaining == 0 {
				d.inBody = false
				d.endFrame(m)
			}
			continue
		}
		if d.hdrN == 0 {
			// The commonest case: a whole message inside data.
			if !d.inMsg {
				if n, ok := d.fastMessage(data[i:], m, base+int64(i)); ok {
					i += n
					continue
				}
			}
			// Then a valid header wholly inside data.
			if n, ok := d.fastHeader(data[i:], m, base+int64(i)); ok {
				i += n
				continue
			}
			// Frame header, possibly split across Feed calls, or bad.
			f := data[i]
			d.hdrMark, d.hdrOff = m, base+int64(i)
			d.hdr[0] = f
			d.hdrN = 1
			i++
			if f&flagsRsvd != 0 || f&(flagCommand|flagMore) == flagCommand|flagMore {
				why := "reserved flag bits set"
				if f&flagsRsvd == 0 {
					why = "command frame with the MORE flag"
				}
				d.diag(KindMalformedFrame, m, d.hdrOff, fmt.Sprintf("frame flags 0x%02x at offset %d: %s; resynchronizing", f, d.hdrOff, why))
				d.dropPartial(m, d.hdrOff, "malformed frame")
				d.enterResync(d.hdrOff, d.hdrOff+1, nil, m)
				return i
			}
			continue
		}
		need := 2
		if d.hdr[0]&flagLong != 0 {
			need = 9
		}
		n := copy(d.hdr[d.hdrN:need], data[i:])
		d.hdrN += n
		i += n
		if d.hdrN < need {
			continue
		}
		var size uint64
		if need == 2 {
			size = uint64(d.hdr[1])
		} else {
			size = binary.BigEndian.Uint64(d.hdr[1:9])
		}
		if size > d.opts.MaxFrameSize {
			d.diag(KindOversize, d.hdrMark, d.hdrOff, fmt.Sprintf("frame at offset %d declares %d bytes, limit %d; resynchronizing", d.hdrOff, size, d.opts.MaxFrameSize))
			seed := d.hdr[1:d.hdrN]
			d.dropPartial(m, d.hdrOff, "oversize frame")
			d.enterResync(d.hdrOff, d.hdrOff+1, seed, d.hdrMark)
			return i
		}
		d.hdrN = 0
		d.startFrame(d.hdr[0], size, m)
	}
	return i
}

// fastMessage decodes a message that lies wholly in b (whose first byte is
// at stream offset off, all of it with provenance m) and is valid: frames
// with possible headers, within the size limits, up to one without MORE.
// It reports false, having changed nothing, for anything else (a message
// that continues past b, a command, a bad header), which the frame-at-a-
// time path then handles. Parts are first gathered as sub-slices of b.
func (d *Decoder) fastMessage(b []byte, m Mark, off int64) (int, bool) {
	parts := d.scratch[:0]
	pos, total := 0, uint64(0)
	for {
		if len(b)-pos < 2 {
			return 0, false
		}
		f := b[pos]
		if f&^(flagMore|flagLong) != 0 {
			return 0, false // a command, or reserved bits set
		}
		hl, size := 2, uint64(b[pos+1])
		if f&flagLong != 0 {
			if len(b)-pos < 9 {
				return 0, false
			}
			hl, size = 9, binary.BigEndian.Uint64(b[pos+1:pos+9])
		}
		if size > d.opts.MaxFrameSize || size > uint64(len(b)-pos-hl) {
			return 0, false
		}
		total += size
		if total > d.opts.MaxMessageSize || len(parts) >= d.opts.MaxParts {
			return 0, false
		}
		start := pos + hl
		pos = start + int(size)
		parts = append(parts, b[start:pos:pos])
		if f&flagMore == 0 {
			break
		}
	}
	d.scratch = parts
	d.msgFirst, d.msgOff = m, off
	if d.opts.ReuseParts {
		// Lend the parts where they lie in the caller's data.
		d.h.Message(Message{Parts: parts, First: m, Last: m, Offset: off})
		clear(parts)
		return pos, true
	}
	for _, p := range parts {
		d.appendBody(p)
		d.ends = append(d.ends, d.msgLen())
	}
	clear(parts)
	msg := Message{Parts: d.carve(), First: m, Last: m, Offset: off}
	d.ends = d.ends[:0]
	d.h.Message(msg)
	return pos, true
}

// fastHeader decodes a frame header that lies wholly in b (whose first
// byte is at stream offset off) and is valid, and then starts its frame.
// It reports false, having changed nothing, for anything else: the
// byte-at-a-time path handles split and invalid headers.
func (d *Decoder) fastHeader(b []byte, m Mark, off int64) (int, bool) {
	if len(b) < 2 {
		return 0, false
	}
	f := b[0]
	if f&flagsRsvd != 0 || f&(flagCommand|flagMore) == flagCommand|flagMore {
		return 0, false
	}
	hl, size := 2, uint64(b[1])
	if f&flagLong != 0 {
		if len(b) < 9 {
			return 0, false
		}
		hl, size = 9, binary.BigEndian.Uint64(b[1:9])
	}
	if size > d.opts.MaxFrameSize {
		return 0, false
	}
	d.hdrMark, d.hdrOff = m, off
	d.startFrame(f, size, m)
	return hl, true
}

// startFrame begins the frame whose header (flags f, body size) ended in
// a byte with provenance m.
func (d *Decoder) startFrame(f byte, size uint64, m Mark) {
	d.flags = f
	d.remaining = size
	if f&flagCommand == 0 {
		d.startPart(size)
	}
	if size == 0 {
		d.endFrame(m)
	} else {
		d.inBody = true
	}
}

// msgLen is the number of body bytes of the message being assembled.
func (d *Decoder) msgLen() int { return len(d.buf) - d.msgStart }

// startPart begins a message part of the given size, enforcing
// MaxMessageSize before any byte of it is stored.
func (d *Decoder) startPart(size uint64) {
	if !d.inMsg {
		d.inMsg = true
		d.msgFirst, d.msgOff = d.hdrMark, d.hdrOff
	}
	if d.discard {
		return
	}
	why := ""
	switch {
	case uint64(d.msgLen())+size > d.opts.MaxMessageSize:
		why = fmt.Sprintf("message reaches %d bytes in part %d, limit %d", uint64(d.msgLen())+size, len(d.ends)+1, d.opts.MaxMessageSize)
	case len(d.ends) >= d.opts.MaxParts:
		why = fmt.Sprintf("message reaches %d frames, limit %d", len(d.ends)+1, d.opts.MaxParts)
	default:
		return
	}
	d.diag(KindOversize, d.hdrMark, d.hdrOff, why+"; dropping it (its frames are read to its end)")
	d.discard = true
	d.buf = d.buf[:d.msgStart]
	d.ends = d.ends[:0]
}

const (
	slabSize     = 8 << 10 // bytes shared by the small messages handed out
	partSlabSize = 256     // part headers shared by the messages handed out
	maxKeptBuf   = 1 << 20 // a larger buffer is not kept after its message
)

// appendBody adds body bytes to the message being assembled. Small
// messages share slabs, so a steady stream costs a small fraction of an
// allocation per message; the price is that holding on to one small
// message keeps its (at most 8 KiB) slab alive. A message that does not
// fit the rest of the slab moves, with the bytes it has so far, to a new
// one; a large message grows its own buffer by doubling, as its bytes
// arrive, never on a declared size.
func (d *Decoder) appendBody(p []byte) {
	if len(d.buf)+len(p) > cap(d.buf) {
		have := d.msgLen()
		need := have + len(p)
		size := slabSize
		if need > slabSize/2 {
			size = int(min(2*uint64(need), max(uint64(need), d.opts.MaxMessageSize)))
		}
		nb := make([]byte, have, size)
		copy(nb, d.buf[d.msgStart:])
		d.buf, d.msgStart = nb, 0
	}
	d.buf = append(d.buf, p...)
}

// endFrame completes the frame whose last byte had provenance m.
func (d *Decoder) endFrame(m Mark) {
	if d.flags&flagCommand != 0 {
		c, err := parseCommand(d.cmdBuf)
		d.cmdBuf = d.cmdBuf[:0]
		c.First, c.Last, c.Offset = d.hdrMark, m, d.hdrOff
		if err != nil {
			d.diag(KindMalformedCommand, d.hdrMark, d.hdrOff, fmt.Sprintf("command at offset %d: %v", d.hdrOff, err))
		}
		if c.Name == "READY" || c.Name == "INITIATE" {
			if v, ok := c.Property("Socket-Type"); ok {
				d.socketType = v
			}
			if v, ok := c.Property("Identity"); ok {
				d.identity = v
			}
		}
		d.h.Command(c)
		return
	}
	if !d.discard {
		d.ends = append(d.ends, d.msgLen())
	}
	if d.flags&flagMore != 0 {
		return
	}
	if d.discard {
		d.discard = false
		d.inMsg = false
		return
	}
	if d.opts.ReuseParts {
		d.lend(m)
		return
	}
	msg := Message{Parts: d.carve(), First: d.msgFirst, Last: m, Offset: d.msgOff}
	d.ends = d.ends[:0]
	d.inMsg = false
	d.h.Message(msg)
}

// lend hands the assembled message to the receiver for the duration of
// the Handler.Message call, then takes its memory back.
func (d *Decoder) lend(m Mark) {
	body := d.buf[d.msgStart:len(d.buf):len(d.buf)]
	parts := d.scratch[:0]
	start := 0
	for _, e := range d.ends {
		parts = append(parts, body[start:e:e])
		start = e
	}
	d.scratch = parts
	d.ends = d.ends[:0]
	d.inMsg = false
	d.h.Message(Message{Parts: parts, First: d.msgFirst, Last: m, Offset: d.msgOff})
	clear(parts) // do not keep the bytes alive through stale headers
	if cap(d.buf) > maxKeptBuf {
		d.buf, d.msgStart = nil, 0
	} else {
		d.buf = d.buf[:d.msgStart]
	}
}

// carve hands the assembled message to the receiver: its parts are
// sub-slices of buf, which is never written again below the new msgStart.
// Capacities are clipped so that appending to a part or to Parts cannot
// reach a neighbour.
func (d *Decoder) carve() [][]byte {
	body := d.buf[d.msgStart:len(d.buf):len(d.buf)]
	if cap(d.buf) > maxKeptBuf {
		// The message grew a buffer of its own: let it go with the
		// message instead of keeping it alive for the next ones.
		d.buf, d.msgStart = nil, 0
	} else {
		d.msgStart = len(d.buf)
	}
	n := len(d.ends)
	var parts [][]byte
	if n > partSlabSize/8 {
		parts = make([][]byte, n)
	} else {
		if len(d.partSlab) < n {
			d.partSlab = make([][]byte, partSlabSize)
		}
		parts = d.partSlab[:n:n]
		d.partSlab = d.partSlab[n:]
	}
	start := 0
	for k, e := range d.ends {
		parts[k] = body[start:e:e]
		start = e
	}
	return parts
}

// dropPartial discards a partly assembled frame or message, reporting a
// message that loses parts.
func (d *Decoder) dropPartial(m Mark, off int64, why string) {
	if d.inMsg && !d.discard {
		d.diag(KindDroppedMessage, m, off, fmt.Sprintf("dropped a partial message (%d complete parts, %d bytes) begun in frame %d: %s",
			len(d.ends), d.msgLen(), d.msgFirst.Frame, why))
	}
	d.inMsg, d.discard, d.inBody = false, false, false
	d.hdrN = 0
	d.remaining = 0
	d.buf = d.buf[:d.msgStart]
	d.ends = d.ends[:0]
	d.cmdBuf = d.cmdBuf[:0]
}
