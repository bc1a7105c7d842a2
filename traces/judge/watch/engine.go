// Package watch judges the rooms of a live prefill node continuously: the
// production form of traces/judge/replay. It merges what the wire shows (decoded
// messages, as a capture is taken) with what the prefill event log shows
// (as it is written), in time order, feeds them to a replay.Watcher, and
// moves capture time on so that a room is reported the moment its
// deadline passes.
//
// The Engine is pure: it is told what each source delivered and what the
// wall clock says, and it emits Events; Run connects it to a packet source
// (traces/source), the decoder and a log follower, and Metrics exports
// what it sees to Prometheus.
//
// Time. Verdicts are judged on capture time, as replay judges them. The
// wire's packets carry it; while no packet comes, capture time goes on
// with the wall clock, Hold after the last packet (the source is caught up
// with the kernel, and a packet taken now is stamped now). Log lines
// carry the prefill's clock, which on the same node is the capture's; a
// log line is taken to be written within Hold of its timestamp.
//
// Order. Replay merges a capture and a log by time, a log line before a
// message only when strictly earlier. The Engine does the same with
// sources that deliver at their own pace: it holds a message until every
// log line up to its time can have been read (the log's last line is at
// least as late, or the follower found the log's end more than Hold after
// the message), and a log line until every message up to its time has
// been decoded. On the same traffic it therefore feeds replay's sequence,
// and its final verdicts are replay's, unless a source delivers later
// than Hold (such observations are fed when they come and counted late).
package watch

import (
	"fmt"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge/replay"
	"github.com/roomspec/roomspec/traces/observe"
)

// Options tune an Engine.
type Options struct {
	// Replay are the options rooms are judged with (Replay.Log says that a
	// log is merged). Replay.OnRoom must be nil: final verdicts are
	// Verdict events.
	Replay replay.Options
	// Hold is how long a silent source is waited for before capture time
	// goes on without it (default 250 ms).
	Hold time.Duration
	// MaxQueued bounds the observations held for the other source
	// (default 65536); past it the oldest is fed at once, counted late.
	MaxQueued int
}

// Engine merges a live capture's messages and a live log's events in time
// order and judges their rooms. It is not safe for concurrent use.
type Engine struct {
	opt  Options
	w    *replay.Watcher
	emit func(Event)
	// Observations held until the other source has caught up with them.
	wireQ, logQ queue
	// The wire: whether a record came; the latest record's capture time,
	// the time up to which every record has been decoded, and the wall
	// time the latest record came at.
	records            bool
	wireLast, wireDone time.Time
	wireWall           time.Time
	// The log: the latest line's time; whether the follower is at the
	// log's end, and the wall time it last found it there.
	logSeen    bool
	logLast    time.Time
	logAtEnd   bool
	logEndWall time.Time
	// advanced is the capture time the Watcher was last advanced to;
	// steps the capture times of records not yet advanced to (capture
	// time is held back while the log has not caught up with them).
	advanced time.Time
	steps    []time.Time
	stats    Stats
	// open holds the kind of each open alert.
	open map[uint64]Kind
}

// Stats are an Engine's counts.
type Stats struct {
	Records          int // wire records read
	Wire, Log        int // observations fed, by source
	Late             int // observations fed after capture time had passed them
	Forced           int // observations fed before the other source caught up (MaxQueued)
	Pinned, AtRisk   int // rooms reported and not let go nor judged since
	Held             int // rooms held in memory
	Alerts, Releases int // Pinned and AtRisk events, Released events
	Verdicts         int // Verdict events
}

// New returns an Engine for the variant c (a configuration of one room,
// as replay.New takes it); emit receives its events.
func New(c *model.Config, opt Options, emit func(Event)) (*Engine, error) {
	if opt.Hold <= 0 {
		opt.Hold = 250 * time.Millisecond
	}
	if opt.MaxQueued <= 0 {
		opt.MaxQueued = 1 << 16
	}
	e := &Engine{opt: opt, emit: emit, open: map[uint64]Kind{}}
	w, err := replay.NewWatcher(c, opt.Replay, e.event)
	if err != nil {
		return nil, err
	}
	e.w = w
	return e, nil
}

// Record says that a wire record of capture time t is about to be
// decoded, at wall time wall: every earlier record has been decoded.
func (e *Engine) Record(t, wall time.Time) {
	e.stats.Records++
	if e.records {
		e.wireDone = latest(e.wireDone, e.wireLast)
	}
	e.records = true
	if t.After(e.wireLast) && len(e.steps) < e.opt.MaxQueued {
		e.steps = append(e.steps, t)
	}
	e.wireLast = latest(e.wireLast, t)
	e.wireWall = wall
	e.release(wall)
}

// Wire hands over an observation of a decoded message.
func (e *Engine) Wire(o observe.Observation, wall time.Time) {
	e.wireQ.push(o)
	e.release(wall)
}

// Log hands over an observation of a log line.
func (e *Engine) Log(o observe.Observation, wall time.Time) {
	e.logQ.push(o)
	e.logSeen, e.logAtEnd = true, false
	e.logLast = latest(e.logLast, o.Time)
	e.release(wall)
}

// LogAtEnd says that the log follower found nothing more to read at wall
// time wall.
func (e *Engine) LogAtEnd(wall time.Time) {
	e.logAtEnd, e.logEndWall = true, wall
	e.release(wall)
}

// Tick lets wall-clock time pass: capture time goes on while the sources
// are silent.
func (e *Engine) Tick(wall time.Time) { e.release(wall) }

// Now returns the capture time every observation up to which has been
// fed, at wall time wall (zero before the first record).
func (e *Engine) Now(wall time.Time) time.Time {
	t, _ := e.through(wall)
	return t
}

// Last returns the capture time of the latest wire record (zero if none).
func (e *Engine) Last() time.Time { return e.wireLast }

// Stats returns the Engine's counts.
func (e *Engine) Stats() Stats {
	s := e.stats
	s.Held = e.w.Live()
	return s
}

// Err returns why no room is reported: the log does not belong to the
// capture (replay.ErrLogMismatch, wrapped with what does not match).
func (e *Engine) Err() error { return e.w.Err() }

// Counts returns the rooms judged so far by verdict (never-aborted rooms
// included).
func (e *Engine) Counts() map[replay.Verdict]int { return e.w.Counts() }

// Finish feeds every observation still held, in time order, and judges
// every room at capture time end: the capture's last record when the
// source ended (replay's end), the time the watch was stopped otherwise.
func (e *Engine) Finish(end time.Time) *replay.Report {
	for e.wireQ.len()+e.logQ.len() > 0 {
		o, _ := e.head()
		e.feed(o)
	}
	return e.w.Finish(end)
}

// wireThrough returns the capture time every message up to which has
// been decoded; ok is false before the first record.
func (e *Engine) wireThrough(wall time.Time) (t time.Time, ok bool) {
	if !e.records {
		return time.Time{}, false
	}
	if idle := wall.Sub(e.wireWall) - e.opt.Hold; idle > 0 {
		// Caught up: capture time goes on with the wall clock.
		return e.wireLast.Add(idle), true
	}
	return e.wireDone, true
}

// logThrough returns the time every log line up to which has been read;
// ok is false when nothing is known yet. Without a log, there is none to
// wait for.
func (e *Engine) logThrough() (t time.Time, ok, none bool) {
	switch {
	case !e.opt.Replay.Log:
		return time.Time{}, true, true
	case e.logAtEnd:
		return latest(e.logLast, e.logEndWall.Add(-e.opt.Hold)), true, false
	}
	return e.logLast, e.logSeen, false
}

// through returns the capture time both sources are known through.
func (e *Engine) through(wall time.Time) (time.Time, bool) {
	w, ok := e.wireThrough(wall)
	if !ok {
		return time.Time{}, false
	}
	l, ok, none := e.logThrough()
	switch {
	case none:
		return w, true
	case !ok:
		return time.Time{}, false
	}
	return earliest(w, l), true
}

// head returns the observation replay would take next: the log's when it
// is strictly earlier than the wire's.
func (e *Engine) head() (o observe.Observation, fromLog bool) {
	switch {
	case e.logQ.len() > 0 && (e.wireQ.len() == 0 || e.logQ.front().Time.Before(e.wireQ.front().Time)):
		return e.logQ.pop(), true
	}
	return e.wireQ.pop(), false
}

// release feeds the observations every source has caught up with, then
// advances capture time.
func (e *Engine) release(wall time.Time) {
	wt, wok := e.wireThrough(wall)
	lt, lok, lnone := e.logThrough()
	for e.wireQ.len()+e.logQ.len() > 0 {
		var next observe.Observation
		var log bool
		if e.logQ.len() > 0 && (e.wireQ.len() == 0 || e.logQ.front().Time.Before(e.wireQ.front().Time)) {
			next, log = *e.logQ.front(), true
		} else {
			next = *e.wireQ.front()
		}
		ready := false
		if log {
			// Every message at or before it has been decoded.
			ready = wok && !next.Time.After(wt)
		} else {
			// Every log line before it has been read.
			ready = lnone || lok && !next.Time.After(lt)
		}
		if !ready {
			if e.wireQ.len()+e.logQ.len() <= e.opt.MaxQueued {
				break
			}
			e.stats.Forced++
		}
		o, _ := e.head()
		if ready {
			e.advanceBefore(o.Time)
		}
		e.feed(o)
	}
	if now, ok := e.through(wall); ok && now.After(e.advanced) {
		e.advanceBefore(now.Add(1))
		e.advance(now)
	}
}

// advanceBefore advances capture time through the records before t (every
// observation before t has been fed). Capture time moves on as the packets
// carry it, record by record, even when the log lets it go only later: a
// room is judged overdue at the first record past its deadline, whether
// the log follower or the wire came first.
func (e *Engine) advanceBefore(t time.Time) {
	k := 0
	for ; k < len(e.steps) && e.steps[k].Before(t); k++ {
		e.advance(e.steps[k])
	}
	if k > 0 {
		e.steps = append(e.steps[:0], e.steps[k:]...)
	}
}

// advance tells the Watcher that capture time has reached t.
func (e *Engine) advance(t time.Time) {
	if t.After(e.advanced) {
		e.advanced = t
		e.w.Advance(t)
	}
}

func (e *Engine) feed(o observe.Observation) {
	if o.Time.Before(e.advanced) {
		e.stats.Late++
	}
	if o.Kind.Wire() {
		e.stats.Wire++
	} else {
		e.stats.Log++
	}
	e.w.Observe(o)
}

// event turns the Watcher's events into the Engine's.
func (e *Engine) event(ev replay.Event) {
	out := Event{Room: ev.Room, At: ev.At, Alert: ev.Alert}
	switch ev.Kind {
	case replay.Overdue:
		out.Kind = Pinned
		if ev.Room.Verdict == replay.AtRisk {
			out.Kind = AtRisk
			e.stats.AtRisk++
		} else {
			e.stats.Pinned++
		}
		e.stats.Alerts++
		e.open[ev.Alert] = out.Kind
	case replay.Released:
		out.Kind = Released
		e.stats.Releases++
		e.close(ev.Alert)
	case replay.Judged:
		e.close(ev.Alert)
		if !ev.Room.Aborted && ev.Room.Verdict != replay.Invalid {
			// Counted (Counts), not reported: as replay reports rooms.
			return
		}
		out.Kind = Verdict
		e.stats.Verdicts++
	default:
		panic(fmt.Sprintf("watch: unknown replay event %v", ev.Kind))
	}
	if e.emit != nil {
		e.emit(out)
	}
}

func (e *Engine) close(alert uint64) {
	k, ok := e.open[alert]
	if !ok {
		return
	}
	delete(e.open, alert)
	if k == AtRisk {
		e.stats.AtRisk--
	} else {
		e.stats.Pinned--
	}
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// queue is a FIFO of observations.
type queue struct {
	items []observe.Observation
	head  int
}

func (q *queue) len() int                    { return len(q.items) - q.head }
func (q *queue) front() *observe.Observation { return &q.items[q.head] }
func (q *queue) push(o observe.Observation)  { q.items = append(q.items, o) }
func (q *queue) pop() (o observe.Observation) {
	o = q.items[q.head]
	q.items[q.head] = observe.Observation{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 1024 && q.head*2 > len(q.items) {
		q.items = append(q.items[:0], q.items[q.head:]...)
		q.head = 0
	}
	return o
}
