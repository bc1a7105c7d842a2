package mutate

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/roomspec/roomspec/conformance/sglang"
)

// Score is the kill rate: killed mutants of those not shown equivalent.
func (r *Report) Score() float64 {
	n := r.Killed + r.Survived
	if n == 0 {
		return 1
	}
	return float64(r.Killed) / float64(n)
}

// Summary is the campaign in one line.
func (r *Report) Summary() string {
	timeouts := 0
	for _, m := range r.Results {
		if m.Verdict == Killed && m.Timeout {
			timeouts++
		}
	}
	killed := fmt.Sprint(r.Killed)
	if timeouts > 0 {
		killed = fmt.Sprintf("%d (%d by a timeout)", r.Killed, timeouts)
	}
	return fmt.Sprintf("%d mutants: %s killed, %d survived, %d equivalent; score %d/%d = %.1f%% (%d mutations on lines the suite never runs not made)",
		len(r.Results), killed, r.Survived, r.Equivalent, r.Killed, r.Killed+r.Survived, 100*r.Score(), r.NotReached)
}

// WriteText prints the campaign: what was mutated and against what, one
// line per mutant with its verdict and how it was told apart (or why it
// is equivalent), then the diff of every survivor and the summary.
func WriteText(w io.Writer, r *Report) {
	fmt.Fprintf(w, "SGLang %s", r.Source)
	if r.Commit != "" {
		fmt.Fprintf(w, " (commit %.12s)", r.Commit)
	}
	fmt.Fprintf(w, ", checked against %s", r.Variant)
	if r.Expected != "" {
		fmt.Fprintf(w, " (expected: %s)", r.Expected)
	}
	cases := "the default budget"
	if r.Cases > 0 {
		cases = fmt.Sprintf("%d cases", r.Cases)
	}
	fmt.Fprintf(w, "; suite at %s, seed %d\n", cases, r.Seed)
	deferred := ""
	if d := r.Baseline.Deferred; d != nil {
		deferred = fmt.Sprintf("; with %s=1, refinement of %s holds", sglang.DeferredEnv, d.Variant)
	}
	fmt.Fprintf(w, "unmutated: refinement holds, liveness %s%s (%.1fs)\n\n", holdsText(r.Baseline.Liveness, r.Baseline.Pinned), deferred, r.Baseline.Seconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERDICT\tMUTANT\tLINE\tFUNCTION\tOPERATOR\tWHAT\tHOW")
	for _, m := range r.Results {
		how := m.How
		if m.Verdict == Equivalent {
			how = m.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", strings.ToUpper(m.Verdict), m.ID, m.Line, m.Function, m.Operator, m.What, oneLine(how, 160))
	}
	tw.Flush()
	for _, m := range r.Results {
		if m.Verdict != Survived {
			continue
		}
		fmt.Fprintf(w, "\nSURVIVED %s (%s, %s): %s\n%s", m.ID, m.Function, m.Operator, m.What, m.Diff)
	}
	fmt.Fprintf(w, "\n%s\n", r.Summary())
}

func holdsText(holds bool, pinned []string) string {
	if holds {
		return "holds"
	}
	return fmt.Sprintf("fails (%s)", strings.Join(pinned, ", "))
}

// oneLine shows s on one line of at most n runes (the JSON report has it
// whole).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
