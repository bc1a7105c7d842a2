package main

// The files replay reads and writes: the captures and the event log (read
// once, by traces/judge/replay), the verdicts in text, JSON or JUnit, ITF
// traces and the HTML report.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/report"
	"github.com/roomspec/roomspec/spec/itf"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/replay"
)

// replayInput is what replay reads: the capture files, one capture (see
// captureInputs: "-", gzip, a progress bar on a terminal), and the log.
// done closes the log and clears the bar.
func replayInput(e *env, files []string, logFile string, ports portList) (in replay.Input, done func(), err error) {
	in = replay.Input{Decode: decode.Options{Ports: ports}, LogName: logFile}
	var bar *progress
	in.Captures, bar, err = captureInputs(e, files)
	if err != nil {
		return in, nil, err
	}
	if logFile == "" {
		return in, bar.clear, nil
	}
	if err := sniffLog(logFile); err != nil {
		return in, nil, err
	}
	f, err := os.Open(logFile)
	if err != nil {
		return in, nil, err
	}
	in.Log = bufio.NewReaderSize(f, 1<<16)
	return in, func() { bar.clear(); f.Close() }, nil
}

// reportInput says on stderr what the log lacks and which captures were
// damaged, and reports whether some were.
func reportInput(e *env, logFile string, res *replay.Result) (damaged bool) {
	if res == nil {
		return false
	}
	for _, n := range res.LogNotes {
		fmt.Fprintf(e.stderr, "roomspec replay: %s: %d %s (first at line %d)\n", logFile, n.Count, n.What, n.First)
	}
	for _, note := range res.LogStats.Notes() {
		fmt.Fprintf(e.stderr, "roomspec replay: %s: %s\n", logFile, note)
	}
	if f := res.LogFit; f != nil && (f.Doubted > 0 || f.Ended || f.Matched != "") {
		// (The fit is in the report; what in it changed verdicts is said
		// here too.)
		fmt.Fprintf(e.stderr, "roomspec replay: %s: held against the capture: %v\n", logFile, res.LogFit)
	}
	for _, f := range res.Files {
		if !f.Summary.Truncated {
			continue
		}
		// As decode reports it: what came before the damage is judged,
		// but the run is not clean.
		if f.Damage != nil {
			fmt.Fprintf(e.stderr, "roomspec replay: %s: %s: %s\n", f.Name, f.Damage.Kind, f.Damage.Msg)
		}
		fmt.Fprintf(e.stderr, "roomspec replay: %s: %s: %v\n", f.Name, f.Summary.Format, f.Summary)
		damaged = true
	}
	for _, f := range res.Files {
		if d := f.Summary.Damage(); !f.Summary.Truncated && len(d) > 0 {
			fmt.Fprintf(e.stderr, "roomspec replay: %s: judged through damage of the capture: %v (roomspec decode shows where)\n", f.Name, d)
		}
	}
	return damaged
}

// replayOutput writes the verdicts of replay: as each room is judged (a
// JSON line, an ITF trace, a row of the HTML page), and at the end (the
// text table or JUnit, the page).
type replayOutput struct {
	format, itf, html string
	variant           string
	why               []string
	captures          string
	out               *bufio.Writer
	page              *report.Page
	kept              []*judge.Room
	// refused says the log was refused: no room was judged, and only
	// the machine-readable outputs say so (the text report is the
	// error on stderr).
	refused bool
}

func newReplayOutput(e *env, format, itf, html string, ch *variantChoice, command string, captures []string) (*replayOutput, error) {
	o := &replayOutput{format: format, itf: itf, html: html, variant: ch.Name, why: ch.Why, captures: strings.Join(captures, ","), out: bufio.NewWriter(e.stdout)}
	// Which variant and why: the text report's first lines; before the
	// JSON lines or the XML, on stderr.
	if format == "text" {
		writeWhy(o.out, "", ch)
	} else {
		writeWhy(e.stderr, "roomspec replay: ", ch)
	}
	if itf != "" {
		if err := os.MkdirAll(itf, 0o755); err != nil {
			return nil, err
		}
	}
	if html != "" {
		o.page = report.NewReplayPage(report.ReplayInfo{Variant: ch.Name, Why: ch.Why, Command: command, Status: report.StatusMachine(ch.Config)})
	}
	return o, nil
}

// room writes what is written of a room as soon as it is judged.
func (o *replayOutput) room(room *judge.Room) error {
	if o.page != nil {
		o.page.AddRoom(room)
		room.Witness = nil // drawn: its states are no longer needed
	}
	if o.itf != "" {
		if err := writePin(room, o.itf, o.variant, o.captures); err != nil {
			return err
		}
	}
	if o.format == "json" {
		return judge.WriteRoomJSON(o.out, room)
	}
	o.kept = append(o.kept, room)
	return nil
}

// finish writes the page, then the text table or JUnit.
func (o *replayOutput) finish(res *replay.Result) error {
	rep := res.Reports[0]
	rep.Keep(o.kept)
	if o.page != nil {
		o.page.Finish(rep, res.Start)
		if err := writePage(o.page, o.html); err != nil {
			return err
		}
	}
	var err error
	switch o.format {
	case "json":
		err = rep.WriteSummaryJSON(o.out)
	case "junit":
		err = rep.WriteJUnit(o.out, o.variant)
	case "text":
		if o.refused {
			return nil // (its first lines unwritten too)
		}
		err = rep.WriteText(o.out)
	}
	if err != nil {
		return err
	}
	return o.out.Flush()
}

// writePin writes the behaviour a reported room matched as an ITF trace:
// for a pinned room, up to the state it is pinned in, as a lasso that
// stays there; its meta names the captures, the room's frames and log
// lines, the variant, the verdict and why the room is pinned.
func writePin(room *judge.Room, dir, variant, captures string) error {
	if len(room.Behaviour) == 0 || room.Config == nil {
		return nil
	}
	desc := fmt.Sprintf("roomspec replay: room %d (%s under %s): %s", room.Room, room.Verdict, variant, room.Reason)
	if room.Why != "" {
		desc += ". Why: " + room.Why
	}
	t := itf.Trace{Meta: itf.Meta{Source: model.SourceName, Description: desc,
		Capture: &itf.Capture{Path: captures, Room: room.Room, Frames: append([]int{}, room.Frames...), LogLines: room.Lines,
			Variant: variant, Verdict: string(room.Verdict), Reason: room.Reason, Why: room.Why}},
		States: room.Behaviour}
	if room.Why != "" {
		// Pinned in its last state: the behaviour stays there forever.
		last := len(room.Behaviour) - 1
		t.Loop = &last
	}
	data, err := t.Marshal(room.Config)
	if err != nil {
		return err
	}
	p := filepath.Join(dir, "room-"+strconv.FormatInt(room.Room, 10)+".itf.json")
	return os.WriteFile(p, data, 0o644)
}
