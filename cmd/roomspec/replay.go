package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/replay"
)

func init() {
	register(&command{
		name:    "replay",
		summary: "judge every aborted room of a capture (and prefill event log) against the spec",
		run:     runReplay,
	})
}

func runReplay(e *env, args []string) int {
	fs := newFlagSet(e, "replay", "CAPTURE...",
		`Replay the SGLang control traffic of pcap/pcapng captures (and, with -log, the
prefill's event log) against the room-lifecycle spec under one variant, and
give every aborted room a verdict with its evidence (frame numbers, log line
numbers): satisfied (released), violated (not released by the deadline,
measured on capture time), inconclusive (the capture ended before the
deadline), at-risk (wire only: some completion of the unseen steps pins the
room under the variant) or invalid (an observed event no spec step
explains). Several captures are taken as consecutive parts of one capture.

Exit status: 0, 1 when a room is violated or invalid, 2 on bad input.`)
	logFile := fs.String("log", "", "prefill event log (JSON lines, see traces/eventlog)")
	variant := fs.String("variant", "upstream", "bundled spec variant (see roomspec check -list)")
	deadline := fs.Duration("deadline", 300*time.Second, "how long after its abort a room must be released")
	format := fs.String("format", "text", "output format: text, json (one object per room) or junit")
	itf := fs.String("itf", "", "write the spec behaviour matched by each violated, at-risk or invalid room (at-risk: and a pinning completion; invalid: up to the last explained event) as an ITF trace into `DIR`")
	var ports portList
	fs.Var(&ports, "port", "treat TCP `port` as ZeroMQ even without a captured greeting (repeatable)")
	maxHidden := fs.Int("max-unseen", 24, "search bound: unseen spec steps between two observations of a room")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "roomspec replay: "+format+"\n", a...)
		return exitBadInput
	}
	if *format != "text" && *format != "json" && *format != "junit" {
		return bad("-format must be text, json or junit, not %q", *format)
	}
	files := fs.Args()
	if len(files) == 0 {
		fs.Usage()
		return bad("no capture files given")
	}
	cfgText, err := spec.Config(*variant)
	if err != nil {
		return bad("unknown variant %q (see roomspec check -list)", *variant)
	}
	logs, closeLog, err := openLog(e, *logFile)
	if err != nil {
		return bad("%v", err)
	}
	defer closeLog()
	r, err := replay.New(cfgText, replay.Options{Deadline: *deadline, Log: *logFile != "", MaxHidden: *maxHidden})
	if err != nil {
		return bad("%v", err)
	}
	var end time.Time
	for _, name := range files {
		last, err := replayFile(e, r, name, ports, logs)
		if err != nil {
			return bad("%v", err)
		}
		if last.After(end) {
			end = last
		}
	}
	logs.feedBefore(r, time.Time{})
	if logs.err != nil {
		return bad("%v", logs.err)
	}
	rep := r.Finish(end)
	out := bufio.NewWriter(e.stdout)
	switch *format {
	case "json":
		err = rep.WriteJSON(out)
	case "junit":
		err = rep.WriteJUnit(out, *variant)
	default:
		err = rep.WriteText(out)
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		return bad("%v", err)
	}
	if *itf != "" {
		if err := writePins(rep, *itf); err != nil {
			return bad("%v", err)
		}
	}
	if rep.Failed() {
		return exitViolation
	}
	return exitOK
}

// logFeed reads the event log lazily, one observation ahead, so that the
// log is never held in memory.
type logFeed struct {
	e    *env
	name string
	rd   *eventlog.Reader
	next *replay.Observation
	err  error
}

func openLog(e *env, name string) (*logFeed, func(), error) {
	if name == "" {
		return &logFeed{}, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	l := &logFeed{e: e, name: name, rd: eventlog.NewReader(bufio.NewReaderSize(f, 1<<16))}
	l.advance()
	return l, func() { f.Close() }, l.err
}

// advance reads the next observation of the log; malformed lines are
// reported and skipped.
func (l *logFeed) advance() {
	l.next = nil
	for l.rd != nil && l.err == nil {
		ev, err := l.rd.Next()
		if err == io.EOF {
			return
		}
		if errors.Is(err, eventlog.ErrSyntax) {
			fmt.Fprintf(l.e.stderr, "roomspec replay: %s: %v\n", l.name, err)
			continue
		}
		if err != nil {
			l.err = fmt.Errorf("%s: %w", l.name, err)
			return
		}
		if o, ok := replay.FromEvent(&ev); ok {
			l.next = &o
			return
		}
	}
}

// feedBefore feeds r the log observations strictly before t (all, if t is
// zero).
func (l *logFeed) feedBefore(r *replay.Replayer, t time.Time) {
	for l.next != nil && (t.IsZero() || l.next.Time.Before(t)) {
		r.Observe(*l.next)
		l.advance()
	}
}

// replayFile feeds one capture's messages to r, each preceded by the log
// observations strictly earlier than it, and returns the time of the
// capture's last packet.
func replayFile(e *env, r *replay.Replayer, name string, ports portList, logs *logFeed) (time.Time, error) {
	f, err := os.Open(name)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	onMsg := func(m *decode.Message) {
		o, ok := replay.FromMessage(m)
		if !ok {
			return
		}
		logs.feedBefore(r, o.Time)
		r.Observe(o)
	}
	onDiag := func(d decode.Diagnostic) {}
	if _, err := decode.Run(f, decode.Options{Ports: ports, Reuse: true}, onMsg, onDiag); err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", name, err)
	}
	return lastPacket(name)
}

// lastPacket returns the time of a capture's last readable packet: the
// capture's end, which deadlines are measured against. (A second pass over
// the records; decode.Run does not report it.)
func lastPacket(name string) (time.Time, error) {
	f, err := os.Open(name)
	if err != nil {
		return time.Time{}, err
	}
	defer f.Close()
	cr, err := capture.NewReader(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", name, err)
	}
	var last time.Time
	for {
		rec, err := cr.Next()
		if err != nil {
			return last, nil // the end, or damage: the last good packet counts
		}
		if rec.Time.After(last) {
			last = rec.Time
		}
	}
}

func writePins(rep *replay.Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, room := range rep.Rooms {
		if len(room.Behaviour) == 0 || room.Config == nil {
			continue
		}
		p := filepath.Join(dir, "room-"+strconv.FormatInt(room.Room, 10)+".itf.json")
		if err := os.WriteFile(p, room.Config.ITF(room.Behaviour), 0o644); err != nil {
			return err
		}
	}
	return nil
}
