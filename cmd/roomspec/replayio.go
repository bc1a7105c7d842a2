package main

// The files replay reads and writes: the event log (scanned once for what
// it lacks, then read one observation ahead), the captures, ITF traces.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/conformance/itf"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/judge/replay"
	"github.com/roomspec/roomspec/traces/observe"
)

// openLog opens the event log for an observe.Stream, which reads it one
// observation ahead, so that the log is never held in memory. Malformed
// lines are skipped (scanLog reported them).
func openLog(name string) (next func() (observe.Observation, bool, error), closeLog func(), err error) {
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
			case !errors.Is(err, eventlog.ErrSyntax):
				return o, false, err
			}
		}
	}
	return next, func() { f.Close() }, nil
}

// scanLog reads the event log once before the replay and says, once per
// kind, what replay will do without: lines it cannot read (skipped), and
// polls that do not say their queue (inferred from the room's state).
func scanLog(e *env, name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	type note struct{ count, first int }
	var order []string
	notes := map[string]*note{}
	add := func(what string, line int) {
		n := notes[what]
		if n == nil {
			n = &note{first: line}
			notes[what] = n
			order = append(order, what)
		}
		n.count++
	}
	rd := observe.NewLogReader(bufio.NewReaderSize(f, 1<<16))
	for {
		o, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, eventlog.ErrSyntax) {
			what, line := syntaxNote(err)
			add("lines skipped: "+what, line)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if o.Kind == observe.Poll && o.Queue == "" {
			add(`poll events without "queue": each poll's queue is inferred from its room's state`, o.Line)
		}
	}
	for _, what := range order {
		n := notes[what]
		fmt.Fprintf(e.stderr, "roomspec replay: %s: %d %s (first at line %d)\n", name, n.count, what, n.first)
	}
	for _, note := range rd.Stats().Notes() {
		fmt.Fprintf(e.stderr, "roomspec replay: %s: %s\n", name, note)
	}
	return nil
}

// syntaxNote splits an eventlog syntax error ("... line N: what") into
// what and N.
func syntaxNote(err error) (what string, line int) {
	msg := err.Error()
	if i := strings.LastIndex(msg, "line "); i >= 0 {
		if num, rest, ok := strings.Cut(msg[i+len("line "):], ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				return rest, n
			}
		}
	}
	return msg, 0
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
