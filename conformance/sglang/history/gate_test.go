package history

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/roomspec/roomspec/conformance/sglang"
)

// row is a commit whose every run holds, refinement and liveness.
func row(commit string) *Row {
	return &Row{Commit: commit, Variant: "sglang-35360", Expected: "PRs #35360",
		Runs: []Run{
			{Property: Refinement, Holds: true, Agrees: true, Known: true},
			{Property: AbortedRoomsTerminate, Holds: true, Agrees: true, Known: true, Check: "holds"},
			{Property: AbortsAcked, Holds: true, Agrees: true, Known: true, Check: "holds"},
			{Property: PromptTermination, Holds: false, Steps: 3, Agrees: true, Known: true, Check: "VIOLATED (4+loop)"},
		}}
}

func fail(r *Row, property string, before string) *Row {
	for i := range r.Runs {
		if r.Runs[i].Property == property {
			r.Runs[i].Holds, r.Runs[i].Steps, r.Runs[i].Before = false, 5, before
			if property != Refinement {
				r.Runs[i].Check = "holds"
				r.Runs[i].Agrees = true
			}
		}
	}
	return r
}

var timeout = sglang.Difference{Switch: "HasBootstrapTimeout", Expected: true, Probed: false, PR: "34692"}

func TestGate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rows  []*Row
		worse [][]string // what each row must name (nil: passes)
	}{
		{"nothing changes", []*Row{row("a"), row("b")}, [][]string{nil, nil}},
		{"a liveness failure at the first commit is no gate failure",
			[]*Row{fail(row("a"), AbortedRoomsTerminate, "")}, [][]string{nil}},
		{"refinement fails at the first commit",
			[]*Row{fail(row("a"), Refinement, "")}, [][]string{{"refinement fails: the real code departs from sglang-35360"}}},
		{"a property that held fails",
			[]*Row{row("a"), fail(row("b"), AbortedRoomsTerminate, "")},
			[][]string{nil, {"AbortedRoomsTerminate fails (5 steps", "it held at a"}}},
		{"a failure the commit before has too",
			[]*Row{fail(row("a"), Refinement, ""), fail(row("b"), Refinement, "fails")},
			[][]string{{"refinement fails"}, nil}},
		{"a failure the commit before had, on other behaviours",
			[]*Row{fail(row("a"), Refinement, ""), fail(row("b"), Refinement, "passes")},
			[][]string{{"refinement fails"}, {"a passes this counterexample: a new failure"}}},
		{"a behaviour the PRs do not account for, then kept",
			[]*Row{row("a"), func() *Row { r := row("b"); r.Differences = []sglang.Difference{timeout}; return r }(),
				func() *Row { r := row("c"); r.Differences = []sglang.Difference{timeout}; return r }()},
			[][]string{nil, {"behaviour changed with no lifecycle PR: HasBootstrapTimeout: expected a request stuck in Bootstrapping fails after the bootstrap timeout (PR #34692)"}, nil}},
		{"a commit that cannot run, then one held to the last that ran",
			[]*Row{row("a"), {Commit: "b", Error: "sglang: b: the probe failed; its stderr ends:\nTraceback\n  line 2"}, fail(row("c"), AbortsAcked, "")},
			[][]string{nil, {"cannot run: sglang: b: the probe failed; its stderr ends:\nTraceback\n  line 2"}, {"AbortsAcked fails", "it held at a"}}},
		{"suite and checker disagree",
			[]*Row{row("a"), func() *Row { r := row("b"); r.Runs[1].Agrees = false; r.Runs[1].Check = "VIOLATED (3+loop)"; return r }()},
			[][]string{nil, {"AbortedRoomsTerminate: the suite says holds on the real code, the model checker VIOLATED (3+loop)"}}},
		{"a counterexample not reproduced, then still not",
			[]*Row{row("a"),
				func() *Row {
					r := row("b")
					r.Replays = []Replay{{Config: "sglang-35360", Property: "NoEntryAfterRelease", RealCode: "departs from the spec at step 4"}}
					return r
				}(),
				func() *Row {
					r := row("c")
					r.Replays = []Replay{{Config: "sglang-35360", Property: "NoEntryAfterRelease", RealCode: "departs from the spec at step 4"}}
					return r
				}()},
			[][]string{nil, {"the checker's NoEntryAfterRelease counterexample (sglang-35360) is not reproduced: the real code departs from the spec at step 4"}, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failing := Gate(tc.rows)
			want := 0
			for i, r := range tc.rows {
				got := strings.Join(r.Worse, "\n")
				if tc.worse[i] == nil {
					assert.Empty(t, r.Worse, "row %s", r.Commit)
					continue
				}
				want++
				for _, w := range tc.worse[i] {
					assert.Contains(t, got, w, "row %s", r.Commit)
				}
			}
			assert.Equal(t, want, failing)
		})
	}
}

// The text names every failing commit and its whole reason (a child's
// stderr indented under it), and says when the gate passes.
func TestWriteGate(t *testing.T) {
	rows := []*Row{row("a"), {Commit: "b", Subject: "broken", Error: "load: its stderr ends:\nTraceback\n  line 2"}}
	Gate(rows)
	var b bytes.Buffer
	WriteText(&b, rows)
	out := b.String()
	assert.Contains(t, out, "GATE: FAILS: 1 of 2 commits make something worse")
	assert.Contains(t, out, "FAILS b  broken\n  - cannot run: load: its stderr ends:\n    Traceback\n      line 2\n")
	assert.Regexp(t, `\nb +- +- +cannot run \(GATE below\) +broken\n`, out)

	rows = []*Row{row("a"), row("b")}
	Gate(rows)
	b.Reset()
	WriteText(&b, rows)
	assert.Contains(t, b.String(), "GATE: passes: none of 2 commits makes anything worse than the commit before it")
}
