package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/replay"
)

// refused reports whether err is the refusal of a log that does not
// belong to the capture or whose endpoint is ambiguous: no room was
// judged, but the report says why.
func refused(err error) bool {
	return errors.Is(err, judge.ErrLogMismatch) || errors.Is(err, judge.ErrLogEndpoint)
}

func init() {
	register(&command{
		name:    "replay",
		summary: "judge every aborted room of a capture (and prefill event log) against the spec",
		run:     runReplay,
	})
}

// replayHelp is roomspec replay's description in its -help.
const replayHelp = `Replay the SGLang control traffic of pcap/pcapng captures (and, with -log, the
prefill's event log) against the room-lifecycle spec under one variant, and
give every aborted room a verdict with its evidence (frame numbers, log line
numbers): satisfied (the log shows it released within the deadline),
violated (not released by the deadline, measured on capture time),
inconclusive (the capture ended before the deadline), invalid (an observed
event no spec step explains), and from the wire alone (no -log, or rooms
the log does not show) at-risk (some completion of prefill's unseen steps
pins the room under the variant) or predicted-released (every completion
releases it under the variant: a prediction, never "satisfied", since only
the log shows a release). Several captures are taken as consecutive parts
of one capture.

The variant is the configuration of Room.tla rooms are judged against: with
-sglang SOURCE, the one the SGLang code the capture's prefill ran calls for
(its lifecycle PRs, from the expectation table, checked by the harness's
probe); with -variant, the one named; with neither, upstream, and the
report says it was assumed. Which one and why are the first lines of the
text report (on stderr with -format json or junit).

Rooms are judged as they go idle (-idle), so memory follows the rooms in
flight; -format json writes each room as soon as it is judged, and a last
object {"summary": {...}} with the counts, the log's fit to the capture
("log": its lines, span, clock offset, whether it ended early, the rooms
held inconclusive for it, or why it was refused) and the capture's damage
by kind ("damage"); JUnit has the same as its suite's properties, the
HTML page as facts.

A log is held against the capture before any room is judged: its clock
offset (each room's WaitingForInput line against the TransferInfo that
completes it on the wire) and its span are measured and printed with the
report. One that shows none of the capture's rooms, whose clock is behind by
more than -skew or off by more than the deadline, or whose offsets scatter
(another run's log), is an error naming what does not match; so is a log
whose room ids are on two prefill endpoints that its times both fit (give
-log-endpoint). A room whose verdict depends on a part of the log that does
not fit (a line out of time order, a log that ends before its deadline and
every completion of prefill's steps lets it go) is inconclusive with the
reason, never violated. Rooms the log does not show are judged from the wire
alone, and say so. What the log lacks (unreadable lines, polls without their
queue) is said once, when the log has been read.

Exit status: 0 (every aborted room satisfied, predicted-released or
inconclusive), 1 when a room is violated, invalid or at-risk, 2 on bad input (a log
that does not belong to the capture, or a damaged capture: the rooms before
the damage are still judged and reported).`

func runReplay(e *env, args []string) int {
	fs := newFlagSet(e, "replay", "CAPTURE...", replayHelp)
	jf := addJudgeFlags(fs)
	format := fs.String("format", "text", "output format: text, json (one object per room, then a summary object) or junit")
	itf := fs.String("itf", "", "write the spec behaviour matched by each violated, at-risk or invalid room (at-risk: and a pinning completion; invalid: up to the last explained event) as an ITF trace into `DIR`")
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
	if fs.NArg() == 0 {
		fs.Usage()
		return bad("no capture files given")
	}
	ch, opt, err := jf.load(context.Background(), warnTo(e.stderr, "roomspec replay"))
	if err != nil {
		return bad("%v", err)
	}
	out, err := newReplayOutput(e, *format, *itf, *htmlFile, ch, "roomspec replay "+strings.Join(args, " "), fs.Args())
	if err != nil {
		return bad("%v", err)
	}
	opt.Witness = *htmlFile != ""
	j, err := judge.New(ch.Config, opt)
	if err != nil {
		return bad("%v", err)
	}
	in, closeLog, err := replayInput(e, fs.Args(), *jf.log, jf.ports)
	if err != nil {
		return bad("%v", err)
	}
	defer closeLog()
	res, err := replay.Run(in, []*judge.Judge{j}, func(_ int, ev judge.Event) error { return out.room(ev.Room) })
	damaged := reportInput(e, *jf.log, res)
	if err != nil {
		if refused(err) && len(res.Reports) > 0 {
			// The refusal is in the machine-readable outputs too (the
			// summary's log object, JUnit's properties, the page).
			out.refused = true
			if err := out.finish(res); err != nil {
				fmt.Fprintf(e.stderr, "roomspec replay: %v\n", err)
			}
		}
		return bad("%v", err)
	}
	if err := out.finish(res); err != nil {
		return bad("%v", err)
	}
	switch {
	case damaged:
		return exitBadInput
	case res.Reports[0].Failed():
		return exitViolation
	}
	return exitOK
}
