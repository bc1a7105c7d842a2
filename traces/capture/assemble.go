package capture

import (
	"errors"
	"fmt"
	"io"
	"net/netip"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/reassembly"
)

// Half is one direction of a TCP connection: the bytes Src sent to Dst.
type Half struct {
	ID   int // dense, 0-based, in the order the halves first had an event
	Conn int // 0-based connection number, shared by both directions
	Src  netip.AddrPort
	Dst  netip.AddrPort
	// MidStream is true when no SYN was seen for this direction: the
	// capture started after the handshake, so the stream starts at an
	// arbitrary byte.
	MidStream bool
	// State is the caller's: typically the decoder of this direction.
	State any

	started, ended bool
	synSeen        bool
	next           uint32 // sequence number of the next byte to deliver
	nextValid      bool
	segs           []seg // accepted segments not yet fully delivered
}

// String returns "src->dst".
func (h *Half) String() string { return h.Src.String() + "->" + h.Dst.String() }

// seg remembers where a TCP segment's bytes sit in sequence space, so that
// each delivered byte can be traced back to the packet that carried it.
type seg struct {
	seq   uint32
	n     int
	frame int
	time  time.Time
}

// EventKind tells what an Event reports.
type EventKind uint8

// Event kinds, per direction: one Start, then Data and Gap in stream order,
// then at most one End.
const (
	EventStart EventKind = iota + 1 // first event of a direction
	EventData                       // contiguous stream bytes
	EventGap                        // bytes missing from the stream before the next Data
	EventEnd                        // FIN/RST, idle timeout or end of capture
)

func (k EventKind) String() string {
	switch k {
	case EventStart:
		return "start"
	case EventData:
		return "data"
	case EventGap:
		return "gap"
	case EventEnd:
		return "end"
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// Event is what the Assembler delivers. The handler must not keep the
// *Event or Data after it returns: both are reused.
type Event struct {
	Kind EventKind
	Half *Half
	// Frame and Time are those of the packet that carried Data; for Start,
	// Gap and End, of the packet at which the event was noticed.
	Frame int
	Time  time.Time
	Data  []byte
	// SegmentStart is true when Data begins at the first byte of a TCP
	// segment (message boundaries are likely there).
	SegmentStart bool
	// Lost is the number of bytes missing for a Gap.
	Lost int
	// Pending is the oldest frame whose TCP data is buffered out of order
	// (waiting for missing bytes, on any connection), or 0 if none: no
	// later event carries data from an older frame. Consumers that merge
	// directions use it to restore capture order.
	Pending int
}

// Diagnostic is a problem found in the capture, with the frame it is in.
type Diagnostic struct {
	Frame int
	Time  time.Time
	Msg   string
}

func (d Diagnostic) String() string { return fmt.Sprintf("frame %d: %s", d.Frame, d.Msg) }

// Options tune an Assembler. The zero value is usable.
type Options struct {
	// MaxPagesPerConn and MaxPagesTotal bound the out-of-order data kept
	// while waiting for missing segments (a page holds up to 1900 bytes).
	// Defaults 1024 and 16384 (about 2 MB and 30 MB).
	MaxPagesPerConn int
	MaxPagesTotal   int
	// FlushAfter is how long, in capture time, out-of-order data waits
	// for the missing bytes before they are declared lost. Default 5s.
	FlushAfter time.Duration
	// CloseAfter closes connections idle this long in capture time, so
	// that connections whose end was not captured do not stay forever.
	// Default 10 minutes; negative never closes them.
	CloseAfter time.Duration
	// Diagnose receives problems found in the capture; nil drops them.
	Diagnose func(Diagnostic)
}

// Stats counts what an Assembler saw.
type Stats struct {
	Frames      int // packet records read
	TCPSegments int // frames carrying TCP
	Other       int // well-formed frames without TCP (ARP, UDP, ...)
	Malformed   int // frames that could not be parsed down to TCP
	Connections int
	Halves      int // directions that had at least one event
	Gaps        int
	LostBytes   int64
	Bytes       int64 // stream bytes delivered
}

// Assembler turns packet records into per-direction stream events, in
// capture order. It is not safe for concurrent use.
type Assembler struct {
	opt     Options
	handler func(*Event)
	asm     *reassembly.Assembler
	ctx     asmContext
	ev      Event
	tcp     layers.TCP
	stats   Stats
	lastFl  time.Time
	frame   int
	now     time.Time
	nextID  int
	nextCon int
	// queued holds the directions with segments buffered out of order.
	queued map[*Half]struct{}
}

// asmContext carries a packet's capture info through gopacket's
// assembler. Provenance is tracked by sequence number in Half.segs, not
// through the pages' contexts, so one context is reused for every packet.
type asmContext struct{ ci gopacket.CaptureInfo }

func (c *asmContext) GetCaptureInfo() gopacket.CaptureInfo { return c.ci }

// NewAssembler returns an Assembler that calls handler for every event.
func NewAssembler(opt Options, handler func(*Event)) *Assembler {
	if opt.MaxPagesPerConn == 0 {
		opt.MaxPagesPerConn = 1024
	}
	if opt.MaxPagesTotal == 0 {
		opt.MaxPagesTotal = 16384
	}
	if opt.FlushAfter == 0 {
		opt.FlushAfter = 5 * time.Second
	}
	if opt.CloseAfter == 0 {
		opt.CloseAfter = 10 * time.Minute
	}
	a := &Assembler{opt: opt, handler: handler, queued: map[*Half]struct{}{}}
	a.asm = reassembly.NewAssembler(reassembly.NewStreamPool(&factory{a: a}))
	a.asm.MaxBufferedPagesPerConnection = opt.MaxPagesPerConn
	a.asm.MaxBufferedPagesTotal = opt.MaxPagesTotal
	return a
}

// Stats returns the counts so far.
func (a *Assembler) Stats() Stats { return a.stats }

func (a *Assembler) diag(frame int, t time.Time, format string, args ...any) {
	if a.opt.Diagnose != nil {
		a.opt.Diagnose(Diagnostic{Frame: frame, Time: t, Msg: fmt.Sprintf(format, args...)})
	}
}

// Packet feeds one record.
func (a *Assembler) Packet(rec Record) {
	a.stats.Frames++
	a.frame, a.now = rec.Frame, rec.Time
	ip, err := parseLink(rec.Link, rec.Data)
	if err == nil {
		err = a.tcp.DecodeFromBytes(ip.tcp, gopacket.NilDecodeFeedback)
		if err != nil {
			err = fmt.Errorf("TCP header: %w", err)
		}
	}
	if errors.Is(err, errNotTCP) {
		a.stats.Other++
		return
	}
	if err != nil {
		a.stats.Malformed++
		a.diag(rec.Frame, rec.Time, "%v", err)
		return
	}
	a.stats.TCPSegments++
	if ip.truncated > 0 {
		a.diag(rec.Frame, rec.Time, "packet cut by the snap length: %d bytes of TCP data missing", ip.truncated)
	}
	et := layers.EndpointIPv4
	if len(ip.src) == 16 {
		et = layers.EndpointIPv6
	}
	a.ctx.ci = gopacket.CaptureInfo{Timestamp: rec.Time, CaptureLength: len(rec.Data), Length: rec.Length}
	a.asm.AssembleWithContext(gopacket.NewFlow(et, ip.src, ip.dst), &a.tcp, &a.ctx)
	if a.lastFl.IsZero() {
		a.lastFl = rec.Time
	}
	// Flush on capture time, not wall time: a capture is read much faster
	// than it was taken.
	if rec.Time.Sub(a.lastFl) >= time.Second {
		a.lastFl = rec.Time
		fo := reassembly.FlushOptions{T: rec.Time.Add(-a.opt.FlushAfter)}
		if a.opt.CloseAfter > 0 {
			fo.TC = rec.Time.Add(-a.opt.CloseAfter)
		}
		a.asm.FlushWithOptions(fo)
	}
}

// Close delivers what is still buffered (with gaps where bytes are
// missing) and ends every open direction.
func (a *Assembler) Close() {
	a.asm.FlushAll()
}

func (a *Assembler) emit(h *Half, kind EventKind, frame int, t time.Time) {
	if !h.started {
		h.started = true
		h.ID = a.nextID
		a.nextID++
		a.stats.Halves++
		h.MidStream = !h.synSeen
		a.ev = Event{Kind: EventStart, Half: h, Frame: frame, Time: t}
		a.fire()
	}
	if kind == EventStart {
		return
	}
	a.ev = Event{Kind: kind, Half: h, Frame: frame, Time: t}
	a.fire()
}

func (a *Assembler) fire() {
	a.ev.Pending = 0
	for h := range a.queued {
		for _, sg := range h.segs {
			if int32(sg.seq-h.next) > 0 && (a.ev.Pending == 0 || sg.frame < a.ev.Pending) {
				a.ev.Pending = sg.frame
			}
		}
	}
	a.handler(&a.ev)
}

type factory struct{ a *Assembler }

func (f *factory) New(netFlow, tcpFlow gopacket.Flow, _ *layers.TCP, _ reassembly.AssemblerContext) reassembly.Stream {
	a := f.a
	src, dst := addrPort(netFlow.Src(), tcpFlow.Src()), addrPort(netFlow.Dst(), tcpFlow.Dst())
	c := &stream{a: a}
	c.halves[0] = &Half{Conn: a.nextCon, Src: src, Dst: dst}
	c.halves[1] = &Half{Conn: a.nextCon, Src: dst, Dst: src}
	a.nextCon++
	a.stats.Connections++
	return c
}

func addrPort(ip, port gopacket.Endpoint) netip.AddrPort {
	addr, _ := netip.AddrFromSlice(ip.Raw())
	p := port.Raw()
	var n uint16
	if len(p) == 2 {
		n = uint16(p[0])<<8 | uint16(p[1])
	}
	return netip.AddrPortFrom(addr.Unmap(), n)
}

// stream is gopacket's view of one connection.
type stream struct {
	a      *Assembler
	halves [2]*Half // [0]: the direction of the first packet seen
}

func (s *stream) half(dir reassembly.TCPFlowDirection) *Half {
	if dir == reassembly.TCPDirClientToServer {
		return s.halves[0]
	}
	return s.halves[1]
}

// maxSegs bounds the provenance records of one direction; past it the
// oldest are dropped and their bytes are attributed to the current frame.
const maxSegs = 1 << 14

func (s *stream) Accept(tcp *layers.TCP, _ gopacket.CaptureInfo, dir reassembly.TCPFlowDirection, nextSeq reassembly.Sequence, start *bool, _ reassembly.AssemblerContext) bool {
	h := s.half(dir)
	if tcp.SYN {
		h.synSeen = true
	}
	if nextSeq < 0 { // the assembler has not started this direction yet
		if !tcp.SYN {
			// Mid-stream: take this segment as the start instead of
			// buffering forever for a SYN that was never captured.
			*start = true
			h.next = tcp.Seq
		} else {
			h.next = tcp.Seq + 1
		}
		h.nextValid = true
	} else {
		h.next = uint32(nextSeq)
	}
	if n := len(tcp.Payload); n > 0 {
		seq := tcp.Seq
		if tcp.SYN {
			seq++
		}
		// Data wholly before the next byte is a retransmission the
		// assembler will drop: nothing to remember.
		if int32(seq+uint32(n)-h.next) > 0 {
			if len(h.segs) >= maxSegs {
				h.segs = append(h.segs[:0], h.segs[maxSegs/2:]...)
			}
			h.segs = append(h.segs, seg{seq: seq, n: n, frame: s.a.frame, time: s.a.now})
			if int32(seq-h.next) > 0 {
				s.a.queued[h] = struct{}{}
			}
		}
	}
	return true
}

func (s *stream) ReassembledSG(sg reassembly.ScatterGather, _ reassembly.AssemblerContext) {
	a := s.a
	dir, _, end, skip := sg.Info()
	h := s.half(dir)
	avail, _ := sg.Lengths()
	a.emit(h, EventStart, a.frame, a.now)
	pos := h.next
	if skip > 0 {
		a.stats.Gaps++
		a.stats.LostBytes += int64(skip)
		pos += uint32(skip)
		f, t := a.frame, a.now
		if i := h.cover(pos); i >= 0 {
			f, t = h.segs[i].frame, h.segs[i].time
		}
		a.ev = Event{Kind: EventGap, Half: h, Frame: f, Time: t, Lost: skip}
		a.fire()
	}
	if avail > 0 {
		data := sg.Fetch(avail)
		a.stats.Bytes += int64(avail)
		for len(data) > 0 {
			n, f, t, first := len(data), a.frame, a.now, false
			if i := h.cover(pos); i >= 0 {
				sg := h.segs[i]
				n = min(n, int(sg.seq+uint32(sg.n)-pos))
				f, t, first = sg.frame, sg.time, sg.seq == pos
			} else if j := h.after(pos); j >= 0 {
				n = min(n, int(h.segs[j].seq-pos))
			}
			a.ev = Event{Kind: EventData, Half: h, Frame: f, Time: t, Data: data[:n], SegmentStart: first}
			a.fire()
			data = data[n:]
			pos += uint32(n)
		}
	}
	h.next = pos
	h.prune()
	if len(h.segs) == 0 {
		delete(a.queued, h)
	}
	if end && !h.ended {
		h.ended = true
		a.emit(h, EventEnd, a.frame, a.now)
	}
}

// cover returns the index of the earliest-captured segment holding the byte
// at seq (the assembler keeps the first copy of overlapping data), or -1.
func (h *Half) cover(seq uint32) int {
	best := -1
	for i, sg := range h.segs {
		if d := int32(seq - sg.seq); d >= 0 && int(d) < sg.n {
			if best < 0 || sg.frame < h.segs[best].frame {
				best = i
			}
		}
	}
	return best
}

// after returns the index of the segment starting soonest after seq, or -1.
func (h *Half) after(seq uint32) int {
	best := -1
	for i, sg := range h.segs {
		if d := int32(sg.seq - seq); d > 0 && (best < 0 || d < int32(h.segs[best].seq-seq)) {
			best = i
		}
	}
	return best
}

// prune drops segments wholly before the next byte.
func (h *Half) prune() {
	k := 0
	for _, sg := range h.segs {
		if int32(sg.seq+uint32(sg.n)-h.next) > 0 {
			h.segs[k] = sg
			k++
		}
	}
	h.segs = h.segs[:k]
}

func (s *stream) ReassemblyComplete(_ reassembly.AssemblerContext) bool {
	for _, h := range s.halves {
		if h.started && !h.ended {
			h.ended = true
			s.a.emit(h, EventEnd, s.a.frame, s.a.now)
		}
		h.segs = nil
		delete(s.a.queued, h)
	}
	return true
}

// Result is what Run reports besides the events.
type Result struct {
	Stats  Stats
	Format Format
	// First and Last are the earliest and latest timestamps of the
	// records read (zero if none): the span the capture covers.
	First, Last time.Time
	// Err is why reading stopped early (a *RecordError: truncated or
	// corrupt file), or nil when the whole file was read.
	Err error
}

// Run reads a whole capture from r and feeds it to a new Assembler with
// handler. Only a file that is not a capture at all is an error; a
// truncated or corrupt file ends the run early with a diagnostic and
// Result.Err set, after everything before the damage has been delivered.
func Run(r io.Reader, opt Options, handler func(*Event)) (Result, error) {
	rd, err := NewReader(r)
	if err != nil {
		return Result{}, err
	}
	a := NewAssembler(opt, handler)
	res := Result{Format: rd.Format()}
	var last Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			res.Err = err
			var re *RecordError
			frame := last.Frame + 1
			if errors.As(err, &re) {
				frame = re.Frame
			}
			a.diag(frame, last.Time, "%v; stopped reading", errors.Unwrap(err))
			break
		}
		last = rec
		if res.First.IsZero() || rec.Time.Before(res.First) {
			res.First = rec.Time
		}
		if rec.Time.After(res.Last) {
			res.Last = rec.Time
		}
		a.Packet(rec)
	}
	a.Close()
	res.Stats = a.Stats()
	return res, nil
}
