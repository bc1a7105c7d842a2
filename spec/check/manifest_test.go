package check

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/internal/sharedpath"
	"github.com/roomspec/roomspec/spec/tla"
	"github.com/roomspec/roomspec/spec/tla/cfg"
)

// manifestEntry is one model of ../shared/tla-examples/manifest.json with
// the figures TLC recorded for it.
type manifestEntry struct {
	Dir            string `json:"dir"`
	Module         string `json:"module"`
	Config         string `json:"config"`
	Result         string `json:"result"`
	DistinctStates *int64 `json:"distinctStates"`
	TotalStates    *int64 `json:"totalStates"`
	StateDepth     *int   `json:"stateDepth"`
}

func readManifest(t testing.TB) (string, []manifestEntry) {
	dir := sharedpath.Require(t, "tla-examples")
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	var entries []manifestEntry
	require.NoError(t, json.Unmarshal(data, &entries))
	return dir, entries
}

// loadModel reads a module and its cfg from a directory.
func loadModel(t testing.TB, dir, module, config string) *Model {
	t.Helper()
	mods, err := tla.Load(os.DirFS(dir), module)
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(dir, config))
	require.NoError(t, err)
	conf, err := cfg.Parse(config, src)
	require.NoError(t, err)
	m, err := Build(mods, conf)
	require.NoError(t, err)
	return m
}

// slowModels are too slow for the default test run; they run from
// BenchmarkPaxosCommit and with -run Manifest -slow.
var slowModels = map[string]bool{"transaction_commit--PaxosCommit": true}

// TestManifest checks every shared example model and requires the figures
// TLC recorded: the same distinct-state count for models that pass, the
// same kind of violation for models that fail.
func TestManifest(t *testing.T) {
	dir, entries := readManifest(t)
	require.Len(t, entries, 13)
	for _, e := range entries {
		t.Run(e.Dir, func(t *testing.T) {
			if slowModels[e.Dir] && !*slow {
				t.Skip("slow model: run with -slow (or see BenchmarkPaxosCommit)")
			}
			t.Parallel()
			m := loadModel(t, filepath.Join(dir, e.Dir), e.Module, e.Config)
			r := Check(context.Background(), m, Options{Workers: 1})
			require.NoError(t, r.Err)
			switch e.Result {
			case "success":
				assert.Equal(t, OK, r.Outcome, "violated %s", r.Violated)
				require.NotNil(t, e.DistinctStates)
				assert.Equal(t, *e.DistinctStates, r.Distinct, "distinct states")
				// TLC's depth is not compared: with several workers TLC's
				// search is not level by level and may report a larger
				// depth than the breadth-first one.
				assert.LessOrEqual(t, r.Depth, *e.StateDepth, "depth")
				assert.Equal(t, *e.TotalStates, r.Generated, "states generated")
			case "safety failure":
				assert.Contains(t, []Outcome{Invariant, Deadlock}, r.Outcome)
			case "liveness failure":
				assert.Equal(t, Violation, r.Outcome)
				assert.GreaterOrEqual(t, r.LoopStart, 0, "a liveness counterexample is a lasso")
			default:
				t.Fatalf("unknown manifest result %q", e.Result)
			}
			if strings.HasPrefix(e.Dir, "DieHard") {
				assert.Equal(t, "NotSolved", r.Violated)
				assert.Len(t, r.Trace, 7, "the shortest trace to a solved puzzle has 7 states")
			}
		})
	}
}
