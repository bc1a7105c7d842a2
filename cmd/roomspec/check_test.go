package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/internal/sharedpath"
)

var slowModels = flag.Bool("slow", false, "also check the slow shared models (PaxosCommit)")

// TestCheckSharedModels runs `roomspec check` in text and JSON form on
// every shared example model and requires TLC's figures in both.
func TestCheckSharedModels(t *testing.T) {
	dir := sharedpath.Require(t, "tla-examples")
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	var entries []struct {
		Dir, Module, Config, Result string
		DistinctStates              *int64
		TotalStates                 *int64
	}
	require.NoError(t, json.Unmarshal(data, &entries))
	for _, m := range entries {
		t.Run(m.Dir, func(t *testing.T) {
			if m.DistinctStates != nil && *m.DistinctStates > 100000 && !*slowModels {
				t.Skip("slow model: run with -slow")
			}
			t.Parallel()
			module := filepath.Join(dir, m.Dir, m.Module)
			var jout, jerr bytes.Buffer
			code := run(&env{stdout: &jout, stderr: &jerr}, []string{"check", "-format", "json", module})
			var got jsonResult
			require.NoError(t, json.Unmarshal(jout.Bytes(), &got), "stdout: %s", jout.String())
			assert.Equal(t, 1, bytes.Count(jout.Bytes(), []byte("\n")), "exactly one JSON object")
			var tout bytes.Buffer
			tcode := run(&env{stdout: &tout, stderr: &bytes.Buffer{}}, []string{"check", module})
			assert.Equal(t, code, tcode, "text and JSON exit codes agree")
			assert.Contains(t, tout.String(), fmt.Sprintf("%d states generated, %d distinct states found", got.StatesGenerated, got.DistinctStates))
			switch m.Result {
			case "success":
				assert.Equal(t, 0, code, jerr.String())
				assert.Equal(t, "ok", got.Result)
				assert.Equal(t, *m.DistinctStates, got.DistinctStates)
				assert.Equal(t, *m.TotalStates, got.StatesGenerated)
				assert.Contains(t, tout.String(), "No error has been found")
				assert.Equal(t, -1, got.LoopStart)
			case "safety failure":
				assert.Equal(t, 1, code)
				assert.Equal(t, "invariant", got.Result)
				assert.Equal(t, "NotSolved", got.Violated)
				assert.Len(t, got.Trace, 7)
				assert.Equal(t, "", got.Trace[0].Action, "the initial state has no action")
				assert.Contains(t, tout.String(), "Error: Invariant NotSolved is violated.")
			case "liveness failure":
				assert.Equal(t, 1, code)
				assert.Equal(t, "property", got.Result)
				assert.GreaterOrEqual(t, got.LoopStart, 0)
				assert.Less(t, got.LoopStart, len(got.Trace))
				assert.Contains(t, tout.String(), "Back to state")
			}
		})
	}
}
