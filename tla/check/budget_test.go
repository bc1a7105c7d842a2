package check

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// modelOf writes a module B with body and an INIT Init, NEXT Next
// configuration, and builds it.
func modelOf(t *testing.T, body string) *Model {
	dir := t.TempDir()
	src := "---- MODULE B ----\nEXTENDS Naturals, FiniteSets, Sequences, TLC\nVARIABLE x\n" + body + "\n====\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "B.tla"), []byte(src), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "B.cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	return loadModel(t, dir, "B", "B.cfg")
}

// long is issue 25's expression: 2^22 subsets built and filtered, seconds
// of work and over a gigabyte at its peak.
const long = `Cardinality({s \in SUBSET (1..22) : 1 \in s})`

// TestInterruptInsideExpression: cancelling the context stops the search
// inside one long expression (in an assumption, in Init, in an action),
// not after it, with what was explored before it reported. The spec
// prints "start" just before the expression, and the printer cancels:
// had the expression been evaluated to its end, its state would be
// counted.
func TestInterruptInsideExpression(t *testing.T) {
	for _, tc := range []struct {
		name, body        string
		generated, queued int64
	}{
		{"assumption", "ASSUME PrintT(\"start\") /\\ " + long + " > 0\nInit == x = 0\nNext == x' = x", 0, 0},
		{"init", "Init == PrintT(\"start\") /\\ x = " + long + "\nNext == x' = x", 0, 0},
		{"action", "Init == x = 0\nNext == PrintT(\"start\") /\\ x' = " + long, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := modelOf(t, tc.body)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m.Spec.Print = func(string) { cancel() }
			start := time.Now()
			r := Check(ctx, m, Options{Workers: 2})
			require.NoError(t, r.Err)
			assert.Equal(t, Incomplete, r.Outcome)
			assert.Equal(t, "interrupted", r.Stopped)
			assert.Equal(t, tc.generated, r.Generated, "states generated")
			assert.Equal(t, tc.generated, r.Distinct, "distinct states")
			assert.Equal(t, int(tc.queued), r.Queue, "states left on queue")
			t.Logf("stopped in %v", time.Since(start))
		})
	}
}

// TestMemoryInsideExpression: MaxMemory stops one expression that would
// build more than the bound allows: before it builds (SUBSET of 22
// elements, whose size is known up front) or as it builds (a set of 9M
// pairs, made one at a time; a sequence doubled again and again).
func TestMemoryInsideExpression(t *testing.T) {
	for _, tc := range []struct {
		name, expr string
		max        uint64
	}{
		{"estimated", long, 400 << 20},
		{"watched", `Cardinality({<<i, j>> : i \in 1..3000, j \in 1..3000})`, 200 << 20},
		// Issue 25's doubling sequence (a sequence concatenated with
		// itself 23 times: 8M elements, 826 MB under -max-memory 400).
		{"doubled", `LET f[n \in 0..23] == IF n = 0 THEN <<0>> ELSE f[n-1] \o f[n-1] IN Len(f[23])`, 100 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := modelOf(t, "Init == x = "+tc.expr+"\nNext == x' = x")
			r := Check(context.Background(), m, Options{Workers: 2, MaxMemory: tc.max})
			require.NoError(t, r.Err)
			assert.Equal(t, Incomplete, r.Outcome)
			assert.Contains(t, r.Stopped, "-max-memory")
			assert.Zero(t, r.Generated, "states generated")
		})
	}
}
