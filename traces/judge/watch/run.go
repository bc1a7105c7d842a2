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
	"github.com/roomspec/roomspec/traces/judge/replay"
	"github.com/roomspec/roomspec/traces/observe"
	"github.com/roomspec/roomspec/traces/source"
)

// Config is what Run watches and how.
type Config struct {
	// Variant is the spec variant's configuration (one room, as
	// replay.New takes it).
	Variant *model.Config
	// Source yields the capture's packets.
	Source source.Source
	// Log, if set, is the prefill event log, followed as it is written
	// (Engine.Replay.Log must then be set).
	Log *eventlog.Follower
	// Decode tunes decoding (Reuse is set by Run, MaxHold defaults to
	// Engine.Hold).
	Decode decode.Options
	// Engine tunes the Engine.
	Engine Options
	// Tick is how often the log is read and capture time moved on while
	// the sources are silent (default 50 ms).
	Tick time.Duration
	// Now is the wall clock (time.Now if nil).
	Now func() time.Time
	// Metrics, if set, are kept up to date.
	Metrics *Metrics
	// OnEvent receives the events (on Run's goroutine).
	OnEvent func(Event)
	// Warn receives problems worth a line on stderr: malformed log lines,
	// capture files skipped.
	Warn func(error)
}

// Result is how a Run ended.
type Result struct {
	Report *replay.Report
	// Stopped says the context ended the run (SIGTERM), not the source.
	Stopped bool
	// Stats are the Engine's counts at the end.
	Stats Stats
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
// not belong to the capture (replay.ErrLogMismatch: the run stops as soon
// as the log is found not to, and no room is judged on it).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	tick := cfg.Tick
	if tick <= 0 {
		tick = 50 * time.Millisecond
	}
	warn := cfg.Warn
	if warn == nil {
		warn = func(error) {}
	}
	emit := func(ev Event) {
		if cfg.Metrics != nil {
			cfg.Metrics.Event(ev)
		}
		if cfg.OnEvent != nil {
			cfg.OnEvent(ev)
		}
	}
	e, err := New(cfg.Variant, cfg.Engine, emit)
	if err != nil {
		return nil, err
	}
	if cfg.Log != nil && !cfg.Engine.Replay.Log {
		return nil, fmt.Errorf("watch: a log to follow, but Engine.Replay.Log is not set")
	}

	items := make(chan item, 4096)
	// done ends the reading goroutines when Run returns.
	done := make(chan struct{})
	defer close(done)
	send := func(it item) bool {
		select {
		case items <- it:
			return true
		case <-done:
			return false
		}
	}

	// The wire: decode the source's pcap stream.
	go func() {
		pr := source.NewPcapReader(stopping{cfg.Source, done})
		pr.OnRecord = func(rec *capture.Record) {
			if cfg.Metrics != nil {
				cfg.Metrics.Packet(rec.Time)
			}
			send(item{kind: itemRecord, t: rec.Time, wall: now()})
		}
		opt := cfg.Decode
		opt.Reuse = true
		if opt.MaxHold <= 0 {
			// A joined connection that never resynchronizes must not
			// hold every verdict back.
			opt.MaxHold = e.opt.Hold
		}
		_, err := decode.Run(pr, opt, func(m *decode.Message) {
			if cfg.Metrics != nil {
				cfg.Metrics.Messages.Inc()
			}
			if o, ok := observe.FromMessage(m); ok {
				send(item{kind: itemWire, obs: o})
			}
		}, func(d decode.Diagnostic) {
			if cfg.Metrics == nil {
				return
			}
			switch d.Kind {
			case "gap":
				cfg.Metrics.Gaps.Inc()
			case "resynced":
				cfg.Metrics.Resyncs.Inc()
			}
		})
		if err == nil {
			err = pr.Err()
		}
		var re *capture.RecordError
		if errors.As(err, &re) && errors.Is(err, capture.ErrTruncated) {
			// The writer stopped in the middle of a record (tcpdump killed):
			// the end of the capture, not a failure.
			warn(fmt.Errorf("the capture ends inside a record: %w", err))
			err = nil
		}
		send(item{kind: itemWireEnd, err: err})
	}()

	// The log: read what was written, say when at its end.
	logStop := make(chan struct{})
	logDone := make(chan struct{})
	if cfg.Log != nil {
		go func() {
			defer close(logDone)
			t := time.NewTicker(tick)
			defer t.Stop()
			for {
				if !readLog(cfg.Log, warn, cfg.Metrics, func(o observe.Observation) bool {
					return send(item{kind: itemLog, obs: o})
				}) {
					return
				}
				if !send(item{kind: itemLogEnd, wall: now()}) {
					return
				}
				select {
				case <-logStop:
					return
				case <-done:
					return
				case <-t.C:
				}
			}
		}()
	} else {
		close(logDone)
	}
	// finishLog stops the log goroutine, then reads the rest of the log
	// (up to a last line without its newline) into the Engine.
	finishLog := func() {
		if cfg.Log == nil {
			return
		}
		close(logStop)
		for {
			select {
			case it := <-items:
				// Keep what the log goroutine sent before it stopped, and
				// what the wire sent meanwhile (its end, after a stop, is
				// no longer waited for).
				handle(e, it, now())
				continue
			case <-logDone:
			}
			break
		}
		// What it sent last may still be queued.
		for n := len(items); n > 0; n-- {
			handle(e, <-items, now())
		}
		readLog(cfg.Log, warn, cfg.Metrics, func(o observe.Observation) bool {
			e.Log(o, now())
			return true
		})
		if ev, err := cfg.Log.Final(); err == nil {
			if o, ok := observe.FromEvent(&ev); ok {
				e.Log(o, now())
			}
		} else if errors.Is(err, eventlog.ErrSyntax) {
			warn(err)
		}
	}

	update := func() {
		if cfg.Metrics != nil {
			cfg.Metrics.Engine(e, now())
		}
	}
	// process hands an item to the Engine; at the wire's end it finishes
	// the run.
	process := func(it item) (res *Result, end bool, err error) {
		if it.kind != itemWireEnd {
			handle(e, it, now())
			return nil, false, nil
		}
		finishLog()
		res = &Result{Report: e.Finish(e.Last())}
		res.Stats = e.Stats()
		update()
		if it.err != nil {
			return res, true, fmt.Errorf("%w: %w", ErrSource, it.err)
		}
		return res, true, e.Err()
	}
	// mismatch stops the run on a log that does not belong to the capture.
	mismatch := func() (*Result, error) {
		finishLog()
		res := &Result{Report: e.Finish(e.Now(now())), Stopped: true}
		res.Stats = e.Stats()
		update()
		return res, e.Err()
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case it := <-items:
			if res, end, err := process(it); end {
				return res, err
			}
			// Take what is queued before updating the metrics.
			for n := len(items); n > 0; n-- {
				if res, end, err := process(<-items); end {
					return res, err
				}
			}
			if e.Err() != nil {
				return mismatch()
			}
			update()
		case <-t.C:
			e.Tick(now())
			if e.Err() != nil {
				return mismatch()
			}
			if d, ok := cfg.Source.(source.Dropper); ok && cfg.Metrics != nil {
				if n, err := d.Dropped(); err == nil && n > 0 {
					cfg.Metrics.Dropped.Add(float64(n))
				}
			}
			update()
		case <-ctx.Done():
			finishLog()
			end := e.Now(now())
			res := &Result{Report: e.Finish(end), Stopped: true}
			res.Stats = e.Stats()
			update()
			return res, nil
		}
	}
}

// handle hands a reading goroutine's item to the Engine at wall time
// wall (a record's own wall time is when it was read).
func handle(e *Engine, it item, wall time.Time) {
	switch it.kind {
	case itemRecord:
		e.Record(it.t, it.wall)
	case itemWire:
		e.Wire(it.obs, wall)
	case itemLog:
		e.Log(it.obs, wall)
	case itemLogEnd:
		e.LogAtEnd(it.wall)
	}
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
