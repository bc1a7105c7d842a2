// Package eventlog reads and writes roomspec's event log: a JSON-lines
// record of what the prefill (or decode) process did to its rooms, the part
// of a room's life the wire does not show (status changes, sender creation
// and release, scheduler polls, chunk enqueues and skips).
//
// One JSON object per line:
//
//	{"ts":"2026-11-29T15:00:00.123456789Z","host":"p0","role":"prefill","rank":0,
//	 "thread":"bootstrap","event":"status","room":42,"from":"Absent","to":"WaitingForInput"}
//
// Common fields: ts (RFC 3339 with nanoseconds, UTC; required), host, role
// ("prefill" or "decode"), rank (the engine's TP rank), thread (the thread
// that acted: "scheduler", "bootstrap", "worker-N", ...), event (required)
// and room (the bootstrap room, required for the events below).
//
// Events and their fields:
//
//	status         request_status[room] changed: from, to (a KVPoll name or "Absent")
//	sender_create  the scheduler created the room's sender
//	clear          the scheduler released the request and cleared the room
//	abort          a client abort on the writer's side (decode: the ABORT was sent)
//	poll           a scheduler poll: status (the value it saw), queue ("bootstrap" or "inflight")
//	chunk_enqueue  send enqueued a KV chunk: chunk (index)
//	chunk_skip     a chunk was not transferred: chunk, reason
//
// Events of other names are kept (with their raw object) and ignored by
// consumers, so that writers may add events without breaking readers.
// Blank lines are skipped.
package eventlog

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Event names the package knows.
const (
	Status       = "status"
	SenderCreate = "sender_create"
	Clear        = "clear"
	Abort        = "abort"
	Poll         = "poll"
	ChunkEnqueue = "chunk_enqueue"
	ChunkSkip    = "chunk_skip"
)

// Absent is the status name of a room missing from request_status.
const Absent = "Absent"

// statuses are the values of status.from/to and poll.status: SGLang's
// KVPoll names and Absent.
var statuses = map[string]bool{
	"Failed": true, "Bootstrapping": true, "WaitingForInput": true,
	"Transferring": true, "Success": true, Absent: true,
}

// TimeLayout is how Writer prints ts: RFC 3339 with all nine fractional
// digits, so that lines sort as text and no precision is lost.
const TimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// ErrSyntax is wrapped by every error about a malformed line (a
// *SyntaxError).
var ErrSyntax = errors.New("eventlog: malformed line")

// SyntaxError is a malformed line: its number and what is wrong with it.
// It wraps ErrSyntax.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%v: line %d: %s", ErrSyntax, e.Line, e.Msg) }

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Event is one line of the log.
type Event struct {
	// Line is the 1-based line number the event was read from (0 for an
	// event that was not read).
	Line   int
	Time   time.Time
	Host   string
	Role   string
	Rank   int
	Thread string
	Event  string
	Room   int64
	// From and To are set for status; Status and Queue for poll.
	From, To      string
	Status, Queue string
	// Chunk is set for chunk_enqueue and chunk_skip, Reason for chunk_skip.
	Chunk  int
	Reason string
	// Raw is the line as read, kept for events of unknown names.
	Raw json.RawMessage
	// Doubt, when not empty, says why the event's time cannot be trusted:
	// its line was ahead of the lines around it (a Reader gave it the time
	// of the line before), or it was written after a step of the writer's
	// clock back and is before a line written earlier. A judge holds no
	// room to such an event.
	Doubt string
}

// Known reports whether e is an event this package defines.
func (e *Event) Known() bool {
	switch e.Event {
	case Status, SenderCreate, Clear, Abort, Poll, ChunkEnqueue, ChunkSkip:
		return true
	}
	return false
}

// line is the JSON form; pointers tell absent from zero.
type line struct {
	TS     *string `json:"ts"`
	Host   string  `json:"host,omitempty"`
	Role   string  `json:"role,omitempty"`
	Rank   int     `json:"rank"`
	Thread string  `json:"thread,omitempty"`
	Event  *string `json:"event"`
	Room   *int64  `json:"room,omitempty"`
	From   string  `json:"from,omitempty"`
	To     string  `json:"to,omitempty"`
	Status string  `json:"status,omitempty"`
	Queue  string  `json:"queue,omitempty"`
	Chunk  *int    `json:"chunk,omitempty"`
	Reason string  `json:"reason,omitempty"`
}

// Parse decodes one line (without its newline). lineNo is only used in
// errors and stored in the event.
func Parse(b []byte, lineNo int) (Event, error) {
	var l line
	if err := json.Unmarshal(b, &l); err != nil {
		return Event{}, &SyntaxError{Line: lineNo, Msg: err.Error()}
	}
	bad := func(format string, args ...any) (Event, error) {
		return Event{}, &SyntaxError{Line: lineNo, Msg: fmt.Sprintf(format, args...)}
	}
	if l.TS == nil {
		return bad("no ts")
	}
	if l.Event == nil || *l.Event == "" {
		return bad("no event")
	}
	ts, err := time.Parse(time.RFC3339Nano, *l.TS)
	if err != nil {
		return bad("ts %q is not RFC 3339", *l.TS)
	}
	e := Event{Line: lineNo, Time: ts.UTC(), Host: l.Host, Role: l.Role, Rank: l.Rank, Thread: l.Thread,
		Event: *l.Event, From: l.From, To: l.To, Status: l.Status, Queue: l.Queue, Reason: l.Reason}
	if l.Room != nil {
		e.Room = *l.Room
	}
	if l.Chunk != nil {
		e.Chunk = *l.Chunk
	}
	if !e.Known() {
		e.Raw = append(json.RawMessage(nil), b...)
		return e, nil
	}
	if l.Room == nil {
		return bad("%s event without room", e.Event)
	}
	if e.Role != "" && e.Role != "prefill" && e.Role != "decode" {
		return bad("role %q is neither prefill nor decode", e.Role)
	}
	switch e.Event {
	case Status:
		if !statuses[e.From] || !statuses[e.To] {
			return bad("status from %q to %q: want KVPoll names or Absent", e.From, e.To)
		}
	case Poll:
		if !statuses[e.Status] {
			return bad("poll status %q: want a KVPoll name or Absent", e.Status)
		}
	case ChunkEnqueue, ChunkSkip:
		if l.Chunk == nil {
			return bad("%s event without chunk", e.Event)
		}
	}
	return e, nil
}

// Reader reads events from a log, one line at a time. It skips a UTF-8
// byte order mark and lines that repeat a recent one, puts lines out of
// time order by less than ReorderWithin back in order (holding at most
// maxHeld events), and stops at once, with ErrNotLog, on a file that is
// not a log (a capture, binary data, lines none of which is an event).
// Stats says what it did.
type Reader struct {
	br   *bufio.Reader
	sc   *bufio.Scanner
	line int
	chk  checker
	// held are events read and not yet returned, by time.
	held evHeap
	seq  int
	// barrier is an event after a step of the clock back, or the error
	// of a malformed line: the events held before it go first.
	barrier    *Event
	barrierErr error
	// early holds the errors of malformed lines before the first good
	// one: if notLogAfter lines come without a good one, the file is not
	// a log and that is the one error said.
	early []error
	// fileOrder turns the reordering off (the tests compare a Follower,
	// which does not reorder, with it).
	fileOrder bool
	eof       bool
	err       error // why reading stopped, returned once held is empty
	started   bool
	fatal     error // ErrNotLog: the log is not read further
}

// MaxLine is the longest line a Reader accepts.
const MaxLine = 1 << 20

// maxHeld bounds the events a Reader holds to put them in time order.
const maxHeld = 1024

// ErrLineTooLong is the error of a line longer than MaxLine: no event is
// that long, so the file is not an event log (or is damaged there).
var ErrLineTooLong = fmt.Errorf("line longer than %d bytes (1 MiB): not an event log line", MaxLine)

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	br := bufio.NewReaderSize(r, 64<<10)
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 4096), MaxLine)
	return &Reader{br: br, sc: sc}
}

// Stats returns what the Reader did about the log so far.
func (r *Reader) Stats() Stats { return r.chk.stats }

// Next returns the next event, io.EOF at the end of the log, or an error
// naming the line. After a malformed line (ErrSyntax), Next may be called
// again to go on with the following line; after ErrNotLog it returns the
// same error.
func (r *Reader) Next() (Event, error) {
	if r.fatal != nil {
		return Event{}, r.fatal
	}
	if !r.started {
		r.started = true
		head, _ := r.br.Peek(4)
		if r.fatal = capture(head); r.fatal != nil {
			return Event{}, r.fatal
		}
	}
	for {
		if len(r.early) > 0 && (r.chk.good > 0 || r.eof) {
			err := r.early[0]
			r.early = r.early[1:]
			return Event{}, err
		}
		if e, ok := r.release(); ok {
			return e, nil
		}
		if err := r.barrierErr; err != nil {
			r.barrierErr = nil
			return Event{}, err
		}
		if r.eof {
			if r.err != nil {
				return Event{}, r.err
			}
			return Event{}, io.EOF
		}
		e, err, ok, back := r.read()
		switch {
		case err != nil && errors.Is(err, ErrNotLog):
			r.fatal, r.early = err, nil
			return Event{}, err
		case err != nil && r.chk.good == 0:
			r.early = append(r.early, err)
		case err != nil && len(r.held) > 0:
			r.barrierErr = err
		case err != nil:
			return Event{}, err
		case ok && r.chk.outlier != 0:
			r.place(&e)
			heap.Push(&r.held, heldEvent{e, r.seq})
			r.seq++
		case ok && back && len(r.held) > 0:
			// The clock stepped back at e: what is held goes first.
			r.barrier = &e
		case ok:
			heap.Push(&r.held, heldEvent{e, r.seq})
			r.seq++
		}
	}
}

// place gives the outlier line the checker found at e the time of the
// line before it, if it is still held; otherwise the lines before its
// time that follow it are doubtful (e among them).
func (r *Reader) place(e *Event) {
	for i := range r.held {
		h := &r.held[i]
		if h.Line != r.chk.outlier {
			continue
		}
		h.Doubt = fmt.Sprintf("its time %s was %v ahead of the lines around it (it was given the time of the lines before it)",
			h.Time.Format(TimeLayout), h.Time.Sub(r.chk.before).Round(time.Millisecond))
		h.Time = r.chk.before
		heap.Fix(&r.held, i)
		return
	}
	r.chk.misplaced()
	e.Doubt = r.chk.doubt
}

// read reads and checks the next line; ok is false for a line that gives
// no event (blank, a duplicate) and at the end; back says the writer's
// clock stepped back at it.
func (r *Reader) read() (e Event, err error, ok, back bool) {
	if !r.sc.Scan() {
		r.eof = true
		if err := r.sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				err = ErrLineTooLong
			}
			r.err = fmt.Errorf("eventlog: line %d: %w", r.line+1, err)
		}
		return Event{}, nil, false, false
	}
	r.line++
	b := bytes.TrimSpace(r.sc.Bytes())
	if len(b) == 0 {
		return Event{}, nil, false, false
	}
	steps := r.chk.stats.ClockBack
	e, err, skip := r.chk.line(b, r.line)
	return e, err, err == nil && !skip, r.chk.stats.ClockBack > steps
}

// release returns the next event that may go: the earliest held, once no
// line within ReorderWithin of the latest can come before it.
func (r *Reader) release() (Event, bool) {
	if len(r.held) == 0 {
		if r.barrier != nil {
			e := *r.barrier
			r.barrier = nil
			return e, true
		}
		return Event{}, false
	}
	first := r.held[0].Event.Time
	if r.eof || r.fileOrder || r.barrier != nil || r.barrierErr != nil || len(r.held) >= maxHeld || first.Before(r.chk.latest.Add(-ReorderWithin)) {
		return heap.Pop(&r.held).(heldEvent).Event, true
	}
	return Event{}, false
}

type heldEvent struct {
	Event
	seq int
}

// evHeap orders events by time, then by the order they were read.
type evHeap []heldEvent

func (h evHeap) Len() int { return len(h) }
func (h evHeap) Less(i, j int) bool {
	if !h[i].Time.Equal(h[j].Time) {
		return h[i].Time.Before(h[j].Time)
	}
	return h[i].seq < h[j].seq
}
func (h evHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *evHeap) Push(x any)   { *h = append(*h, x.(heldEvent)) }
func (h *evHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ReadAll reads every event of r; it stops at the first error.
func ReadAll(r io.Reader) ([]Event, error) {
	rd := NewReader(r)
	var out []Event
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

// Writer writes events as JSON lines.
type Writer struct {
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer writing to w. Each Write is one w.Write call
// of one whole line, so that concurrent writers to an O_APPEND file do not
// interleave within a line.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes e as one line. An event of an unknown name with Raw set is
// written as its raw object.
func (w *Writer) Write(e *Event) error {
	var b []byte
	if !e.Known() && len(e.Raw) > 0 {
		b = append(w.buf[:0], e.Raw...)
	} else {
		ts := e.Time.UTC().Format(TimeLayout)
		ev := e.Event
		l := line{TS: &ts, Host: e.Host, Role: e.Role, Rank: e.Rank, Thread: e.Thread, Event: &ev,
			From: e.From, To: e.To, Status: e.Status, Queue: e.Queue, Reason: e.Reason}
		room := e.Room
		l.Room = &room
		if e.Event == ChunkEnqueue || e.Event == ChunkSkip {
			c := e.Chunk
			l.Chunk = &c
		}
		j, err := json.Marshal(&l)
		if err != nil {
			return fmt.Errorf("eventlog: %w", err)
		}
		b = append(w.buf[:0], j...)
	}
	b = append(b, '\n')
	w.buf = b
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("eventlog: write: %w", err)
	}
	return nil
}
