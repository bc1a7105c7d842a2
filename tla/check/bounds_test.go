package check

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unbounded is a spec with infinitely many states: x' = x + 1.
func unbounded(t *testing.T) *Model {
	dir := t.TempDir()
	src := "---- MODULE U ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x + 1\n====\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "U.tla"), []byte(src), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "U.cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	return loadModel(t, dir, "U", "U.cfg")
}

// TestBounds: a search that cannot end stops at each bound with outcome
// Incomplete and says how far it got.
func TestBounds(t *testing.T) {
	m := unbounded(t)
	r := Check(context.Background(), m, Options{Workers: 2, MaxStates: 1000})
	require.NoError(t, r.Err)
	assert.Equal(t, Incomplete, r.Outcome)
	assert.Equal(t, int64(1000), r.Distinct)
	assert.Equal(t, 1000, r.Depth)
	assert.Equal(t, 1, r.Queue, "the last state found is queued")
	assert.Contains(t, r.Stopped, "-max-states 1000")

	r = Check(context.Background(), m, Options{Workers: 2, MaxDepth: 7})
	assert.Equal(t, Incomplete, r.Outcome)
	assert.Equal(t, int64(7), r.Distinct)
	assert.Equal(t, 7, r.Depth)
	assert.Contains(t, r.Stopped, "-max-depth 7")

	r = Check(context.Background(), m, Options{Workers: 2, MaxMemory: 1})
	assert.Equal(t, Incomplete, r.Outcome)
	assert.Contains(t, r.Stopped, "-max-memory")

	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	r = Check(ctx, m, Options{Workers: 2, Progress: func(p Progress) {
		if n++; n == 3 {
			cancel()
		}
	}})
	assert.Equal(t, Incomplete, r.Outcome)
	assert.Equal(t, "interrupted", r.Stopped)
	assert.Positive(t, r.Distinct)
}
