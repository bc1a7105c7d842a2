package eval_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptAndLimitMemory: an interrupted spec's evaluations stop with
// the interrupt's error, and one over the memory bound with the bound's,
// until both are lifted; the error is the caller's, unwrapped, so that
// the checker can tell a stop from a fault of the spec.
func TestInterruptAndLimitMemory(t *testing.T) {
	dir := t.TempDir()
	src := "---- MODULE Stop ----\nEXTENDS Naturals, FiniteSets\n" +
		"ASSUME Cardinality({s \\in SUBSET (1..12) : 1 \\in s}) = 2048\n====\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Stop.tla"), []byte(src), 0o644))
	// A constant expression is kept once evaluated: each case evaluates
	// a fresh spec.
	errStop := errors.New("stop")
	sp := loadSpec(t, dir, "Stop")
	sp.Interrupt(errStop)
	assert.Equal(t, errStop, sp.CheckAssumptions())
	sp.Interrupt(nil)
	require.NoError(t, sp.CheckAssumptions())

	errMemory := errors.New("memory")
	sp = loadSpec(t, dir, "Stop")
	sp.LimitMemory(1<<20, errMemory)
	assert.Equal(t, errMemory, sp.CheckAssumptions(), "2^12 subsets do not fit in 1 MiB beside the rest of the heap")
	sp.LimitMemory(0, nil)
	require.NoError(t, sp.CheckAssumptions())

	sp = loadSpec(t, dir, "Stop")
	sp.LimitMemory(1<<40, errMemory)
	require.NoError(t, sp.CheckAssumptions(), "within the bound")
}
