package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/report"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla/check"
)

// The HTML reports (package report): the small part that touches files.

// writePage writes a page to path, whole or not at all.
func writePage(page *report.Page, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".roomspec-*.html")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<16)
	if err := page.WriteHTML(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("html: %w", err)
	}
	return nil
}

// writeCheckHTML writes each counterexample of the bundled variants as a
// page of its own (VARIANT-PROPERTY.html) and all of them in index.html,
// whose header says the command, with its -variant if one was given.
func writeCheckHTML(dir, variant string, results []variantResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	title, command := "roomspec check: counterexamples", "roomspec check -html "+dir
	if variant != "" {
		title, command = "roomspec check: counterexamples of "+variant, "roomspec check -variant "+variant+" -html "+dir
	}
	index := report.NewDiagramPage(title, command)
	for _, r := range results {
		c, err := spec.Compiled(r.variant)
		if err != nil {
			return err
		}
		for _, v := range r.res.Verdicts {
			if v.Holds {
				continue
			}
			d, err := report.TraceDiagram(c, r.vars, v.Trace, v.LoopStart)
			if err != nil {
				return fmt.Errorf("variant %s: %s: %w", r.variant, v.Name, err)
			}
			d.Title = fmt.Sprintf("%s: %s", r.variant, v.Name)
			d.Verdict, d.Reason = "violated", fmt.Sprintf("%s is violated in %d steps", v.Name, len(v.Trace)-1)
			if v.LoopStart >= 0 {
				d.Reason += fmt.Sprintf(", then the behaviour loops back to step %d forever", v.LoopStart)
			}
			page := report.NewDiagramPage("roomspec check: "+d.Title, "roomspec check -variant "+r.variant)
			page.AddDiagram(d)
			if err := writePage(page, filepath.Join(dir, r.variant+"-"+v.Name+".html")); err != nil {
				return err
			}
			index.AddDiagram(d)
		}
	}
	return writePage(index, filepath.Join(dir, "index.html"))
}

// writeResultHTML writes the counterexample of a failed property run of
// roomspec test as DIR/IMPL-PROPERTY.html.
func writeResultHTML(dir string, r *conformance.Result) error {
	d := report.ResultDiagram(r)
	if d == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	page := report.NewDiagramPage("roomspec test: "+d.Title, fmt.Sprintf("roomspec test -impl %s -variant %s -seed %d", r.Impl, r.Variant, r.Seed))
	page.AddDiagram(d)
	return writePage(page, filepath.Join(dir, fileName(r.Impl)+"-"+r.Property+".html"))
}

// capturedPage starts the page of roomspec test -captures.
func capturedPage(impls []string, seed int64, cases int, args []string) *report.Page {
	var status *check.Projection
	if len(impls) > 0 {
		if _, variant, err := conformance.Builtin(impls[0]); err == nil {
			if c, err := spec.Compiled(variant); err == nil {
				status = report.StatusMachine(c)
			}
		}
	}
	return report.NewCapturedPage(report.CapturedInfo{Command: "roomspec test " + strings.Join(args, " "), Seed: seed, Cases: cases, Status: status})
}

// writeCapturedHTML writes the page of roomspec test -captures as
// DIR/captures.html.
func writeCapturedHTML(page *report.Page, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return writePage(page, filepath.Join(dir, "captures.html"))
}

// fileName makes an implementation's name (exec:COMMAND) a file name.
func fileName(s string) string {
	return strings.NewReplacer(":", "_", "/", "_", " ", "_").Replace(s)
}
