package check

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTLCGetSet checks TLCGet and TLCSet on the specs of testdata/tlc,
// each with the figures TLC (tlaplus/tlaplus at cc6b616, -workers 1)
// reports for it: the levels TLCGet("level") gives where it is evaluated,
// the registers, the configuration and statistics, POSTCONDITION and
// TLCSet("exit", TRUE).
func TestTLCGetSet(t *testing.T) {
	cases := []struct {
		name                string
		outcome             Outcome
		distinct, generated int64
		depth, queue        int
		violated, stopped   string
	}{
		{name: "Level", outcome: OK, distinct: 7, generated: 15, depth: 4},
		{name: "Registers", outcome: OK, distinct: 4, generated: 4, depth: 4},
		// TLC reports this search as complete ("No error has been
		// found", exit status 0) with 1 state left on its queue; roomspec
		// says it stopped before it was exhaustive.
		{name: "Exit", outcome: Incomplete, distinct: 4, generated: 4, depth: 4, queue: 1, stopped: exitRequested},
		{name: "PostFalse", outcome: Postcondition, distinct: 3, generated: 3, depth: 3, violated: "Post"},
	}
	dir := filepath.Join("testdata", "tlc")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := loadModel(t, dir, tc.name, tc.name+".cfg")
			r := Check(context.Background(), m, Options{Workers: 1})
			require.NoError(t, r.Err)
			assert.Equal(t, tc.outcome, r.Outcome)
			assert.Equal(t, tc.distinct, r.Distinct, "distinct")
			assert.Equal(t, tc.generated, r.Generated, "generated")
			assert.Equal(t, tc.depth, r.Depth, "depth")
			assert.Equal(t, tc.queue, r.Queue, "queue")
			assert.Equal(t, tc.violated, r.Violated)
			assert.Equal(t, tc.stopped, r.Stopped)
		})
	}
}

// TestTLCGetLevelWorkers checks that TLCGet("level") does not depend on
// how many workers expand a level.
func TestTLCGetLevelWorkers(t *testing.T) {
	m := loadModel(t, filepath.Join("testdata", "tlc"), "Level", "Level.cfg")
	for _, w := range []int{2, 4} {
		r := Check(context.Background(), m, Options{Workers: w})
		require.NoError(t, r.Err)
		assert.Equal(t, OK, r.Outcome)
		assert.Equal(t, int64(7), r.Distinct)
	}
}

// TestTLCGetErrors checks what TLC refuses: a register never set, a name
// TLCGet does not know, an ASSUME that asks for a configuration the check
// does not have (TLC's message: "Assumption ... is false").
func TestTLCGetErrors(t *testing.T) {
	cases := []struct{ name, assume, want string }{
		{"UndefinedRegister", `TLCGet(3) = 0`, `M.tla:4:8: TLCGet(3) was undefined`},
		{"UndefinedNamed", `TLCGet("s:none") = 0`, `M.tla:4:8: TLCGet("s:none") was undefined`},
		{"UnknownName", `TLCGet("levels") = 0`, `M.tla:4:8: TLCGet("levels") was undefined`},
		{"NegativeRegister", `TLCSet(-1, 0)`, `M.tla:4:8: the first argument of TLCSet should be a nonnegative integer`},
		{"Workers", `TLCGet("config").worker = 3`, `assumption is false: TLCGet("config").worker = 3`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "---- MODULE M ----\nEXTENDS Integers, TLC\nVARIABLE x\nASSUME " + tc.assume + "\nInit == x = 0\nNext == UNCHANGED x\n====\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "M.tla"), []byte(src), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "M.cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
			m := loadModel(t, dir, "M", "M.cfg")
			r := Check(context.Background(), m, Options{Workers: 2})
			require.Equal(t, Failure, r.Outcome)
			assert.Contains(t, r.Err.Error(), tc.want)
		})
	}
}
