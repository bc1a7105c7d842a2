package main

// The files replay reads and writes: the captures and the event log (read
// once, by traces/judge/replay), the verdicts in text, JSON or JUnit, ITF
// traces and the HTML report.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/roomspec/roomspec/report"
	"github.com/roomspec/roomspec/spec/itf"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/replay"
)

// replayInput is what replay reads: the capture files, each opened when
// its turn comes (with a progress bar on a terminal), and the log.
func replayInput(e *env, files []string, logFile string, ports portList) (replay.Input, func(), error) {
	in := replay.Input{Decode: decode.Options{Ports: ports}, LogName: logFile}
	for _, name := range files {
		in.Captures = append(in.Captures, replay.Capture{Name: name, Open: func() (io.ReadCloser, error) {
			f, err := os.Open(name)
			if err != nil {
				return nil, err
			}
			r, bar := withProgress(e, f, name)
			return barFile{Reader: bufio.NewReaderSize(r, 1<<20), f: f, bar: bar}, nil
		}})
	}
	if logFile == "" {
		return in, func() {}, nil
	}
	f, err := os.Open(logFile)
	if err != nil {
		return in, nil, err
	}
	in.Log = bufio.NewReaderSize(f, 1<<16)
	return in, func() { f.Close() }, nil
}

// barFile is a capture file being read, with its progress bar.
type barFile struct {
	io.Reader
	f   *os.File
	bar *progress
}

func (b barFile) Close() error {
	b.bar.clear()
	return b.f.Close()
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
	for _, f := range res.Files {
		if !f.Summary.Truncated {
			continue
		}
		// As decode reports it: what came before the damage is judged,
		// but the run is not clean.
		if f.Damage != nil {
			fmt.Fprintf(e.stderr, "roomspec replay: %s: %s: %v\n", f.Name, f.Damage.Kind, f.Damage)
		}
		fmt.Fprintf(e.stderr, "roomspec replay: %s: %s: %v\n", f.Name, f.Summary.Format, f.Summary)
		damaged = true
	}
	return damaged
}

// replayOutput writes the verdicts of replay: as each room is judged (a
// JSON line, an ITF trace, a row of the HTML page), and at the end (the
// text table or JUnit, the page).
type replayOutput struct {
	format, itf, html string
	variant           string
	out               *bufio.Writer
	page              *report.Page
	kept              []*judge.Room
}

func newReplayOutput(e *env, format, itf, html string, c *model.Config, variant, command string) (*replayOutput, error) {
	o := &replayOutput{format: format, itf: itf, html: html, variant: variant, out: bufio.NewWriter(e.stdout)}
	if itf != "" {
		if err := os.MkdirAll(itf, 0o755); err != nil {
			return nil, err
		}
	}
	if html != "" {
		o.page = report.NewReplayPage(report.ReplayInfo{Variant: variant, Command: command, Status: report.StatusMachine(c)})
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
		if err := writePin(room, o.itf); err != nil {
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
	case "junit":
		err = rep.WriteJUnit(o.out, o.variant)
	case "text":
		err = rep.WriteText(o.out)
	}
	if err != nil {
		return err
	}
	return o.out.Flush()
}

// writePin writes the behaviour a reported room matched as an ITF trace.
func writePin(room *judge.Room, dir string) error {
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
