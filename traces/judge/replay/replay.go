// Package replay drives the judging machine (traces/judge) over a
// finished capture: it decodes the capture's files as one capture (the
// rotations of "tcpdump -C" or "-G", in the order of their first packets,
// TCP and ZeroMQ state carried across them: traces/capture.Files), merges their observations with a prefill event log's
// by time (observe.Stream), which it reads once, one observation ahead,
// and hands each room's verdict on as it is decided. roomspec replay
// drives one judge; roomspec test -captures one per implementation, on
// one decoding.
package replay

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// Input is what a replay reads.
type Input struct {
	// Captures are the capture's files, read as one capture in the order
	// of their first packets (frame numbers then count across them, and
	// damage names FILE:FRAME).
	Captures []Capture
	// Log is the prefill event log, or nil (the options' Log must say
	// which); LogName names it in errors.
	Log     io.Reader
	LogName string
	// Decode tunes decoding (Reuse is set).
	Decode decode.Options
}

// Capture is one file of a capture (traces/capture.Input): opened to
// look at its first packet and again, when its turn comes, to be read (so
// that a capture cut into many files holds one open at a time), unless it
// can be read only once.
type Capture = capture.Input

// Reader is a Capture read from r (once).
func Reader(name string, r io.Reader) Capture {
	return Capture{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(r), nil }, Once: true}
}

// Result is what a replay found besides its rooms.
type Result struct {
	// Reports count the verdicts of each judge (their Rooms are left to
	// the caller).
	Reports []*judge.Report
	// Start is the capture's first packet time.
	Start time.Time
	// Files is the capture's decoding summary: one, for all its files
	// (named by the file, or how many).
	Files []File
	// LogNotes say what the log lacks, once per kind, in order of first
	// appearance: lines that could not be read (skipped), polls that do
	// not say their queue (inferred from the room's state).
	LogNotes []LogNote
	// LogStats says what the log's reader did about a log that is not
	// quite right (a byte order mark, repeated lines, lines out of order).
	LogStats eventlog.Stats
	// LogFit is what the first judge measured of the log against the
	// capture (its clock offset, its coverage), nil without a log.
	LogFit *judge.LogFit
}

// File is a capture's decoding summary.
type File struct {
	Name    string
	Summary decode.Summary
	// Damage is the capture's last file-level diagnostic, if any, its
	// message with its position (FILE:FRAME for a capture of several files).
	Damage *decode.Diagnostic
}

// LogNote is one kind of thing the log lacks: how many lines, and the
// first.
type LogNote struct {
	What         string
	Count, First int
}

// Damaged reports whether some file was damaged (decode.Summary.Truncated):
// the rooms before the damage are judged, but the run is not clean.
func (r *Result) Damaged() bool {
	for _, f := range r.Files {
		if f.Summary.Truncated {
			return true
		}
	}
	return false
}

// Run replays in to the judges js (their options' Log set when in has a
// log), handing each event of judge k to emit(k, event) as it is decided
// (a Verdict event per reported room; an error from emit stops the
// replay). An error is returned for a capture that cannot be read (what
// was decided before it was handed on), a log that cannot be read, and a
// log that does not belong to the capture (judge.ErrLogMismatch: no room
// is judged on it).
func Run(in Input, js []*judge.Judge, emit func(k int, ev judge.Event) error) (*Result, error) {
	res := &Result{}
	var emitErr error
	take := func() {
		for k, j := range js {
			for _, ev := range j.Ready() {
				if emitErr == nil {
					emitErr = emit(k, ev)
				}
			}
		}
	}
	lr := &logReader{}
	var next func() (observe.Observation, bool, error)
	if in.Log != nil {
		lr.rd = observe.NewLogReader(in.Log)
		next = lr.next
	}
	merged := observe.NewStream(next, func(o observe.Observation) {
		for _, j := range js {
			j.Step(o)
		}
		take()
	})
	dec := in.Decode
	dec.Reuse = true
	files, err := capture.OpenFiles(in.Captures)
	if err != nil {
		return res, err
	}
	f := File{Name: label(in.Captures)}
	sum := decode.RunRecords(files, dec, func(m *decode.Message) {
		if o, ok := observe.FromMessage(m); ok {
			merged.Wire(o)
		}
	}, func(d decode.Diagnostic) {
		if d.Conn == "" {
			d.Msg = d.Text(files)
			f.Damage = &d
		}
	})
	files.Close()
	f.Summary = sum
	res.Files = append(res.Files, f)
	res.Start = sum.Start
	end := sum.End
	if emitErr != nil {
		return res, emitErr
	}
	if err := merged.Flush(); err != nil {
		return res, fmt.Errorf("%s: %w", in.LogName, err)
	}
	res.LogNotes = lr.notes
	if lr.rd != nil {
		res.LogStats = lr.rd.Stats()
	}
	damage := map[string]int{}
	for k, n := range sum.Damage() {
		damage[string(k)] = n
	}
	for _, j := range js {
		rep := j.Finish(end)
		if len(damage) > 0 {
			rep.Damage = damage
		}
		res.Reports = append(res.Reports, rep)
	}
	if in.Log != nil && len(js) > 0 {
		res.LogFit = js[0].LogFit()
	}
	take()
	for _, j := range js {
		if err := j.Err(); err != nil {
			return res, fmt.Errorf("%s: %w", in.LogName, err)
		}
	}
	return res, emitErr
}

// label names a capture in messages: its file, or how many files.
func label(files []Capture) string {
	if len(files) == 1 {
		return files[0].Name
	}
	return fmt.Sprintf("%d files", len(files))
}

// logReader reads the log for an observe.Stream, which reads it one
// observation ahead, so that the log is read once and never held in
// memory; it notes what the log lacks as it goes.
type logReader struct {
	rd    *observe.LogReader
	notes []LogNote
}

func (l *logReader) note(what string, line int) {
	for i := range l.notes {
		if l.notes[i].What == what {
			l.notes[i].Count++
			return
		}
	}
	l.notes = append(l.notes, LogNote{What: what, Count: 1, First: line})
}

func (l *logReader) next() (observe.Observation, bool, error) {
	for {
		o, err := l.rd.Next()
		var syntax *eventlog.SyntaxError
		switch {
		case err == nil:
			if o.Kind == observe.Poll && o.Queue == "" {
				l.note(`poll events without "queue": each poll's queue is inferred from its room's state`, o.Line)
			}
			return o, true, nil
		case errors.Is(err, io.EOF):
			return o, false, nil
		case errors.As(err, &syntax):
			l.note("lines skipped: "+syntax.Msg, syntax.Line)
		default:
			return o, false, err
		}
	}
}
