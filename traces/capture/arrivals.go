package capture

import "time"

// arrivals knows which segments are buffered out of order, in the order
// they arrived, so that the oldest one (the Pending frame of every event,
// what the flush and the total page bound take first) is found without
// visiting the others: a capture with many connections waiting for
// retransmissions costs the same per event as one with a single one.
//
// A segment is buffered at the packet that carries it, so arrival order
// is frame order, and a frame carries one segment at most: the frame
// names the segment. Segments leave in any order; the queue forgets them
// lazily, when they reach its front, and is compacted when it holds more
// forgotten entries than live ones.
type arrivals struct {
	queue []arrival
	head  int
	// live maps the frame of each buffered segment to its direction.
	live map[int]*Half
	// looked counts the entries oldest looked at: the tests hold it to
	// a constant per call.
	looked int
}

type arrival struct {
	frame int
	time  time.Time
}

func (q *arrivals) add(frame int, t time.Time, h *Half) {
	if q.live == nil {
		q.live = map[int]*Half{}
	}
	q.live[frame] = h
	q.queue = append(q.queue, arrival{frame, t})
}

func (q *arrivals) remove(frame int) {
	delete(q.live, frame)
	if n := len(q.queue) - q.head; n > 64 && n > 2*len(q.live) {
		q.compact()
	}
}

// oldest returns the earliest segment still buffered and its direction,
// or a nil *Half when none is.
func (q *arrivals) oldest() (arrival, *Half) {
	for q.head < len(q.queue) {
		q.looked++
		a := q.queue[q.head]
		if h := q.live[a.frame]; h != nil {
			return a, h
		}
		q.head++
	}
	q.queue, q.head = q.queue[:0], 0
	return arrival{}, nil
}

// compact drops the forgotten entries.
func (q *arrivals) compact() {
	keep := q.queue[:0]
	for _, a := range q.queue[q.head:] {
		if q.live[a.frame] != nil {
			keep = append(keep, a)
		}
	}
	clear(q.queue[len(keep):])
	q.queue, q.head = keep, 0
}
