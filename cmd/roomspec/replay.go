package main

import (
	"bufio"
	"fmt"
	"net/netip"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/report"
	"github.com/roomspec/roomspec/traces/judge/replay"
	"github.com/roomspec/roomspec/traces/observe"
)

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

A log is held against the capture before any room is judged: one that shows
none of the capture's rooms, or whose clock is off by more than -skew (behind)
or the deadline, is an error naming what does not match. Rooms the log does
not show are judged from the wire alone, and say so. What the log lacks
(unreadable lines, polls without their queue) is said once, up front.

Exit status: 0, 1 when a room is violated or invalid, 2 on bad input (a log
that does not belong to the capture, or a damaged capture: the rooms before
the damage are still judged and reported).`)
	logFile := fs.String("log", "", "prefill event log (JSON lines, see traces/eventlog)")
	variant := fs.String("variant", "upstream", "bundled spec variant (see roomspec check -list)")
	deadline := fs.PositiveDuration("deadline", 300*time.Second, "how long after its abort a room must be released")
	skew := fs.Duration("skew", time.Millisecond, "how far apart observations of different connections (or the log) may be and still have happened in the other order (0: keep the capture's order)")
	idle := fs.PositiveDuration("idle", 0, "judge and forget a room unobserved for this long (default twice -deadline)")
	logEndpoint := fs.String("log-endpoint", "", "the prefill `ADDR:PORT` (decode's destination) whose rooms the log belongs to (default: the first one seen)")
	format := fs.String("format", "text", "output format: text, json (one object per room) or junit")
	itf := fs.String("itf", "", "write the spec behaviour matched by each violated, at-risk or invalid room (at-risk: and a pinning completion; invalid: up to the last explained event) as an ITF trace into `DIR`")
	var ports portList
	fs.Var(&ports, "port", "treat TCP `port` as ZeroMQ even without a captured greeting (repeatable)")
	maxHidden := fs.PositiveInt("max-unseen", 24, "search bound: unseen spec steps between two observations of a room")
	maxStates := fs.PositiveInt("max-states", 50000, "search bound: states one search visits")
	htmlFile := fs.String("html", "", "also write an HTML report (rooms, verdicts, each room's sequence diagram) to `FILE`")
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
	if *logFile != "" {
		// What the log lacks is said once, up front.
		if err := scanLog(e, *logFile); err != nil {
			return bad("%v", err)
		}
	}
	logNext, closeLog, err := openLog(*logFile)
	if err != nil {
		return bad("%v", err)
	}
	defer closeLog()
	out := bufio.NewWriter(e.stdout)
	var kept []*replay.Room
	var writeErr error
	var page *report.Page
	if *htmlFile != "" {
		page = report.NewReplayPage(report.ReplayInfo{Variant: *variant, Command: "roomspec replay " + strings.Join(args, " "),
			Status: statusMachine(*variant)})
	}
	onRoom := func(room *replay.Room) {
		if writeErr != nil || !room.Aborted && room.Verdict != replay.Invalid {
			return
		}
		if page != nil {
			page.AddRoom(room)
			room.Witness = nil // drawn: its states are no longer needed
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
		Skew: *skew, Idle: *idle, MaxHidden: *maxHidden, MaxStates: *maxStates, OnRoom: onRoom, Witness: page != nil})
	if err != nil {
		return bad("%v", err)
	}
	merged := observe.NewStream(logNext, r.Observe)
	// The files are one capture (readCaptures, of decode's side).
	sum, damage, err := readCaptures(e, files, ports, merged.Wire)
	if err != nil {
		return bad("%v", err)
	}
	start, end, damaged := sum.Start, sum.End, sum.Truncated
	if damaged {
		// As decode reports it: what came before the damage is judged,
		// but the run is not clean.
		label := captureLabel(files)
		if damage != nil {
			fmt.Fprintf(e.stderr, "roomspec replay: %s: %s: %s\n", label, damage.Kind, damage.Msg)
		}
		fmt.Fprintf(e.stderr, "roomspec replay: %s: %s: %v\n", label, sum.Format, sum)
	} else if d := sum.Damage(); len(d) > 0 {
		fmt.Fprintf(e.stderr, "roomspec replay: %s: judged through damage of the capture: %v (roomspec decode shows where)\n", captureLabel(files), d)
	}
	if err := merged.Flush(); err != nil {
		return bad("%s: %v", *logFile, err)
	}
	rep := r.Finish(end)
	if err := r.Err(); err != nil {
		return bad("%s: %v", *logFile, err)
	}
	if writeErr != nil {
		return bad("%v", writeErr)
	}
	slices.SortStableFunc(kept, func(a, b *replay.Room) int { return a.FirstSeen.Compare(b.FirstSeen) })
	rep.Rooms = kept
	if page != nil {
		page.Finish(rep, start)
		if err := writePage(page, *htmlFile); err != nil {
			return bad("%v", err)
		}
	}
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
	switch {
	case damaged:
		return exitBadInput
	case rep.Failed():
		return exitViolation
	}
	return exitOK
}

func init() {
	register(&command{
		name:    "replay",
		summary: "judge every aborted room of a capture (and prefill event log) against the spec",
		run:     runReplay,
	})
}
