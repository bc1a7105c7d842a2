package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/captured"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/observe"
)

// capturedRun is `roomspec test -captures`: the property suite on the
// schedules each captured room allows.
type capturedRun struct {
	e     *env
	impls []string
	opt   captured.Options
	idle  time.Duration
}

// captureFiles expands -captures: a capture file, or every capture in a folder.
func captureFiles(arg string) ([]string, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return []string{arg}, nil
	}
	var files []string
	for _, pat := range []string{"*.pcap", "*.pcapng"} {
		m, _ := filepath.Glob(filepath.Join(arg, pat))
		files = append(files, m...)
	}
	sort.Strings(files)
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.pcap or *.pcapng files", arg)
	}
	return files, nil
}

// run checks every room of every capture under each implementation and
// prints, per room, the schedules explored and whether some schedule pins
// it, with the 1-minimal schedule as a step table when one does. Each
// capture is decoded once, its observations fanned out to one room stream
// per implementation.
func (cr *capturedRun) run(files []string) int {
	code := exitOK
	for _, file := range files {
		var streams []*captured.Stream
		var impls []conformance.Implementation
		var failed error
		for _, name := range cr.impls {
			impl, variant, err := conformance.Builtin(name)
			if err != nil {
				fmt.Fprintf(cr.e.stderr, "roomspec test: %v (built-in: %s)\n", err, strings.Join(conformance.BuiltinNames(), ", "))
				return exitBadInput
			}
			c, err := conformance.LoadVariant(variant)
			if err != nil {
				fmt.Fprintf(cr.e.stderr, "roomspec test: %v\n", err)
				return exitBadInput
			}
			target := conformance.Target{Name: name, Impl: impl, Config: c}
			impls = append(impls, impl)
			// Rooms are handed over as they go idle, so memory follows the
			// rooms in flight, not the capture.
			streams = append(streams, captured.NewStream(c, file, cr.idle, func(room *captured.Room) {
				if failed != nil {
					return
				}
				if room.Skip != "" {
					// Outside what the captured schedules model: said, not fatal.
					fmt.Fprintf(cr.e.stdout, "%s room %d: %s: skipped: %s\n", filepath.Base(file), room.Room, name, room.Skip)
					return
				}
				res, err := captured.Run(target, room, cr.opt)
				if err != nil {
					failed = err
					return
				}
				if res.Holds {
					fmt.Fprintf(cr.e.stdout, "%s room %d: %s: holds over %d schedules\n", filepath.Base(file), room.Room, name, res.Schedules)
					return
				}
				code = exitViolation
				fmt.Fprintf(cr.e.stdout, "%s room %d: %s: PINNED (%s fails after %d schedules, first in %s)\n",
					filepath.Base(file), room.Room, name, res.Property, res.Schedules, res.FirstFail.Round(time.Microsecond))
				captured.WriteTable(cr.e.stdout, res)
			}))
		}
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintf(cr.e.stderr, "roomspec test: %v\n", err)
			return exitBadInput
		}
		_, err = observe.ReadCapture(f, decode.Options{}, 0, func(o observe.Observation) {
			for _, st := range streams {
				st.Observe(&o)
			}
		}, nil)
		f.Close()
		if err != nil {
			fmt.Fprintf(cr.e.stderr, "roomspec test: %s: %v\n", file, err)
			return exitBadInput
		}
		for i, st := range streams {
			st.Flush()
			impls[i].Close()
		}
		if failed != nil {
			fmt.Fprintf(cr.e.stderr, "roomspec test: %s: %v\n", file, failed)
			return exitBadInput
		}
	}
	return code
}
