// Package decode joins the trace decoders into one pipeline: capture file
// -> TCP streams (traces/capture) -> ZMTP messages (traces/zmtp) -> SGLang
// messages (traces/wire). It decides which connections are ZeroMQ, keeps
// every message's provenance (frame numbers, timestamps, endpoints, socket
// types) and turns every problem into a diagnostic with a frame number.
package decode

import (
	"fmt"
	"io"
	"net/netip"
	"slices"
	"time"

	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/wire"
	"github.com/roomspec/roomspec/traces/zmtp"
)

// Options tune a decoding run. The zero value decodes every TCP connection
// that turns out to be ZeroMQ.
type Options struct {
	// Ports are treated as ZeroMQ even when a connection on them does not
	// start with a greeting (the capture lost it, or the connection
	// started before the capture): such streams are decoded by resync.
	Ports []uint16
	// Capture tunes reassembly; its Diagnose field is ignored.
	Capture capture.Options
	// ZMTP tunes the ZMTP decoder; its MidStream and ReuseParts fields are
	// set by Run.
	ZMTP zmtp.Options
	// Reuse lets Run reuse the *Message passed to onMessage, its Parts and
	// its Wire value once onMessage returns, which saves most of the
	// allocation (and garbage collection) per message: a callback that
	// keeps a message, or anything in it, must keep m.Clone() instead.
	// Messages are the same as without Reuse.
	Reuse bool
	// MaxHold bounds, in capture time, how long a stream looking for
	// frame boundaries holds back the messages of other streams (to emit
	// them in capture order); past it they go out, and what the stream
	// emits later counts as out of order. Zero: no bound (capture order
	// exactly). A live watch needs a bound: a joined connection that
	// carries only heartbeats may never resynchronize.
	MaxHold time.Duration
	// Count, if set, is called with the kind of every diagnostic as it is
	// counted in Summary.Kinds, those of a kind only counted after its
	// first included: the counts as they grow (a live watch's metrics).
	Count func(Kind)
}

// Message is one decoded multipart message with its provenance.
type Message struct {
	// Frame and Time are those of the packet that completed the message,
	// where Wireshark shows a reassembled PDU: the one carrying its last
	// byte or, when packets were reordered, the later one that filled the
	// hole before it. FirstFrame is where its first byte arrived.
	Frame      int
	FirstFrame int
	Time       time.Time
	Src, Dst   netip.AddrPort
	// Stream numbers the message's direction of its TCP connection
	// (dense, 0-based, in order of first appearance): messages of one
	// stream were sent in this order.
	Stream int
	// MidStream says the capture started after the connection's
	// handshake: messages sent on it before the capture are missing.
	MidStream bool
	// SrcSocket and DstSocket are the ZMTP socket types (PUSH, PULL, ...)
	// announced in the READY commands, or "" when the handshake was not
	// captured.
	SrcSocket, DstSocket string
	// Parts are the frame bodies; they are not reused (unless
	// Options.Reuse says otherwise).
	Parts [][]byte
	Wire  wire.Message
}

// Clone returns a deep copy of m that shares no memory with it: what a
// callback of a run with Options.Reuse keeps.
func (m *Message) Clone() *Message {
	c := *m
	c.Parts = cloneParts(m.Parts)
	c.Wire = wire.Decode(c.Parts)
	return &c
}

func cloneParts(parts [][]byte) [][]byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(parts))
	for i, p := range parts {
		s := len(buf)
		buf = append(buf, p...)
		out[i] = buf[s:len(buf):len(buf)]
	}
	return out
}

// Diagnostic is a problem found while decoding.
type Diagnostic struct {
	Frame int
	Time  time.Time
	// Conn is "src->dst" for a problem in one stream, "" for the file.
	Conn string
	Kind Kind
	Msg  string
	// Offset is the position in the stream's captured bytes (lost bytes
	// not counted) that a stream diagnostic is about; 0 for the file.
	Offset int64
}

func (d Diagnostic) String() string { return d.Text(nil) }

// Text renders d with its position: "frame N: ..." or, when at names the
// frame's file, "FILE:FRAME: ...".
func (d Diagnostic) Text(at Positions) string {
	where := "frame " + position(at, d.Frame).String()
	if pos := position(at, d.Frame); pos.File != "" {
		where = pos.String()
	}
	if d.Conn == "" {
		return where + ": " + d.Msg
	}
	return where + ": " + d.Conn + ": " + d.Msg
}

// Summary counts what a run saw.
type Summary struct {
	// Format is the format of the (first) file.
	Format      capture.Format `json:"format"`
	Frames      int            `json:"frames"`
	Connections int            `json:"connections"`  // TCP connections
	Streams     int            `json:"streams"`      // directions with data
	ZMTPStreams int            `json:"zmtp_streams"` // directions recognised as ZMTP (greeting or resync)
	NotZMTP     int            `json:"not_zmtp"`     // directions with data that were not ZMTP
	Messages    int            `json:"messages"`
	Unknown     int            `json:"unknown"` // messages that matched no SGLang form
	Gaps        int            `json:"gaps"`
	LostBytes   int64          `json:"lost_bytes"`
	Resyncs     int            `json:"resyncs"`
	Diagnostics int            `json:"diagnostics"`
	// Kinds counts the diagnostics of each kind, those not given to
	// onDiag included (every packet-level kind after its first).
	Kinds Counts `json:"kinds"`
	// Fragments counts the IPv4 fragments read, Defragmented the
	// datagrams reassembled from them.
	Fragments    int `json:"ip_fragments"`
	Defragmented int `json:"ip_defragmented"`
	// OutOfOrder counts messages emitted after a message of a later frame:
	// only when more than 65536 messages waited for a resynchronizing
	// stream.
	OutOfOrder int `json:"out_of_order"`
	// Evicted counts connections closed before their end because too
	// many were open at once (capture.Options.MaxConns).
	Evicted int `json:"evicted"`
	// Truncated is set when a file ended inside a record or was corrupt;
	// everything before the damage was decoded (and, of a capture in
	// several files, the files after it).
	Truncated bool `json:"truncated"`
	// Start and End are the earliest and latest packet timestamps: the
	// time span the capture covers (zero when it has no packets).
	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`
	// Files are the files of a capture read as a *capture.Files, in the
	// order read; nil for one file read by Run.
	Files []capture.FileSpan `json:"files,omitempty"`
}

func (s Summary) String() string {
	t := ""
	if s.Diagnostics > 0 {
		t = " (" + s.Kinds.String() + ")"
	}
	if s.Defragmented > 0 {
		t += fmt.Sprintf(", %d IPv4 datagrams reassembled from %d fragments", s.Defragmented, s.Fragments)
	}
	if s.Evicted > 0 {
		t += fmt.Sprintf(", %d connections closed early (too many open)", s.Evicted)
	}
	if s.Truncated {
		t += ", file damaged"
	}
	return fmt.Sprintf("%d frames, %d TCP connections, %d ZMTP streams (%d not ZMTP), %d messages (%d unknown), %d gaps (%d bytes lost), %d resyncs, %d diagnostics%s",
		s.Frames, s.Connections, s.ZMTPStreams, s.NotZMTP, s.Messages, s.Unknown, s.Gaps, s.LostBytes, s.Resyncs, s.Diagnostics, t)
}

// Damage counts the diagnostics of the capture itself (Kind.Damage).
func (s Summary) Damage() Counts {
	out := Counts{}
	for k, n := range s.Kinds {
		if k.Damage() {
			out[k] = n
		}
	}
	return out
}

// Run decodes the capture read from r, calling onMessage for each message
// in the order the messages completed (capture order) and onDiag for each
// problem. Only a file that is not a capture at all is an error.
func Run(r io.Reader, opt Options, onMessage func(*Message), onDiag func(Diagnostic)) (Summary, error) {
	rd, err := capture.NewReader(r)
	if err != nil {
		return Summary{}, fmt.Errorf("decode: %w", err)
	}
	return RunRecords(rd, opt, onMessage, onDiag), nil
}

// RunRecords is Run on the records of src: one file (a *capture.Reader)
// or several read as one capture (a *capture.Files, whose Position turns
// the frame numbers of messages and diagnostics into FILE:FRAME).
func RunRecords(src capture.Records, opt Options, onMessage func(*Message), onDiag func(Diagnostic)) Summary {
	return newPipeline(opt, onMessage, onDiag).run(src)
}

func newPipeline(opt Options, onMessage func(*Message), onDiag func(Diagnostic)) *pipeline {
	p := &pipeline{opt: opt, onMsg: onMessage, onDiag: onDiag}
	p.sum.Kinds = Counts{}
	p.opt.ZMTP.ReuseParts = opt.Reuse
	p.lent.Reuse = true
	p.order.init(opt.ZMTP)
	p.order.maxHold = opt.MaxHold
	return p
}

func (p *pipeline) run(src capture.Records) Summary {
	copt := p.opt.Capture
	copt.Diagnose = func(d capture.Diagnostic) {
		k := kindOfCapture(d.Kind)
		if perPacket(k) {
			if p.sum.Kinds[k] > 0 {
				p.sum.Kinds[k]++
				p.sum.Diagnostics++
				if p.opt.Count != nil {
					p.opt.Count(k)
				}
				return
			}
			d.Msg += " (further " + string(k) + " diagnostics are only counted, in the summary)"
		}
		p.diag(Diagnostic{Frame: d.Frame, Time: d.Time, Kind: k, Msg: d.Msg})
	}
	res := capture.RunRecords(src, copt, func(e *capture.Event) {
		p.order.curPending, p.order.now = e.Pending, e.Time
		p.event(e)
		p.order.release(p.onMsg, e.Pending, false)
	})
	p.order.release(p.onMsg, 0, true)
	s := &p.sum
	s.Format = res.Format
	s.Frames = res.Stats.Frames
	s.Connections = res.Stats.Connections
	s.Streams = res.Stats.Halves
	s.Gaps = res.Stats.Gaps
	s.LostBytes = res.Stats.LostBytes
	s.Evicted = res.Stats.Evicted
	s.Fragments, s.Defragmented = res.Stats.Fragments, res.Stats.Defragmented
	s.Truncated = res.Err != nil
	s.OutOfOrder = p.order.Late
	s.Start, s.End = res.First, res.Last
	if fs, ok := src.(*capture.Files); ok {
		s.Files = fs.Spans()
	}
	return *s
}

type pipeline struct {
	opt    Options
	onMsg  func(*Message)
	onDiag func(Diagnostic)
	sum    Summary
	order  reorder
	wire   wire.Decoder
	// msgs is a block the Messages are carved from: handed out, never
	// reused.
	msgs []Message
	// With Options.Reuse, a message handed straight to onMessage is
	// decoded into scratch by lent.
	scratch Message
	lent    wire.Decoder
	// free holds the streams of ended directions, for the next ones: a
	// capture of many short connections makes no garbage per connection.
	free []*stream
}

// maxFree bounds pipeline.free, so that a burst of connections does not
// keep its streams after it.
const maxFree = 256

func (p *pipeline) newStream(h *capture.Half) *stream {
	var s *stream
	if n := len(p.free); n > 0 {
		s, p.free = p.free[n-1], p.free[:n-1]
	} else {
		s = new(stream)
	}
	*s = stream{p: p, half: h, forced: p.forced(h), hold: holding{index: -1}}
	return s
}

// freeStream takes back s, whose direction has ended.
func (p *pipeline) freeStream(s *stream) {
	if len(p.free) < maxFree {
		*s = stream{}
		p.free = append(p.free, s)
	}
}

// msgBlock is how many Messages are allocated at once (about 12 KiB).
const msgBlock = 64

func (p *pipeline) newMessage() *Message {
	if len(p.msgs) == 0 {
		p.msgs = make([]Message, msgBlock)
	}
	m := &p.msgs[0]
	p.msgs = p.msgs[1:]
	return m
}

func (p *pipeline) diag(d Diagnostic) {
	p.sum.Diagnostics++
	p.sum.Kinds[d.Kind]++
	if p.opt.Count != nil {
		p.opt.Count(d.Kind)
	}
	if p.onDiag != nil {
		p.onDiag(d)
	}
}

// stream is the decoding state of one direction.
type stream struct {
	p       *pipeline
	half    *capture.Half
	dec     *zmtp.Decoder
	forced  bool // a -port match: fall back to resync instead of giving up
	retried bool
	zmtp    bool // counted in ZMTPStreams
	notZMTP bool
	lost    int     // bytes of the last capture gap, for the diagnostic
	dead    bool    // the decoder ignores the rest of the stream
	peer    *stream // the other direction, while both are open: it names the receiver's socket type
	hold    holding
	// last is the Frame/Time of the last message: messages of one
	// stream complete in stream order.
	lastFrame int
	lastTime  time.Time
}

func (p *pipeline) forced(h *capture.Half) bool {
	return slices.Contains(p.opt.Ports, h.Src.Port()) || slices.Contains(p.opt.Ports, h.Dst.Port())
}

func (p *pipeline) event(e *capture.Event) {
	h := e.Half
	m := zmtp.Mark{Frame: e.Frame, Time: e.Time}
	switch e.Kind {
	case capture.EventStart:
		// The decoder is made at the first byte: a direction that carries
		// none (a SYN whose replies were not captured) costs little.
		s := p.newStream(h)
		h.State = s
		if peer, ok := h.Peer().State.(*stream); ok {
			s.peer, peer.peer = peer, s
		}
	case capture.EventData:
		s := h.State.(*stream)
		s.decoder().Feed(e.Data, m, e.SegmentStart)
		p.order.track(s, len(e.Data), e.Frame)
	case capture.EventGap:
		s := h.State.(*stream)
		s.lost = e.Lost
		s.decoder().Gap(m)
		p.order.track(s, 0, e.Frame)
	case capture.EventEnd:
		s := h.State.(*stream)
		if s.dec != nil {
			s.dec.Close(m)
		}
		s.dead = true
		p.order.track(s, 0, e.Frame)
		if s.notZMTP {
			p.sum.NotZMTP++
		}
		h.State = nil
		if s.peer != nil {
			s.peer.peer = nil
		}
		p.freeStream(s)
	}
}

// decoder returns s's ZMTP decoder, made on first use.
func (s *stream) decoder() *zmtp.Decoder {
	if s.dec == nil {
		zo := s.p.opt.ZMTP
		zo.MidStream = s.half.MidStream
		s.dec = zmtp.NewDecoder(s, zo)
	}
	return s.dec
}

// The zmtp.Handler of one stream.

func (s *stream) Greeting(zmtp.Greeting) {
	s.markZMTP()
}

func (s *stream) Command(zmtp.Command) {}

func (s *stream) markZMTP() {
	if !s.zmtp {
		s.zmtp = true
		s.notZMTP = false
		s.p.sum.ZMTPStreams++
	}
}

func (s *stream) Message(zm zmtp.Message) {
	p := s.p
	if zm.Last.Frame > s.lastFrame {
		s.lastFrame, s.lastTime = zm.Last.Frame, zm.Last.Time
	}
	var m *Message
	parts, dec := zm.Parts, &p.wire
	switch {
	case !p.opt.Reuse:
		m = p.newMessage()
	case p.order.direct():
		m, dec = &p.scratch, &p.lent
	default:
		// It waits in the reorder buffer, past the decoder's loan.
		m, parts = p.newMessage(), cloneParts(parts)
	}
	*m = Message{
		Frame:      s.lastFrame,
		FirstFrame: zm.First.Frame,
		Time:       s.lastTime,
		Src:        s.half.Src,
		Dst:        s.half.Dst,
		Stream:     s.half.ID,
		MidStream:  s.half.MidStream,
		SrcSocket:  s.dec.PeerSocketType(),
		Parts:      parts,
		Wire:       dec.Decode(parts),
	}
	if s.peer != nil && s.peer.dec != nil {
		m.DstSocket = s.peer.dec.PeerSocketType()
	}
	p.sum.Messages++
	if _, ok := m.Wire.(*wire.Unknown); ok {
		p.sum.Unknown++
	}
	p.order.push(m, p.onMsg)
}

func (s *stream) Diagnostic(d zmtp.Diagnostic) {
	p := s.p
	msg := d.Text
	switch d.Kind {
	case zmtp.KindResynced:
		p.sum.Resyncs++
		s.markZMTP()
	case zmtp.KindGap:
		if s.lost > 0 {
			msg = fmt.Sprintf("%d bytes lost: %s", s.lost, msg)
			s.lost = 0
		}
	case zmtp.KindNotZMTP:
		if s.forced && !s.retried {
			// The port says ZeroMQ: the greeting was lost, so look for
			// frame boundaries in what follows instead.
			s.retried = true
			zo := p.opt.ZMTP
			zo.MidStream = true
			s.dec = zmtp.NewDecoder(s, zo)
			msg += "; the port is forced, so decoding by resync"
		} else {
			s.notZMTP = true
			s.dead = true
		}
	case zmtp.KindUnsupported:
		s.dead = true
	case zmtp.KindNoSync:
		if !s.zmtp {
			s.notZMTP = true
		}
	}
	p.diag(Diagnostic{Frame: d.Mark.Frame, Time: d.Mark.Time, Conn: s.half.String(), Kind: StreamKind(d.Kind), Msg: msg, Offset: d.Offset})
}
