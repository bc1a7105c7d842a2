package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/captured"
	"github.com/roomspec/roomspec/report"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/judge/replay"
	"github.com/roomspec/roomspec/traces/observe"
)

// capturedRun is `roomspec test -captures`: the property suite on the
// schedules each captured room allows.
type capturedRun struct {
	e     *env
	impls []string
	opt   captured.Options
	// page, when set, gathers every room for DIR/captures.html.
	page *report.Page
	html string
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
// prints, per room, the schedules checked and whether some schedule pins
// it, with the failing schedule as a step table when one does. Each
// capture is decoded once, its observations fanned out to one replayer
// (which groups and explains the rooms) per implementation.
func (cr *capturedRun) run(files []string) int {
	fmt.Fprintf(cr.e.stdout, "seed %d; every schedule of a room is enumerated up to %d, then %d random ones\n",
		cr.opt.Seed, cr.opt.MaxSchedules, cr.opt.Cases)
	code := exitOK
	for _, file := range files {
		var replayers []*replay.Replayer
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
			// Rooms are checked as they end, so memory follows the rooms in
			// flight, not the capture.
			r, err := captured.NewReplayer(c, filepath.Base(file), cr.opt, false, func(room *captured.Room) {
				if failed != nil {
					return
				}
				if room.Skip != "" {
					if cr.page != nil {
						cr.page.AddSkipped(room, name)
					}
					// Outside what the spec explains: said, not fatal.
					fmt.Fprintf(cr.e.stdout, "%s room %d: %s: skipped: %s\n", room.Capture, room.Room, name, room.Skip)
					return
				}
				res, err := captured.Run(target, room, cr.opt)
				if err != nil {
					failed = err
					return
				}
				if cr.page != nil {
					cr.page.AddCaptured(res)
				}
				fmt.Fprintln(cr.e.stdout, captured.Summary(res))
				if !res.Holds {
					code = exitViolation
					captured.WriteTable(cr.e.stdout, res)
				}
			})
			if err != nil {
				fmt.Fprintf(cr.e.stderr, "roomspec test: %v\n", err)
				return exitBadInput
			}
			replayers = append(replayers, r)
		}
		f, err := os.Open(file)
		if err != nil {
			fmt.Fprintf(cr.e.stderr, "roomspec test: %v\n", err)
			return exitBadInput
		}
		sum, err := observe.ReadCapture(f, decode.Options{}, 0, func(o observe.Observation) {
			for _, r := range replayers {
				r.Observe(o)
			}
		}, nil)
		f.Close()
		if err != nil {
			fmt.Fprintf(cr.e.stderr, "roomspec test: %s: %v\n", file, err)
			return exitBadInput
		}
		for i, r := range replayers {
			r.Finish(sum.End)
			impls[i].Close()
		}
		if failed != nil {
			fmt.Fprintf(cr.e.stderr, "roomspec test: %s: %v\n", file, failed)
			return exitBadInput
		}
	}
	if cr.page != nil {
		if err := writeCapturedHTML(cr.page, cr.html); err != nil {
			fmt.Fprintf(cr.e.stderr, "roomspec test: %v\n", err)
			return exitBadInput
		}
	}
	return code
}
