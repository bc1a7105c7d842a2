package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTLCVerdict reads TLC's output (excerpts of tla2tools' own, from runs
// on ../shared/tla-examples) in roomspec's words.
func TestTLCVerdict(t *testing.T) {
	for _, tc := range []struct {
		name, out, verdict, detail string
		distinct                   int64
	}{
		{"success", "Finished computing initial states: 12 distinct states generated at 2026-12-02 07:45:43.\n" +
			"Model checking completed. No error has been found.\n" +
			"24 states generated, 12 distinct states found, 0 states left on queue.\n", "success", "", 12},
		{"thousands", "Model checking completed. No error has been found.\n" +
			"16,959,159 states generated, 1,321,761 distinct states found, 0 states left on queue.\n", "success", "", 1321761},
		{"assumptions only", "Model checking completed. No error has been found.\n", "success", "", 0},
		{"invariant", "Error: Invariant NotSolved is violated.\nError: The behavior up to this point is:\n" +
			"73 states generated, 14 distinct states found, 1 states left on queue.\n", "invariant", "NotSolved", 14},
		{"deadlock", "Error: Deadlock reached.\n9 states generated, 8 distinct states found, 0 states left on queue.\n", "deadlock", "", 8},
		{"temporal", "Error: Temporal properties were violated.\n", "property", "", -1},
		{"one temporal property", "Error: Temporal property ErrorTemporal was violated.\n" +
			"216 states generated, 216 distinct states found, 0 states left on queue.\n", "property", "ErrorTemporal", 216},
		{"action property", "Error: Action property Inc is violated.\n", "property", "Inc", -1},
		{"assumption", "Error: Assumption line 5, col 8 to line 5, col 12 of module M is false.\n", "assumption", "", -1},
		{"other error", "Error: Cannot find source file for module TLAPS.\n", "error", "Cannot find source file for module TLAPS.", -1},
		{"nothing", "Exception in thread \"main\"\n", "error", "Exception in thread \"main\"", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			verdict, distinct, detail := tlcVerdict([]byte(tc.out))
			assert.Equal(t, tc.verdict, verdict)
			assert.Equal(t, tc.distinct, distinct)
			assert.Equal(t, tc.detail, detail)
		})
	}
}

func TestRoomspecVerdict(t *testing.T) {
	v, n, d := roomspecVerdict([]byte(`{"result":"ok","violated":"","distinctStates":302,"error":""}`), nil, nil)
	assert.Equal(t, []any{"success", int64(302), ""}, []any{v, n, d})
	v, n, d = roomspecVerdict([]byte(`{"result":"invariant","violated":"NotSolved","distinctStates":14}`), nil, nil)
	assert.Equal(t, []any{"invariant", int64(14), "NotSolved"}, []any{v, n, d})
	v, n, d = roomspecVerdict(nil, []byte("roomspec: M.tla:3:4: expected an expression\nmore\n"), nil)
	assert.Equal(t, []any{"error", int64(-1), "roomspec: M.tla:3:4: expected an expression"}, []any{v, n, d})
}

// TestSummarize: medians over the rounds, the first run's verdict, and a
// difference in verdict or in distinct states on success flagged; a model
// a checker did not finish is not called different.
func TestSummarize(t *testing.T) {
	models := []entry{{Set: "/s/tla-examples", Dir: "A"}, {Set: "/s/tla-corpus", Dir: "B"}, {Set: "/s/tla-corpus", Dir: "C"}}
	runs := []measured{
		{Model: "tla-examples/A", Checker: "roomspec", Verdict: "success", Distinct: 10, Wall: 1, CPU: 1, MaxRSS: 100},
		{Model: "tla-examples/A", Checker: "roomspec", Verdict: "success", Distinct: 10, Wall: 3, CPU: 2, MaxRSS: 300},
		{Model: "tla-examples/A", Checker: "roomspec", Verdict: "success", Distinct: 10, Wall: 2, CPU: 9, MaxRSS: 200},
		{Model: "tla-examples/A", Checker: "tlc", Verdict: "success", Distinct: 10, Wall: 4, CPU: 4, MaxRSS: 50},
		{Model: "tla-corpus/B", Checker: "roomspec", Verdict: "success", Distinct: 10, Wall: 1},
		{Model: "tla-corpus/B", Checker: "tlc", Verdict: "success", Distinct: 11, Wall: 1},
		{Model: "tla-corpus/C", Checker: "roomspec", Verdict: "success", Distinct: 10, Wall: 1},
		{Model: "tla-corpus/C", Checker: "tlc", Verdict: "timeout", Distinct: -1, Wall: 600},
	}
	rows := summarize(models, runs)
	assert.Equal(t, checkerRow{Verdict: "success", Distinct: 10, Wall: 2, CPU: 2, MaxRSS: 300}, rows[0].Roomspec)
	assert.InDelta(t, 0.5, rows[0].WallRatio, 1e-9)
	assert.False(t, rows[0].Differs)
	assert.True(t, rows[1].Differs)
	assert.False(t, rows[2].Differs)
	assert.InDelta(t, 2.5, median([]float64{4, 1, 2, 3}), 1e-9)
}
