package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/captured"
	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/report"
	"github.com/roomspec/roomspec/spec"
)

// capturedRun is `roomspec test -captures`: the property suite on the
// schedules each captured room allows.
type capturedRun struct {
	e     *env
	impls []string
	opt   captured.Options
	// load says how sglang: implementations are loaded; said tells that
	// their configuration was said already.
	load sglang.LoadOptions
	said bool
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
// it, with the failing schedule as a step table when one does.
func (cr *capturedRun) run(files []string) int {
	fmt.Fprintf(cr.e.stdout, "seed %d; every schedule of a room is enumerated up to %d, then %d random ones\n",
		cr.opt.Seed, cr.opt.MaxSchedules, cr.opt.Cases)
	code := exitOK
	for _, file := range files {
		targets, err := cr.targets()
		if err != nil {
			fmt.Fprintf(cr.e.stderr, "roomspec test: %v\n", err)
			return exitBadInput
		}
		failed, err := cr.check(file, targets)
		for _, t := range targets {
			t.Impl.Close()
		}
		if err != nil {
			fmt.Fprintf(cr.e.stderr, "roomspec test: %v\n", err)
			return exitBadInput
		}
		if failed {
			code = exitViolation
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

// targets starts each implementation, with its variant's configuration.
func (cr *capturedRun) targets() ([]conformance.Target, error) {
	var out []conformance.Target
	for _, name := range cr.impls {
		if given, ok := strings.CutPrefix(name, "sglang:"); ok {
			rc, err := loadRealCode(context.Background(), given, cr.load)
			if err != nil {
				return nil, err
			}
			c, err := rc.config()
			if err != nil {
				return nil, err
			}
			if !cr.said {
				writeWhy(cr.e.stderr, "roomspec test: ", sglangChoice(rc.Code))
				cr.said = true
			}
			out = append(out, conformance.Target{Name: name, Impl: rc.implementation(subprocess.Options{}), Config: c})
			continue
		}
		impl, variant, err := conformance.Builtin(name)
		if err != nil {
			return nil, fmt.Errorf("%w (built-in: %s)", err, strings.Join(conformance.BuiltinNames(), ", "))
		}
		c, err := spec.Compiled(variant)
		if err != nil {
			return nil, err
		}
		out = append(out, conformance.Target{Name: name, Impl: impl, Config: c})
	}
	return out, nil
}

// check checks the rooms of one capture, printing each as it is checked
// (rooms are checked as they end, so memory follows the rooms in flight),
// and reports whether some room fails.
func (cr *capturedRun) check(file string, targets []conformance.Target) (failed bool, err error) {
	f, err := os.Open(file)
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = captured.Check(filepath.Base(file), f, targets, cr.opt, func(o captured.Outcome) error {
		w := cr.e.stdout
		if o.Result == nil {
			if cr.page != nil {
				cr.page.AddSkipped(o.Room, o.Target)
			}
			// Outside what the spec explains: said, not fatal.
			fmt.Fprintf(w, "%s room %d: %s: skipped: %s\n", o.Room.Capture, o.Room.Room, o.Target, o.Room.Skip)
			return nil
		}
		if cr.page != nil {
			cr.page.AddCaptured(o.Result)
		}
		fmt.Fprintln(w, captured.Summary(o.Result))
		if !o.Result.Holds {
			failed = true
			return captured.WriteTable(w, o.Result)
		}
		return nil
	})
	return failed, err
}
