package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/spec"
)

// TestReplayCounterexample runs the checker's counterexamples on Go ports:
// the port of the configuration's own code reproduces every one of them;
// a port of other code (sglang-35360-deferred's under sglang-35360's
// configuration has a deferred ACK where the spec has none) departs from
// the spec on one and so does not reproduce it.
func TestReplayCounterexample(t *testing.T) {
	for _, tc := range []struct {
		variant, port string
		all           bool // every counterexample reproduced
	}{
		{"sglang-35360-deferred", "sglang-35360-deferred", true},
		{"sglang-30545", "sglang-30545", true},
		{"upstream", "upstream", true},
		{"sglang-34692", "sglang-35360-deferred", false},
	} {
		t.Run(tc.variant+"/"+tc.port, func(t *testing.T) {
			sv, err := spec.Load(tc.variant)
			require.NoError(t, err)
			vr, err := checkConfigText(tc.variant, sv.Text, 2, false, io.Discard)
			require.NoError(t, err)
			c, err := spec.Compiled(tc.variant)
			require.NoError(t, err)
			im, _, err := conformance.Builtin(tc.port)
			require.NoError(t, err)
			target := conformance.Target{Name: tc.port, Impl: im, Config: c}
			violated, reproduced := 0, 0
			for _, v := range vr.res.Verdicts {
				if v.Holds {
					continue
				}
				violated++
				rp, err := replayCounterexample(target, v)
				require.NoError(t, err, v.Name)
				assert.Equal(t, len(v.Trace)-1, rp.Steps, v.Name)
				if rp.Reproduced {
					reproduced++
					assert.Nil(t, rp.result, v.Name)
				} else {
					assert.NotNil(t, rp.result, "%s: %s", v.Name, rp.RealCode)
				}
				if tc.all {
					assert.True(t, rp.Reproduced, "%s: %s", v.Name, rp.RealCode)
				}
			}
			assert.Positive(t, violated)
			if !tc.all {
				assert.Less(t, reproduced, violated, "a port of other code reproduced every counterexample")
			}
		})
	}
}
