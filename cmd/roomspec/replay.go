package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/itf"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/observe"
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

Rooms are judged as they go idle (-idle), so memory follows the rooms in
flight; -format json writes each room as soon as it is judged.

Exit status: 0, 1 when a room is violated or invalid, 2 on bad input.`)
	logFile := fs.String("log", "", "prefill event log (JSON lines, see traces/eventlog)")
	variant := fs.String("variant", "upstream", "bundled spec variant (see roomspec check -list)")
	deadline := fs.Duration("deadline", 300*time.Second, "how long after its abort a room must be released")
	skew := fs.Duration("skew", time.Millisecond, "how far apart observations of different connections (or the log) may be and still have happened in the other order (0: keep the capture's order)")
	idle := fs.Duration("idle", 0, "judge and forget a room unobserved for this long (default twice -deadline)")
	logEndpoint := fs.String("log-endpoint", "", "the prefill `ADDR:PORT` (decode's destination) whose rooms the log belongs to (default: the first one seen)")
	format := fs.String("format", "text", "output format: text, json (one object per room) or junit")
	itf := fs.String("itf", "", "write the spec behaviour matched by each violated, at-risk or invalid room (at-risk: and a pinning completion; invalid: up to the last explained event) as an ITF trace into `DIR`")
	var ports portList
	fs.Var(&ports, "port", "treat TCP `port` as ZeroMQ even without a captured greeting (repeatable)")
	maxHidden := fs.Int("max-unseen", 24, "search bound: unseen spec steps between two observations of a room")
	maxStates := fs.Int("max-states", 50000, "search bound: states one search visits")
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
	c, err := conformance.LoadVariant(*variant)
	if err != nil {
		return bad("unknown variant %q (see roomspec check -list)", *variant)
	}
	var logAt netip.AddrPort
	if *logEndpoint != "" {
		if logAt, err = netip.ParseAddrPort(*logEndpoint); err != nil {
			return bad("-log-endpoint: %v", err)
		}
	}
	if *itf != "" {
		if err := os.MkdirAll(*itf, 0o755); err != nil {
			return bad("%v", err)
		}
	}
	logNext, closeLog, err := openLog(e, *logFile)
	if err != nil {
		return bad("%v", err)
	}
	defer closeLog()
	out := bufio.NewWriter(e.stdout)
	var kept []*replay.Room
	var writeErr error
	onRoom := func(room *replay.Room) {
		if writeErr != nil || !room.Aborted && room.Verdict != replay.Invalid {
			return
		}
		if *itf != "" {
			writeErr = writePin(room, *itf)
		}
		if *format == "json" {
			if writeErr == nil {
				writeErr = replay.WriteRoomJSON(out, room)
			}
			return
		}
		kept = append(kept, room)
	}
	if *skew == 0 {
		*skew = -1 // none (the Options' zero value is the default)
	}
	r, err := replay.New(c, replay.Options{Deadline: *deadline, Log: *logFile != "", LogEndpoint: logAt,
		Skew: *skew, Idle: *idle, MaxHidden: *maxHidden, MaxStates: *maxStates, OnRoom: onRoom})
	if err != nil {
		return bad("%v", err)
	}
	merged := observe.NewStream(logNext, r.Observe)
	var end time.Time
	streams := 0
	for _, name := range files {
		sum, err := replayFile(e, merged, name, ports, streams)
		if err != nil {
			return bad("%v", err)
		}
		streams += sum.Streams
		if sum.End.After(end) {
			end = sum.End
		}
	}
	if err := merged.Flush(); err != nil {
		return bad("%s: %v", *logFile, err)
	}
	rep := r.Finish(end)
	if writeErr != nil {
		return bad("%v", writeErr)
	}
	slices.SortStableFunc(kept, func(a, b *replay.Room) int { return a.FirstSeen.Compare(b.FirstSeen) })
	rep.Rooms = kept
	switch *format {
	case "junit":
		err = rep.WriteJUnit(out, *variant)
	case "text":
		err = rep.WriteText(out)
	}
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		return bad("%v", err)
	}
	if rep.Failed() {
		return exitViolation
	}
	return exitOK
}

// openLog opens the event log for an observe.Stream, which reads it one
// observation ahead, so that the log is never held in memory. Malformed
// lines are reported and skipped.
func openLog(e *env, name string) (next func() (observe.Observation, bool, error), closeLog func(), err error) {
	if name == "" {
		return nil, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	rd := observe.NewLogReader(bufio.NewReaderSize(f, 1<<16))
	next = func() (observe.Observation, bool, error) {
		for {
			o, err := rd.Next()
			switch {
			case err == nil:
				return o, true, nil
			case errors.Is(err, io.EOF):
				return o, false, nil
			case errors.Is(err, eventlog.ErrSyntax):
				fmt.Fprintf(e.stderr, "roomspec replay: %s: %v\n", name, err)
			default:
				return o, false, err
			}
		}
	}
	return next, func() { f.Close() }, nil
}

// replayFile feeds one capture's observations to the merged stream;
// streams offsets the file's stream numbers past those of the files
// before it. On a terminal, a progress bar shows how far the file has
// been read.
func replayFile(e *env, merged *observe.Stream, name string, ports portList, streams int) (decode.Summary, error) {
	f, err := os.Open(name)
	if err != nil {
		return decode.Summary{}, err
	}
	defer f.Close()
	in, bar := withProgress(e, f, name)
	defer bar.clear()
	sum, err := observe.ReadCapture(bufio.NewReaderSize(in, 1<<20), decode.Options{Ports: ports, Reuse: true}, streams, merged.Wire, nil)
	if err != nil {
		return sum, fmt.Errorf("%s: %w", name, err)
	}
	return sum, nil
}

// writePin writes the behaviour a reported room matched as an ITF trace.
func writePin(room *replay.Room, dir string) error {
	if len(room.Behaviour) == 0 || room.Config == nil {
		return nil
	}
	t := itf.Trace{Meta: itf.Meta{Source: model.SourceName,
		Description: fmt.Sprintf("roomspec replay: room %d (%s under %s): %s", room.Room, room.Verdict, room.Config.Name, room.Reason)},
		States: room.Behaviour}
	data, err := t.Marshal(room.Config)
	if err != nil {
		return err
	}
	p := filepath.Join(dir, "room-"+strconv.FormatInt(room.Room, 10)+".itf.json")
	return os.WriteFile(p, data, 0o644)
}
