package capture

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"slices"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/ip4defrag"
	"github.com/google/gopacket/layers"
)

// Half is one direction of a TCP connection: the bytes Src sent to Dst.
//
// A *Half is the Assembler's and is valid from the direction's Start event
// to its End event; once both directions of a connection have ended (or
// the connection was reset, expired or evicted) its memory is reused for a
// later connection, so that short connections make no garbage. Callers
// that keep a record of a direction past its End key it by ID, not by
// pointer.
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
	// The Assembler clears it when it reuses the Half.
	State any

	started, ended bool
	synSeen        bool
	next           uint32 // sequence number of the next byte to deliver
	nextValid      bool
	// buf holds the segments received ahead of next (a byte is missing
	// before them), in sequence order; pages counts them as the
	// MaxPages options do.
	buf   []segment
	pages int
	peer  *Half // the other direction of the connection
	// sums remembers the last segments delivered, to check
	// retransmissions against; nsums counts them.
	sums  [recentSums]segSum
	nsums int
}

// Peer returns the other direction of h's connection.
func (h *Half) Peer() *Half { return h.peer }

// String returns "src->dst".
func (h *Half) String() string { return h.Src.String() + "->" + h.Dst.String() }

// segment is a TCP segment buffered out of order, with the packet that
// carried it, so that each delivered byte keeps its provenance.
type segment struct {
	seq   uint32
	data  []byte
	frame int
	time  time.Time
	fin   bool // the segment ends the direction after its data
}

// pageBytes is the unit of the MaxPages options: a buffered segment counts
// one page per started pageBytes of data.
const pageBytes = 1900

func (s *segment) pages() int { return max(1, (len(s.data)+pageBytes-1)/pageBytes) }

// EventKind tells what an Event reports.
type EventKind uint8

// Event kinds, per direction: one Start, then Data and Gap in stream order,
// then at most one End.
const (
	EventStart EventKind = iota + 1 // first event of a direction
	EventData                       // contiguous stream bytes
	EventGap                        // bytes missing from the stream before the next Data
	EventEnd                        // FIN/RST, idle timeout, eviction or end of capture
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
	// Gap and End, of the packet at which the event was noticed (for a
	// Gap, the packet carrying the first byte after it).
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
	Kind  DiagKind
	Frame int
	Time  time.Time
	Msg   string
}

func (d Diagnostic) String() string { return fmt.Sprintf("frame %d: %s", d.Frame, d.Msg) }

// Options tune an Assembler. The zero value is usable.
type Options struct {
	// MaxPagesPerConn and MaxPagesTotal bound the out-of-order data kept
	// while waiting for missing segments (a page holds up to 1900 bytes);
	// past them the missing bytes are declared lost. Defaults 1024 and
	// 16384 (about 2 MB and 30 MB).
	MaxPagesPerConn int
	MaxPagesTotal   int
	// FlushAfter is how long, in capture time, out-of-order data waits
	// for the missing bytes before they are declared lost. Default 5s.
	FlushAfter time.Duration
	// CloseAfter closes connections idle this long in capture time, so
	// that connections whose end was not captured do not stay forever.
	// Default 10 minutes; negative never closes them.
	CloseAfter time.Duration
	// MaxConns bounds the connections tracked at once: opening one more
	// closes the connection idle longest (a diagnostic the first time;
	// Stats.Evicted counts them). Default 65536; negative: no bound.
	MaxConns int
	// Diagnose receives problems found in the capture; nil drops them.
	Diagnose func(Diagnostic)
}

// Stats counts what an Assembler saw.
type Stats struct {
	Frames      int // packet records read
	TCPSegments int // frames carrying TCP
	Other       int // well-formed frames without TCP (ARP, UDP, ...)
	Malformed   int // frames that could not be parsed down to TCP
	// Connections counts connections opened: by a SYN or by data on no
	// tracked connection (a FIN, RST or bare ACK on none, such as the last
	// ACK of a close, opens nothing).
	Connections int
	Halves      int // directions that had at least one event
	Gaps        int
	LostBytes   int64
	Bytes       int64 // stream bytes delivered
	// Expired and Evicted count connections closed before their end was
	// captured: idle for Options.CloseAfter, or the idle longest when
	// Options.MaxConns were open.
	Expired, Evicted int
	// MaxOpen is the most connections tracked at once.
	MaxOpen int
	// Fragments counts the IPv4 fragments read, Defragmented the
	// datagrams they were reassembled into.
	Fragments, Defragmented int
	// Damage counts the diagnostics of each kind.
	Damage Damage
}

// Assembler turns packet records into per-direction stream events, in
// capture order. It is not safe for concurrent use.
//
// The work per packet does not grow with the number of connections the
// capture has seen, and memory is bounded by the connections open at once
// (at most Options.MaxConns) and the out-of-order buffers: a connection is
// released when both directions have ended (FIN), at a RST in either
// direction, after Options.CloseAfter idle, or when evicted.
//
// The reassembly is this package's own rather than gopacket/reassembly's,
// whose connection pool can only be flushed as a whole (every connection
// visited at each flush), closes only the direction that sent a RST and
// cannot release or evict one connection; gopacket still parses the
// TCP header.
type Assembler struct {
	opt     Options
	handler func(*Event)
	ev      Event
	tcp     layers.TCP
	stats   Stats
	lastFl  time.Time
	frame   int
	now     time.Time
	nextID  int
	nextCon int
	conns   map[connKey]*conn
	idle    idleList
	// buffered knows the segments buffered out of order, oldest first;
	// pages counts their pages.
	buffered arrivals
	pages    int
	evicted  bool // the eviction diagnostic was given
	// free holds released connections for the next ones.
	free []*conn
	// lastTime and stepFrame are the previous packet's time and frame
	// (time jumps are measured from them).
	lastTime  time.Time
	stepFrame int
	frags     *ip4defrag.IPv4Defragmenter
	fragsOpen bool // frags may hold fragments
}

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
	if opt.MaxConns == 0 {
		opt.MaxConns = 1 << 16
	}
	a := &Assembler{opt: opt, handler: handler, conns: map[connKey]*conn{}}
	a.idle.init()
	return a
}

// Stats returns the counts so far.
func (a *Assembler) Stats() Stats { return a.stats }

// diagK counts a diagnostic of kind k and gives it to Options.Diagnose.
func (a *Assembler) diagK(k DiagKind, frame int, t time.Time, format string, args ...any) {
	a.stats.Damage[k]++
	if a.opt.Diagnose != nil {
		a.opt.Diagnose(Diagnostic{Kind: k, Frame: frame, Time: t, Msg: fmt.Sprintf(format, args...)})
	}
}

// Packet feeds one record.
func (a *Assembler) Packet(rec Record) {
	a.stats.Frames++
	a.frame, a.now = rec.Frame, rec.Time
	a.timeStep(&rec)
	if ip, ok := a.network(&rec); ok {
		a.transport(&rec, ip)
	}
	a.flush(rec.Time)
}

// network parses rec down to its TCP segment, reassembling IPv4
// fragments; ok is false for a packet without one (diagnosed if it is
// damage) and for a fragment of a datagram not yet whole.
func (a *Assembler) network(rec *Record) (ip ipPacket, ok bool) {
	ip, err := parseLink(rec.Link, rec.Data)
	if errors.Is(err, errFragment) && ip.raw != nil {
		ip, ok, err = a.defrag(rec, ip.raw)
		if err == nil && !ok {
			return ip, false // more fragments to come
		}
	}
	if err == nil {
		if err = a.tcp.DecodeFromBytes(ip.tcp, gopacket.NilDecodeFeedback); err != nil {
			err = fmt.Errorf("TCP header: %w", err)
		}
	}
	_, badLink := err.(linkTypeError)
	switch {
	case err == nil:
		a.stats.TCPSegments++
		return ip, true
	case errors.Is(err, errNotTCP):
		a.stats.Other++
	case badLink:
		a.stats.Malformed++
		a.diagK(DiagLinkType, rec.Frame, rec.Time, "%v", err)
	case errors.Is(err, errFragment):
		a.stats.Malformed++
		a.diagK(DiagFragment, rec.Frame, rec.Time, "%v", err)
	default:
		a.stats.Malformed++
		a.diagK(DiagMalformed, rec.Frame, rec.Time, "%v", err)
	}
	return ip, false
}

// transport handles the TCP segment in a.tcp, from the packet ip of rec.
func (a *Assembler) transport(rec *Record, ip ipPacket) {
	if ip.truncated > 0 {
		a.diagK(DiagSnaplen, rec.Frame, rec.Time, "packet cut by the snap length: %d bytes of TCP data missing", ip.truncated)
	}
	src := netip.AddrPortFrom(addrOf(ip.src), uint16(a.tcp.SrcPort))
	dst := netip.AddrPortFrom(addrOf(ip.dst), uint16(a.tcp.DstPort))
	a.expire(rec.Time)
	c := a.conns[keyOf(src, dst)]
	if c == nil && (a.tcp.SYN || len(a.tcp.Payload) > 0) {
		c = a.open(src, dst)
	}
	if c != nil {
		c.lastSeen, c.lastFrame = rec.Time, rec.Frame
		a.idle.toBack(c)
		h := &c.halves[0]
		if h.Src != src {
			h = &c.halves[1]
		}
		a.segment(c, h)
	}
}

func addrOf(raw []byte) netip.Addr {
	addr, _ := netip.AddrFromSlice(raw)
	return addr.Unmap()
}

// segment handles the TCP segment in a.tcp, sent in direction h of c.
func (a *Assembler) segment(c *conn, h *Half) {
	t := &a.tcp
	if h.ended {
		return
	}
	if t.SYN {
		h.synSeen = true
	}
	seq := t.Seq
	if t.SYN {
		seq++
	}
	if !h.nextValid && !t.SYN && len(t.Payload) == 0 {
		// No byte to start the stream at: a bare ACK, FIN or RST. Such
		// a direction has no events; its FIN or RST still ends it.
		if t.RST {
			a.close(c)
			return
		}
		h.ended = h.ended || t.FIN
		if c.halves[0].ended && c.halves[1].ended {
			a.release(c)
		}
		return
	}
	if !h.nextValid {
		// The first segment starts the stream: after the SYN, or here
		// when the capture joined the connection mid-stream.
		h.next, h.nextValid = seq, true
		a.start(h)
	}
	if len(t.Payload) > 0 || t.FIN {
		a.add(h, seq, t.Payload, t.FIN)
	}
	if t.RST {
		a.close(c) // the connection is gone in both directions
		return
	}
	if c.halves[0].ended && c.halves[1].ended {
		a.release(c)
	}
}

// add takes the bytes of one segment starting at seq.
func (a *Assembler) add(h *Half, seq uint32, data []byte, fin bool) {
	d := int32(seq - h.next)
	if d < 0 {
		a.checkRetransmission(h, seq, data, a.frame)
	}
	if d > 0 {
		a.buffer(h, segment{seq: seq, data: slices.Clone(data), frame: a.frame, time: a.now, fin: fin})
		return
	}
	if end := seq + uint32(len(data)); int32(end-h.next) > 0 {
		a.deliver(h, data[-d:], a.frame, a.now, d == 0)
		h.next = end
	}
	if fin {
		a.end(h)
		return
	}
	a.drain(h)
}

// checkRetransmission reports a segment at seq whose bytes before h.next
// (delivered already, from a first copy) differ from that copy's.
func (a *Assembler) checkRetransmission(h *Half, seq uint32, data []byte, frame int) {
	if first := h.conflict(seq, h.next, data); first != 0 {
		a.diagK(DiagRetransmission, frame, a.now, "%s: a retransmission whose bytes differ from the first copy's (frame %d); the first copy is kept", h, first)
	}
}

// deliver emits stream bytes; they start at h.next.
func (a *Assembler) deliver(h *Half, data []byte, frame int, t time.Time, segStart bool) {
	a.stats.Bytes += int64(len(data))
	h.remember(h.next, data, frame)
	a.ev = Event{Kind: EventData, Half: h, Frame: frame, Time: t, Data: data, SegmentStart: segStart}
	a.fire()
}

// buffer keeps s until the bytes before it arrive, or are declared lost
// when the buffers are full.
func (a *Assembler) buffer(h *Half, s segment) {
	i, _ := slices.BinarySearchFunc(h.buf, s.seq, func(b segment, seq uint32) int {
		if int32(b.seq-seq) > 0 {
			return 1
		}
		return -1 // equal sequence numbers: the first copy stays first
	})
	h.buf = slices.Insert(h.buf, i, s)
	n := s.pages()
	h.pages += n
	a.pages += n
	a.buffered.add(s.frame, s.time, h)
	for h.pages > a.opt.MaxPagesPerConn && len(h.buf) > 0 {
		a.skip(h)
	}
	for a.pages > a.opt.MaxPagesTotal {
		v := h
		if len(h.buf) == 0 {
			_, v = a.buffered.oldest()
		}
		a.skip(v)
	}
}

// skip declares the bytes missing before h's first buffered segment lost
// and delivers what follows them.
func (a *Assembler) skip(h *Half) {
	s := h.buf[0]
	lost := int(int32(s.seq - h.next))
	a.stats.Gaps++
	a.stats.LostBytes += int64(lost)
	a.ev = Event{Kind: EventGap, Half: h, Frame: s.frame, Time: s.time, Lost: lost}
	a.fire()
	h.next = s.seq
	a.drain(h)
}

// drain delivers the buffered segments that have become contiguous.
func (a *Assembler) drain(h *Half) {
	for len(h.buf) > 0 {
		s := h.buf[0]
		d := int32(s.seq - h.next)
		if d > 0 {
			return
		}
		a.unbuffer(h, 1)
		if d < 0 {
			a.checkRetransmission(h, s.seq, s.data, s.frame)
		}
		if end := s.seq + uint32(len(s.data)); int32(end-h.next) > 0 {
			a.deliver(h, s.data[-d:], s.frame, s.time, d == 0)
			h.next = end
		}
		if s.fin {
			a.end(h)
			return
		}
	}
}

// unbuffer drops h's first n buffered segments.
func (a *Assembler) unbuffer(h *Half, n int) {
	for i := range n {
		p := h.buf[i].pages()
		h.pages -= p
		a.pages -= p
		a.buffered.remove(h.buf[i].frame)
	}
	h.buf = h.buf[n:]
	if len(h.buf) == 0 {
		h.buf = nil
	}
}

func (a *Assembler) start(h *Half) {
	h.started = true
	h.ID = a.nextID
	a.nextID++
	a.stats.Halves++
	h.MidStream = !h.synSeen
	a.ev = Event{Kind: EventStart, Half: h, Frame: a.frame, Time: a.now}
	a.fire()
}

// end ends direction h at the current packet. Segments still buffered
// lie past its end and are dropped.
func (a *Assembler) end(h *Half) {
	if h.ended {
		return
	}
	h.ended = true
	if len(h.buf) > 0 {
		a.unbuffer(h, len(h.buf))
	}
	if h.started {
		a.ev = Event{Kind: EventEnd, Half: h, Frame: a.frame, Time: a.now}
		a.fire()
	}
}

// close ends both directions of c, delivering what they buffered (with
// gaps for the missing bytes), and releases it.
func (a *Assembler) close(c *conn) {
	for i := range c.halves {
		h := &c.halves[i]
		for !h.ended && len(h.buf) > 0 {
			a.skip(h)
		}
		a.end(h)
	}
	a.release(c)
}

func (a *Assembler) fire() {
	oldest, _ := a.buffered.oldest()
	a.ev.Pending = oldest.frame
	a.handler(&a.ev)
}

// expire closes the connections idle for CloseAfter at now. Time is
// capture time, not wall time: a capture is read much faster than it was
// taken.
func (a *Assembler) expire(now time.Time) {
	if a.opt.CloseAfter <= 0 {
		return
	}
	for c := a.idle.front(); c != nil && now.Sub(c.lastSeen) >= a.opt.CloseAfter; c = a.idle.front() {
		a.stats.Expired++
		a.close(c)
	}
}

// flush, once a second of capture time, declares lost the bytes missing
// for FlushAfter.
func (a *Assembler) flush(now time.Time) {
	if a.lastFl.IsZero() {
		a.lastFl = now
	}
	if now.Sub(a.lastFl) < time.Second {
		return
	}
	a.lastFl = now
	cut := now.Add(-a.opt.FlushAfter)
	a.discardFragments(cut)
	for {
		s, h := a.buffered.oldest()
		if h == nil || !s.time.Before(cut) {
			return
		}
		// Deliver up to that segment: what its direction buffered
		// before it in the stream is delivered (or declared lost) too.
		for a.buffered.live[s.frame] == h {
			a.skip(h)
		}
	}
}

// Close delivers what is still buffered (with gaps where bytes are
// missing) and ends every open direction, oldest connection first.
func (a *Assembler) Close() {
	a.discardFragments(a.now.Add(time.Nanosecond))
	for c := a.idle.front(); c != nil; c = a.idle.front() {
		a.close(c)
	}
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
	return RunRecords(rd, opt, handler), nil
}

// RunRecords feeds the records of src to a new Assembler with handler, to
// the end of src. A damaged file (a *RecordError) is a diagnostic and
// Result.Err; reading stops there, unless src is a *Files with more files
// to read, which goes on with the next.
func RunRecords(src Records, opt Options, handler func(*Event)) Result {
	a := NewAssembler(opt, handler)
	var res Result
	fs, _ := src.(*Files)
	if rd, ok := src.(*Reader); ok {
		res.Format = rd.Format()
	}
	var last Record
	for {
		rec, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			res.Err = cmp.Or(res.Err, err)
			var re *RecordError
			frame := last.Frame + 1
			if errors.As(err, &re) {
				frame = re.Frame
				err = re.Err
			}
			if fs != nil && fs.More() {
				a.diagK(DiagFile, frame, last.Time, "%v; going on with the next file", err)
				continue
			}
			a.diagK(DiagFile, frame, last.Time, "%v; stopped reading", err)
			break
		}
		if fs != nil && res.Format == 0 {
			res.Format = fs.Format()
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
	return res
}
