package observe

import "time"

// Live merges the observations of live sources (a capture being taken,
// a log being written), which deliver at their own pace, into the stream
// Stream would merge from the finished files, and says how far capture
// time has gone: the input of a judge that watches a live node.
//
// Order. Stream puts a log observation before a wire one only when it is
// strictly earlier. Live does the same: it holds a message until every
// log line up to its time can have been read (the log's last line is at
// least as late, or the follower found the log's end more than Hold after
// the message), and a log line until every message up to its time has
// been decoded. On the same traffic it therefore hands on Stream's
// sequence, unless a source delivers later than Hold (such observations
// are handed on when they come, and counted late).
//
// Time. Capture time is the wire's: packets carry it, and it moves on
// record by record as the observations before each record are handed on.
// While no packet comes, capture time goes on with the wall clock, Hold
// after the last packet (the source is caught up with the kernel, and a
// packet taken now is stamped now). Log lines carry the prefill's clock,
// which on the same node is the capture's; a log line is taken to be
// written within Hold of its timestamp, or as late as the log's recent
// lines came (a writer that buffers, a shipper 3 s behind: capture time
// then waits that long for the log, so that a room is not found pinned
// for a release the log has yet to deliver).
//
// Live is a pure state machine: it is told what each source delivered
// and what the wall clock says, and what it hands on is read from Ready.
type Live struct {
	opt LiveOptions
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
	// lags are how late (wall time less the line's time) the recent
	// lines came that were written after the follower had found the log's
	// end: a writer that buffers, or a shipper, delivers them that far
	// behind, and the log is known through its end only that far back.
	lags   [logLags]time.Duration
	nlags  int
	logLag time.Duration
	// advanced is the capture time last handed on; steps the capture
	// times of records not yet handed on (capture time is held back while
	// the log has not caught up with them).
	advanced time.Time
	steps    []time.Time
	stats    LiveStats
	ready    []Input
}

// LiveOptions tune a Live merge.
type LiveOptions struct {
	// Log says that a log is merged: wire observations wait for it.
	Log bool
	// Hold is how long a silent source is waited for before capture time
	// goes on without it (default 250 ms).
	Hold time.Duration
	// MaxQueued bounds the observations held for the other source
	// (default 65536); past it the oldest is handed on at once, counted
	// forced.
	MaxQueued int
}

// LiveStats are a Live merge's counts.
type LiveStats struct {
	Records   int // wire records read
	Wire, Log int // observations handed on, by source
	Late      int // observations handed on after capture time had passed them
	Forced    int // observations handed on before the other source caught up (MaxQueued)
	Beyond    int // log observations past the capture when stopped (Stop): not handed on
}

// Input is what Live hands on: an observation, or (Tick) the capture time
// every observation before which has been handed on.
type Input struct {
	Tick bool
	// Time is the capture time of a Tick.
	Time time.Time
	// Obs is the observation (when not Tick).
	Obs Observation
}

// NewLive returns a Live merge.
func NewLive(opt LiveOptions) *Live {
	if opt.Hold <= 0 {
		opt.Hold = 250 * time.Millisecond
	}
	if opt.MaxQueued <= 0 {
		opt.MaxQueued = 1 << 16
	}
	return &Live{opt: opt}
}

// Hold is how long a silent source is waited for.
func (l *Live) Hold() time.Duration { return l.opt.Hold }

// Record says that a wire record of capture time t is about to be
// decoded, at wall time wall: every earlier record has been decoded.
func (l *Live) Record(t, wall time.Time) {
	l.stats.Records++
	if l.records {
		l.wireDone = latest(l.wireDone, l.wireLast)
	}
	l.records = true
	if t.After(l.wireLast) && len(l.steps) < l.opt.MaxQueued {
		l.steps = append(l.steps, t)
	}
	l.wireLast = latest(l.wireLast, t)
	l.wireWall = wall
	l.release(wall)
}

// Wire hands over an observation of a decoded message.
func (l *Live) Wire(o Observation, wall time.Time) {
	l.wireQ.push(o)
	l.release(wall)
}

// logLags is how many recent lines the log's lag is the largest of.
const logLags = 64

// Log hands over an observation of a log line.
func (l *Live) Log(o Observation, wall time.Time) {
	if l.logAtEnd {
		// Written since the follower found the end: how late it came.
		l.lags[l.nlags%logLags] = max(wall.Sub(o.Time), 0)
		l.nlags++
		l.logLag = 0
		for _, d := range l.lags[:min(l.nlags, logLags)] {
			l.logLag = max(l.logLag, d)
		}
	}
	l.logQ.push(o)
	l.logSeen, l.logAtEnd = true, false
	l.logLast = latest(l.logLast, o.Time)
	l.release(wall)
}

// LogAtEnd says that the log follower found nothing more to read at wall
// time wall.
func (l *Live) LogAtEnd(wall time.Time) {
	l.logAtEnd, l.logEndWall = true, wall
	l.release(wall)
}

// Tick lets wall-clock time pass: capture time goes on while the sources
// are silent.
func (l *Live) Tick(wall time.Time) { l.release(wall) }

// Flush hands on every observation still held, in merged order, as at
// the end of both sources.
func (l *Live) Flush() {
	for l.wireQ.len()+l.logQ.len() > 0 {
		l.feed(l.head())
	}
}

// Stop hands on, at wall time wall, every observation still held that the
// capture has reached, as when the watch is stopped (not at the end of
// its sources): the wire's, and the log's up to the capture time every
// message up to which has been decoded. The log's lines past that time
// (a log ahead of the capture) are dropped, and counted (Beyond): the
// capture has not shown what they are about, and they are no evidence
// for or against a room that it has.
func (l *Live) Stop(wall time.Time) {
	wt, wok := l.wireThrough(wall)
	for l.wireQ.len()+l.logQ.len() > 0 {
		if l.logFirst() && (!wok || l.logQ.front().Time.After(wt)) {
			l.logQ.pop()
			l.stats.Beyond++
			continue
		}
		l.feed(l.head())
	}
}

// Ready returns what was handed on since it was last called, in order.
func (l *Live) Ready() []Input {
	out := l.ready
	l.ready = nil
	return out
}

// Now returns the capture time every observation up to which has been
// handed on, at wall time wall (zero before the first record).
func (l *Live) Now(wall time.Time) time.Time {
	t, _ := l.through(wall)
	return t
}

// Last returns the capture time of the latest wire record (zero if none).
func (l *Live) Last() time.Time { return l.wireLast }

// Stats returns the counts.
func (l *Live) Stats() LiveStats { return l.stats }

// wireThrough returns the capture time every message up to which has
// been decoded; ok is false before the first record.
func (l *Live) wireThrough(wall time.Time) (t time.Time, ok bool) {
	if !l.records {
		return time.Time{}, false
	}
	if idle := wall.Sub(l.wireWall) - l.opt.Hold; idle > 0 {
		// Caught up: capture time goes on with the wall clock.
		return l.wireLast.Add(idle), true
	}
	return l.wireDone, true
}

// logThrough returns the time every log line up to which has been read;
// ok is false when nothing is known yet. Without a log, there is none to
// wait for.
func (l *Live) logThrough() (t time.Time, ok, none bool) {
	switch {
	case !l.opt.Log:
		return time.Time{}, true, true
	case l.logAtEnd:
		// At its end, the log is known through Hold ago, or as far back
		// as its recent lines came late.
		return latest(l.logLast, l.logEndWall.Add(-max(l.opt.Hold, l.logLag))), true, false
	}
	return l.logLast, l.logSeen, false
}

// through returns the capture time both sources are known through.
func (l *Live) through(wall time.Time) (time.Time, bool) {
	w, ok := l.wireThrough(wall)
	if !ok {
		return time.Time{}, false
	}
	t, ok, none := l.logThrough()
	switch {
	case none:
		return w, true
	case !ok:
		return time.Time{}, false
	}
	return earliest(w, t), true
}

// logFirst reports whether the log's held observation comes first: it is
// strictly earlier than the wire's (as Stream merges).
func (l *Live) logFirst() bool {
	return l.logQ.len() > 0 && (l.wireQ.len() == 0 || l.logQ.front().Time.Before(l.wireQ.front().Time))
}

// head takes the observation Stream would take next.
func (l *Live) head() Observation {
	if l.logFirst() {
		return l.logQ.pop()
	}
	return l.wireQ.pop()
}

// release hands on the observations every source has caught up with,
// then moves capture time on.
func (l *Live) release(wall time.Time) {
	wt, wok := l.wireThrough(wall)
	lt, lok, lnone := l.logThrough()
	for l.wireQ.len()+l.logQ.len() > 0 {
		var ready bool
		if l.logFirst() {
			// Every message at or before it has been decoded.
			ready = wok && !l.logQ.front().Time.After(wt)
		} else {
			// Every log line before it has been read.
			ready = lnone || lok && !l.wireQ.front().Time.After(lt)
		}
		if !ready {
			if l.wireQ.len()+l.logQ.len() <= l.opt.MaxQueued {
				break
			}
			l.stats.Forced++
		}
		o := l.head()
		if ready {
			l.advanceBefore(o.Time)
		}
		l.feed(o)
	}
	if now, ok := l.through(wall); ok && now.After(l.advanced) {
		l.advanceBefore(now.Add(1))
		l.advance(now)
	}
}

// advanceBefore moves capture time through the records before t (every
// observation before t has been handed on). Capture time moves on as the
// packets carry it, record by record, even when the log lets it go only
// later: a deadline passes at the first record past it, whether the log
// follower or the wire came first.
func (l *Live) advanceBefore(t time.Time) {
	k := 0
	for ; k < len(l.steps) && l.steps[k].Before(t); k++ {
		l.advance(l.steps[k])
	}
	if k > 0 {
		l.steps = append(l.steps[:0], l.steps[k:]...)
	}
}

// advance hands on capture time t.
func (l *Live) advance(t time.Time) {
	if t.After(l.advanced) {
		l.advanced = t
		l.ready = append(l.ready, Input{Tick: true, Time: t})
	}
}

func (l *Live) feed(o Observation) {
	if o.Time.Before(l.advanced) {
		l.stats.Late++
	}
	if o.Kind.Wire() {
		l.stats.Wire++
	} else {
		l.stats.Log++
	}
	l.ready = append(l.ready, Input{Obs: o})
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
	items []Observation
	head  int
}

func (q *queue) len() int            { return len(q.items) - q.head }
func (q *queue) front() *Observation { return &q.items[q.head] }
func (q *queue) push(o Observation)  { q.items = append(q.items, o) }
func (q *queue) pop() (o Observation) {
	o = q.items[q.head]
	q.items[q.head] = Observation{}
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head > 1024 && q.head*2 > len(q.items) {
		q.items = append(q.items[:0], q.items[q.head:]...)
		q.head = 0
	}
	return o
}
