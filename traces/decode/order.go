package decode

import (
	"container/heap"
	"time"

	"github.com/roomspec/roomspec/traces/zmtp"
)

// reorder puts messages back in capture order. The capture layer may
// deliver a stream's data late, when it was buffered out of order waiting
// for a retransmission (capture.Event.Pending says from which frame on).
// And a stream that is looking
// for frame boundaries (mid-stream start, after a gap) holds bytes until a
// chain of frames confirms a boundary, and only then emits the messages
// in them, after other streams have emitted later ones. Messages are kept
// in a heap until no resynchronizing stream can still produce an older
// one: each such stream holds at most the zmtp resync window, so the
// oldest frame it may still emit from is that of the oldest byte within
// the window. maxPending bounds the heap; past it the oldest message goes
// out regardless (and may then be out of order).
//
// The streams not at frame boundaries are kept in a heap by the oldest
// frame they may still emit from, so that releasing costs the same with
// a hundred thousand of them (connections whose greeting was cut off,
// say) as with one.
type reorder struct {
	pending msgHeap
	seq     int
	// streams holds the streams not at frame boundaries that still hold
	// others back; held counts them with those held past maxHold.
	streams  heldHeap
	held     int
	window   int64
	released int // Frame of the last message released
	// curPending is capture.Event.Pending of the event being handled.
	curPending int
	// Late counts messages released after a later one (past maxPending
	// or maxHold).
	Late int
	// now is the capture time of the event being handled; maxHold is
	// Options.MaxHold.
	now     time.Time
	maxHold time.Duration
	// looked counts the held streams release looked at: the tests hold
	// it to a constant per event.
	looked int
}

const maxPending = 1 << 16

func (o *reorder) init(opt zmtp.Options) {
	o.window = int64(opt.ResyncWindow)
	if o.window <= 0 {
		o.window = zmtp.DefaultResyncWindow
	}
	// The decoder may hold one more input piece beyond the window.
	o.window += 64 << 10
}

// holding tracks, for a stream that is not synced, the frames of the
// bytes it may still be holding.
type holding struct {
	fed    int64
	chunks []heldChunk
	held   bool      // s counts in reorder.held
	since  time.Time // when it began holding
	// index is s's place in reorder.streams, or -1 when it is not there
	// (not held, or held past maxHold).
	index int
}

type heldChunk struct {
	end   int64 // stream offset just past the chunk
	frame int
}

// track updates s's holding after n bytes from frame were fed (n == 0
// after a gap or the end).
func (o *reorder) track(s *stream, n, frame int) {
	h := &s.hold
	h.fed += int64(n)
	if s.dead || s.dec == nil || s.dec.Synced() {
		if h.held {
			h.chunks = h.chunks[:0]
			if h.index >= 0 {
				heap.Remove(&o.streams, h.index)
			}
			h.held = false
			o.held--
		}
		return
	}
	if n == 0 && len(h.chunks) > 0 {
		return
	}
	h.chunks = append(h.chunks, heldChunk{end: h.fed, frame: frame})
	k := 0
	for k < len(h.chunks)-1 && h.chunks[k].end <= h.fed-o.window {
		k++
	}
	if k > 0 {
		h.chunks = append(h.chunks[:0], h.chunks[k:]...)
	}
	switch {
	case !h.held:
		h.held, h.since = true, o.now
		o.held++
		heap.Push(&o.streams, s)
	case k > 0 && h.index >= 0:
		heap.Fix(&o.streams, h.index)
	}
}

// direct reports whether push would hand a message straight to out.
func (o *reorder) direct() bool {
	return len(o.pending) == 0 && o.held == 0 && o.curPending == 0
}

// push queues m, or hands it straight to out when nothing can precede
// it (the common case: every stream in sync, nothing buffered).
func (o *reorder) push(m *Message, out func(*Message)) {
	if o.direct() {
		o.released = m.Frame
		if out != nil {
			out(m)
		}
		return
	}
	heap.Push(&o.pending, pendingMsg{m: m, seq: o.seq})
	o.seq++
}

// release hands out, in frame order, every message no stream can still
// precede; all of them when final. pending is capture.Event.Pending.
func (o *reorder) release(out func(*Message), pending int, final bool) {
	if len(o.pending) == 0 {
		return
	}
	limit := int(^uint(0) >> 1)
	if pending > 0 {
		limit = pending
	}
	for !final && len(o.streams) > 0 {
		s := o.streams[0]
		o.looked++
		if o.maxHold > 0 && o.now.Sub(s.hold.since) > o.maxHold {
			heap.Pop(&o.streams) // it held back others long enough
			continue
		}
		limit = min(limit, s.hold.chunks[0].frame)
		break
	}
	for len(o.pending) > 0 && (o.pending[0].m.Frame < limit || len(o.pending) > maxPending) {
		m := heap.Pop(&o.pending).(pendingMsg).m
		if m.Frame < o.released {
			o.Late++
		}
		o.released = m.Frame
		if out != nil {
			out(m)
		}
	}
}

type pendingMsg struct {
	m   *Message
	seq int
}

type msgHeap []pendingMsg

func (h msgHeap) Len() int { return len(h) }
func (h msgHeap) Less(i, j int) bool {
	if h[i].m.Frame != h[j].m.Frame {
		return h[i].m.Frame < h[j].m.Frame
	}
	return h[i].seq < h[j].seq
}
func (h msgHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *msgHeap) Push(x any)   { *h = append(*h, x.(pendingMsg)) }
func (h *msgHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// heldHeap orders streams by the oldest frame they may still emit from.
type heldHeap []*stream

func (h heldHeap) Len() int { return len(h) }
func (h heldHeap) Less(i, j int) bool {
	return h[i].hold.chunks[0].frame < h[j].hold.chunks[0].frame
}
func (h heldHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].hold.index, h[j].hold.index = i, j
}
func (h *heldHeap) Push(x any) {
	s := x.(*stream)
	s.hold.index = len(*h)
	*h = append(*h, s)
}
func (h *heldHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	s.hold.index = -1
	*h = old[:len(old)-1]
	return s
}
