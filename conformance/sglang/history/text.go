package history

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/roomspec/roomspec/conformance"
)

// WriteText prints the rows: the table of commits, the table of the
// checker's counterexamples on the real code, the gate's verdict with
// what each failing commit makes worse, then each failure's real-code
// step table.
func WriteText(w io.Writer, rows []*Row) {
	writeCommits(w, rows)
	fmt.Fprintln(w)
	writeReplays(w, rows)
	fmt.Fprintln(w)
	writeGate(w, rows)
	for _, r := range rows {
		for _, res := range r.Results {
			var b bytes.Buffer
			conformance.WriteText(&b, res)
			fmt.Fprintf(w, "\n%s %s %s:\n%s", r.Commit, res.Variant, res.Property, b.String())
		}
		for _, rp := range r.Replays {
			if rp.Result == nil {
				continue
			}
			fmt.Fprintf(w, "\n%s %s: the checker's %s counterexample on the real code:\n", r.Commit, rp.Config, rp.Property)
			conformance.WriteSteps(w, rp.Result.Config, rp.Result.Steps, rp.Result.FailStep, true)
		}
	}
}

func writeCommits(w io.Writer, rows []*Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMIT\tDATE\tVARIANT\tPROBE\tREFINEMENT\tAbortedRoomsTerminate\tAbortsAcked\tPromptTermination\tCASES\tSUBJECT")
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(tw, "%s\t%s\t-\t-\tcannot run (GATE below)\t\t\t\t\t%s\n", r.Commit, r.Date, r.Subject)
			continue
		}
		cells := map[string]string{}
		cases := 0
		counted := map[string]bool{}
		for _, run := range r.Runs {
			if run.Property != AbortsAcked && !counted[run.Property] {
				counted[run.Property] = true
				cases += run.Cases
			}
			cells[run.Property] = cell(run)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", r.Commit, r.Date, r.Variant, probeCell(r),
			cells[Refinement], cells[AbortedRoomsTerminate], cells[AbortsAcked], cells[PromptTermination], cases, r.Subject)
	}
	tw.Flush()
}

// probeCell is the probe's findings beside the expectation.
func probeCell(r *Row) string {
	switch {
	case r.Expected == "":
		return "no expectation"
	case len(r.Differences) > 0:
		return fmt.Sprintf("DIFFERS (%d)", len(r.Differences))
	}
	return "= expected"
}

func cell(run Run) string {
	c := "holds"
	if !run.Holds {
		switch run.Property {
		case Refinement:
			c = fmt.Sprintf("FAILS (%d steps)", run.Steps)
		case AbortsAcked:
			c = fmt.Sprintf("UNACKED (%d steps)", run.Steps)
		default:
			c = fmt.Sprintf("PINS (%d steps)", run.Steps)
		}
	}
	switch {
	case !run.Known:
		return "-"
	case run.Check == "":
		return c
	case run.Agrees:
		return c + " = check"
	}
	return c + " ≠ check " + run.Check
}

func writeReplays(w io.Writer, rows []*Row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "COMMIT\tCONFIGURATION\tPROPERTY\tCHECKER\tITS COUNTEREXAMPLE ON THE REAL CODE")
	for _, r := range rows {
		for _, rp := range r.Replays {
			verdict := "REPRODUCED"
			if !rp.Reproduced {
				verdict = "NOT REPRODUCED"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s: %s\n", r.Commit, rp.Config, rp.Property, rp.Check, verdict, rp.RealCode)
		}
	}
	tw.Flush()
}

// writeGate prints the gate's verdict (Gate must have run), each failing
// commit with what it makes worse, in full, and the notes of the rows
// (no expectation, warnings).
func writeGate(w io.Writer, rows []*Row) {
	failing := 0
	for _, r := range rows {
		if len(r.Worse) > 0 {
			failing++
		}
	}
	switch {
	case failing > 0:
		fmt.Fprintf(w, "GATE: FAILS: %d of %d commits make something worse than the commit before them\n", failing, len(rows))
	case len(rows) == 1:
		fmt.Fprintln(w, "GATE: passes: the commit makes nothing worse (no commit before it)")
	default:
		fmt.Fprintf(w, "GATE: passes: none of %d commits makes anything worse than the commit before it\n", len(rows))
	}
	for _, r := range rows {
		if len(r.Worse) == 0 && r.NoExpectation == "" && len(r.Warnings) == 0 {
			continue
		}
		verdict := "passes"
		if len(r.Worse) > 0 {
			verdict = "FAILS"
		}
		fmt.Fprintf(w, "%s %s  %s\n", verdict, r.Commit, r.Subject)
		for _, s := range r.Worse {
			fmt.Fprintf(w, "  - %s\n", indent(s))
		}
		for _, s := range r.Warnings {
			fmt.Fprintf(w, "  note: %s\n", indent(s))
		}
		if r.NoExpectation != "" {
			fmt.Fprintf(w, "  note: %s\n", indent(r.NoExpectation))
		}
	}
}

// indent keeps a multi-line reason (a child's stderr) inside its item.
func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
