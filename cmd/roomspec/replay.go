package main

import (
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/replay"
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

A log is held against the capture before any room is judged: one that shows
none of the capture's rooms, or whose clock is off by more than -skew (behind)
or the deadline, is an error naming what does not match. Rooms the log does
not show are judged from the wire alone, and say so. What the log lacks
(unreadable lines, polls without their queue) is said once, when the log
has been read.

Exit status: 0, 1 when a room is violated or invalid, 2 on bad input (a log
that does not belong to the capture, or a damaged capture: the rooms before
the damage are still judged and reported).`)
	jf := addJudgeFlags(fs)
	format := fs.String("format", "text", "output format: text, json (one object per room) or junit")
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
	c, opt, err := jf.load()
	if err != nil {
		return bad("%v", err)
	}
	out, err := newReplayOutput(e, *format, *itf, *htmlFile, c, *jf.variant, "roomspec replay "+strings.Join(args, " "))
	if err != nil {
		return bad("%v", err)
	}
	opt.Witness = *htmlFile != ""
	j, err := judge.New(c, opt)
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
