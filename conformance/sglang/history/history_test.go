package history

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/spec/bundled"
	"github.com/roomspec/roomspec/spec/compiled"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
)

// verdicts is the model checker's verdicts on the bundled variant, as
// roomspec check gives them (the compiled model, every property).
func verdicts(t *testing.T, variant string) []check.Verdict {
	t.Helper()
	m, conf, err := bundled.Variant(variant)
	require.NoError(t, err)
	mc, err := model.FromCfg(conf)
	require.NoError(t, err)
	r := check.Check(context.Background(), m, check.Options{All: true, Workers: 2, Successors: compiled.New(mc)})
	require.NotEqual(t, check.Failure, r.Outcome, "%v", r.Err)
	return r.Verdicts
}

// TestReplay runs the checker's counterexamples on Go ports: the port of
// the configuration's own code reproduces every one of them; a port of
// other code (sglang-35360-deferred's under sglang-34692's configuration
// has a deferred ACK where the spec has none) departs from the spec on
// one and so does not reproduce it.
func TestReplay(t *testing.T) {
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
			c, err := conformance.LoadVariant(tc.variant)
			require.NoError(t, err)
			im, _, err := conformance.Builtin(tc.port)
			require.NoError(t, err)
			target := conformance.Target{Name: tc.port, Impl: im, Config: c}
			violated, reproduced := 0, 0
			for _, v := range verdicts(t, tc.variant) {
				if v.Holds {
					continue
				}
				violated++
				rp, err := replay(target, v)
				require.NoError(t, err, v.Name)
				assert.Equal(t, len(v.Trace)-1, rp.Steps, v.Name)
				if rp.Reproduced {
					reproduced++
					assert.Nil(t, rp.Result, v.Name)
				} else {
					assert.NotNil(t, rp.Result, "%s: %s", v.Name, rp.RealCode)
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
