// Package watch judges the rooms of a live prefill node continuously:
// the production form of roomspec replay. It decodes a packet source as
// the capture is taken and follows the prefill event log as it is
// written, merges them in replay's order while moving capture time on
// with the wall clock (observe.Live), and drives the same judging
// machine replay drives (traces/judge) with Options.Overdue, so that a
// room is reported the moment its deadline passes; Metrics exports what
// it sees to Prometheus.
//
// Run is the only part that does I/O: the reading goroutines hand what
// they read to Run's goroutine, which alone holds the merge and the
// judge.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
	"github.com/roomspec/roomspec/traces/source"
)

// Config is what Run watches and how.
type Config struct {
	// Variant is the spec variant's configuration (one room, as
	// judge.New takes it).
	Variant *model.Config
	// Source yields the capture's packets.
	Source source.Source
	// Log, if set, is the prefill event log, followed as it is written
	// (Judge.Log must then be set).
	Log *eventlog.Follower
	// Decode tunes decoding (Reuse is set by Run, MaxHold defaults to
	// Live.Hold).
	Decode decode.Options
	// Judge are the options rooms are judged with (Run sets Overdue).
	Judge judge.Options
	// Live tunes the merge of the sources (Run sets Log from Judge.Log).
	Live observe.LiveOptions
	// Tick is how often the log is read and capture time moved on while
	// the sources are silent (default 50 ms).
	Tick time.Duration
	// Now is the wall clock (time.Now if nil).
	Now func() time.Time
	// Metrics, if set, are kept up to date.
	Metrics *Metrics
	// OnEvent receives the judge's events (on Run's goroutine).
	OnEvent func(judge.Event)
	// Warn receives problems worth a line on stderr: malformed log lines,
	// capture files skipped.
	Warn func(error)
}

// Result is how a Run ended.
type Result struct {
	Report *judge.Report
	// Stopped says the context ended the run (SIGTERM), not the source.
	Stopped bool
	// Stats are the counts at the end.
	Stats Stats
}

// Stats are a watch's counts: the merge's and the judge's.
type Stats struct {
	observe.LiveStats
	judge.Stats
}

// watcher is the merge and the judge, which Run's goroutine alone holds.
type watcher struct {
	live  *observe.Live
	judge *judge.Judge
	emit  func(judge.Event)
}

// pump moves what the merge handed on into the judge, and the judge's
// events out.
func (w *watcher) pump() {
	w.judge.Feed(w.live.Ready())
	for _, ev := range w.judge.Ready() {
		w.emit(ev)
	}
}

// finish hands on every observation still held and judges every room
// at capture time end. A stopped watch (stopped, at wall time wall) hands
// on only what the capture has reached (observe.Live.Stop): the log's
// lines past it are no evidence.
func (w *watcher) finish(end time.Time, stopped bool, wall time.Time) *judge.Report {
	if stopped {
		w.live.Stop(wall)
	} else {
		w.live.Flush()
	}
	w.judge.Feed(w.live.Ready())
	rep := w.judge.Finish(end)
	for _, ev := range w.judge.Ready() {
		w.emit(ev)
	}
	return rep
}

func (w *watcher) stats() Stats {
	return Stats{LiveStats: w.live.Stats(), Stats: w.judge.Stats()}
}

// ErrSource is wrapped by the error of a source that failed (not a
// capture, a second link type, a read error).
var ErrSource = errors.New("watch: capture source")

// item is what the reading goroutines hand to Run's.
type item struct {
	kind itemKind
	t    time.Time // record: its capture time
	wall time.Time
	obs  observe.Observation
	err  error
}

type itemKind uint8

const (
	itemRecord itemKind = iota
	itemWire
	itemWireEnd
	itemLog
	itemLogEnd
)

// Run watches until the source ends or ctx ends, and judges every room
// still held then: at the capture's last packet when the source ended,
// at the capture time reached when ctx ended. Events go to cfg.OnEvent as
// they happen. An error is returned for a source that is not a capture
// or fails (what was decided before it is kept), and for a log that does
// not belong to the capture (judge.ErrLogMismatch: the run stops as soon
// as the log is found not to, and no room is judged on it).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Log != nil && !cfg.Judge.Log {
		return nil, fmt.Errorf("watch: a log to follow, but Judge.Log is not set")
	}
	r := &run{cfg: cfg, now: cfg.Now, tick: cfg.Tick, warn: cfg.Warn,
		items: make(chan item, 4096), done: make(chan struct{}), logStop: make(chan struct{}), logDone: make(chan struct{})}
	if r.now == nil {
		r.now = time.Now
	}
	if r.tick <= 0 {
		r.tick = 50 * time.Millisecond
	}
	if r.warn == nil {
		r.warn = func(error) {}
	}
	if s, ok := cfg.Source.(Staller); ok && cfg.Metrics != nil {
		cfg.Metrics.WatchStall(s)
	}
	opt := cfg.Judge
	opt.Overdue = true
	j, err := judge.New(cfg.Variant, opt)
	if err != nil {
		return nil, err
	}
	lopt := cfg.Live
	lopt.Log = cfg.Judge.Log
	r.w = &watcher{live: observe.NewLive(lopt), judge: j, emit: r.emit}
	// done ends the reading goroutines when Run returns.
	defer close(r.done)
	go r.readWire()
	if cfg.Log != nil {
		go r.followLog()
	} else {
		close(r.logDone)
	}
	return r.loop(ctx)
}

// run is one Run: its configuration, the watcher its goroutine holds, and
// the channels of the reading goroutines.
type run struct {
	cfg  Config
	now  func() time.Time
	tick time.Duration
	warn func(error)
	w    *watcher
	// items carries what the reading goroutines read; done ends them.
	items chan item
	done  chan struct{}
	// logStop stops the log's goroutine, which closes logDone.
	logStop, logDone chan struct{}
}

func (r *run) emit(ev judge.Event) {
	if r.cfg.Metrics != nil {
		r.cfg.Metrics.Event(ev)
	}
	if r.cfg.OnEvent != nil {
		r.cfg.OnEvent(ev)
	}
}

// send hands an item to Run's goroutine; false once Run returned.
func (r *run) send(it item) bool {
	select {
	case r.items <- it:
		return true
	case <-r.done:
		return false
	}
}

// readWire decodes the source's pcap stream (a goroutine).
func (r *run) readWire() {
	cfg := r.cfg
	pr := source.NewPcapReader(stopping{cfg.Source, r.done})
	pr.OnRecord = func(rec *capture.Record) {
		if cfg.Metrics != nil {
			cfg.Metrics.Packet(rec.Time)
		}
		r.send(item{kind: itemRecord, t: rec.Time, wall: r.now()})
	}
	opt := cfg.Decode
	opt.Reuse = true
	if cfg.Metrics != nil {
		opt.Count = cfg.Metrics.Diagnostic
	}
	if opt.MaxHold <= 0 {
		// A joined connection that never resynchronizes must not hold
		// every verdict back.
		opt.MaxHold = r.w.live.Hold()
	}
	_, err := decode.Run(pr, opt, func(m *decode.Message) {
		if cfg.Metrics != nil {
			cfg.Metrics.Messages.Inc()
		}
		if o, ok := observe.FromMessage(m); ok {
			r.send(item{kind: itemWire, obs: o})
		}
	}, nil)
	if err == nil {
		err = pr.Err()
	}
	var re *capture.RecordError
	if errors.As(err, &re) && errors.Is(err, capture.ErrTruncated) {
		// The writer stopped in the middle of a record (tcpdump killed):
		// the end of the capture, not a failure.
		r.warn(fmt.Errorf("the capture ends inside a record: %w", err))
		err = nil
	}
	r.send(item{kind: itemWireEnd, err: err})
}

// followLog reads what was written of the log and says when it is at its
// end, every tick (a goroutine).
func (r *run) followLog() {
	defer close(r.logDone)
	t := time.NewTicker(r.tick)
	defer t.Stop()
	for {
		if !readLog(r.cfg.Log, r.warn, r.cfg.Metrics, func(o observe.Observation) bool {
			return r.send(item{kind: itemLog, obs: o})
		}) {
			return
		}
		if !r.send(item{kind: itemLogEnd, wall: r.now()}) {
			return
		}
		select {
		case <-r.logStop:
			return
		case <-r.done:
			return
		case <-t.C:
		}
	}
}

// loop hands the items to the watcher and ticks it until the source or
// ctx ends, or the log is found not to belong to the capture.
func (r *run) loop(ctx context.Context) (*Result, error) {
	t := time.NewTicker(r.tick)
	defer t.Stop()
	for {
		select {
		case it := <-r.items:
			if res, end, err := r.process(it); end {
				return res, err
			}
			// Take what is queued before updating the metrics.
			for n := len(r.items); n > 0; n-- {
				if res, end, err := r.process(<-r.items); end {
					return res, err
				}
			}
			if r.w.judge.Err() != nil {
				return r.mismatch()
			}
			r.update()
		case <-t.C:
			r.w.live.Tick(r.now())
			r.w.pump()
			if r.w.judge.Err() != nil {
				return r.mismatch()
			}
			if d, ok := r.cfg.Source.(source.Dropper); ok && r.cfg.Metrics != nil {
				if n, err := d.Dropped(); err == nil && n > 0 {
					r.cfg.Metrics.Dropped.Add(float64(n))
				}
			}
			r.update()
		case <-ctx.Done():
			return r.end(r.captureTime, true), nil
		}
	}
}

// process hands an item to the watcher; at the wire's end it finishes
// the run.
func (r *run) process(it item) (res *Result, end bool, err error) {
	if it.kind != itemWireEnd {
		r.handle(it, r.now())
		return nil, false, nil
	}
	res = r.end(r.w.live.Last, false)
	if it.err != nil {
		return res, true, fmt.Errorf("%w: %w", ErrSource, it.err)
	}
	return res, true, r.w.judge.Err()
}

// mismatch stops the run on a log that does not belong to the capture.
func (r *run) mismatch() (*Result, error) {
	return r.end(r.captureTime, true), r.w.judge.Err()
}

// captureTime is the capture time reached now.
func (r *run) captureTime() time.Time { return r.w.live.Now(r.now()) }

// end reads the rest of the log and judges every room at capture time
// at() (read after the rest of the log).
func (r *run) end(at func() time.Time, stopped bool) *Result {
	r.finishLog()
	res := &Result{Report: r.w.finish(at(), stopped, r.now()), Stopped: stopped}
	res.Stats = r.w.stats()
	r.update()
	return res
}

// finishLog stops the log goroutine, then reads the rest of the log (up
// to a last line without its newline) into the watcher.
func (r *run) finishLog() {
	if r.cfg.Log == nil {
		return
	}
	close(r.logStop)
	for {
		select {
		case it := <-r.items:
			// Keep what the log goroutine sent before it stopped, and what
			// the wire sent meanwhile (its end, after a stop, is no longer
			// waited for).
			r.handle(it, r.now())
			continue
		case <-r.logDone:
		}
		break
	}
	// What it sent last may still be queued.
	for n := len(r.items); n > 0; n-- {
		r.handle(<-r.items, r.now())
	}
	readLog(r.cfg.Log, r.warn, r.cfg.Metrics, func(o observe.Observation) bool {
		r.w.live.Log(o, r.now())
		r.w.pump()
		return true
	})
	if ev, err := r.cfg.Log.Final(); err == nil {
		if o, ok := observe.FromEvent(&ev); ok {
			r.w.live.Log(o, r.now())
			r.w.pump()
		}
	} else if errors.Is(err, eventlog.ErrSyntax) {
		r.warn(err)
	}
}

func (r *run) update() {
	if r.cfg.Metrics != nil {
		r.cfg.Metrics.Update(r.w.judge, r.w.live, r.now())
	}
}

// handle hands a reading goroutine's item to the watcher at wall time
// wall (a record's own wall time is when it was read).
func (r *run) handle(it item, wall time.Time) {
	l := r.w.live
	switch it.kind {
	case itemRecord:
		l.Record(it.t, it.wall)
	case itemWire:
		l.Wire(it.obs, wall)
	case itemLog:
		l.Log(it.obs, wall)
	case itemLogEnd:
		l.LogAtEnd(it.wall)
	}
	r.w.pump()
}

// readLog hands the log's complete lines to feed until the log's current
// end (or until feed says stop: false).
func readLog(f *eventlog.Follower, warn func(error), m *Metrics, feed func(observe.Observation) bool) bool {
	for {
		ev, err := f.Next()
		switch {
		case err == io.EOF:
			return true
		case errors.Is(err, eventlog.ErrSyntax):
			warn(err)
			if m != nil {
				m.LogErrors.Inc()
			}
			continue
		case errors.Is(err, eventlog.ErrNotLog):
			warn(err) // once: the file is read no further
			return false
		case err != nil:
			warn(err)
			return true
		}
		if o, ok := observe.FromEvent(&ev); ok && !feed(o) {
			return false
		}
	}
}

// stopping is a source that ends when done is closed (Run returned).
type stopping struct {
	source.Source
	done <-chan struct{}
}

func (s stopping) Next() (capture.Record, error) {
	select {
	case <-s.done:
		return capture.Record{}, io.EOF
	default:
	}
	return s.Source.Next()
}
