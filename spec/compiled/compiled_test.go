package compiled_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/compiled"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
)

// TestMatchesBundledSpec: the committed compiled model was generated from
// the bundled Room.tla (go generate ./spec/model after every edit).
func TestMatchesBundledSpec(t *testing.T) {
	text, err := spec.Files.ReadFile("Room.tla")
	require.NoError(t, err)
	assert.True(t, compiled.Matches(text))
	assert.False(t, compiled.Matches(append(text, '\n')))
}

// load returns the checker's model and the compiled model of a bundled
// variant.
func load(t *testing.T, variant string) (*check.Model, *model.Config) {
	t.Helper()
	v, err := spec.Load(variant)
	require.NoError(t, err)
	m, err := v.Model()
	require.NoError(t, err)
	mc, err := v.Compiled()
	require.NoError(t, err)
	return m, mc
}

// TestSameVerdicts checks variants with the compiled successors and with
// the interpreter: same states, same verdicts, same counterexamples.
func TestSameVerdicts(t *testing.T) {
	for _, v := range []string{"upstream", "fork-90a52f44a", "mooncake", "fixed-deferred"} {
		t.Run(v, func(t *testing.T) {
			m, mc := load(t, v)
			want := check.Check(context.Background(), m, check.Options{All: true})
			got := check.Check(context.Background(), m, check.Options{All: true, Successors: compiled.New(mc)})
			require.NoError(t, want.Err)
			require.NoError(t, got.Err)
			assert.Equal(t, want.Distinct, got.Distinct)
			assert.Equal(t, want.Generated, got.Generated)
			require.Equal(t, len(want.Verdicts), len(got.Verdicts))
			for i := range want.Verdicts {
				w, g := want.Verdicts[i], got.Verdicts[i]
				assert.Equal(t, w.Holds, g.Holds, w.Name)
				assert.Equal(t, w.LoopStart, g.LoopStart, w.Name)
				require.Equal(t, len(w.Trace), len(g.Trace), w.Name)
				for k := range w.Trace {
					assert.Equal(t, w.Trace[k].Action.String(), g.Trace[k].Action.String(), "%s step %d", w.Name, k)
					assert.Equal(t, m.Spec.Format(w.Trace[k].State), m.Spec.Format(g.Trace[k].State), "%s step %d", w.Name, k)
				}
			}
		})
	}
}

// TestBehaviour: every counterexample the checker finds maps to the
// compiled model's actions, which replay to the very states of the trace;
// a trace with a state no action reaches is refused.
func TestBehaviour(t *testing.T) {
	for _, v := range []string{"upstream", "fork-90a52f44a", "sglang-35360-deferred"} {
		t.Run(v, func(t *testing.T) {
			m, mc := load(t, v)
			r := check.Check(context.Background(), m, check.Options{All: true, Successors: compiled.New(mc)})
			require.NoError(t, r.Err)
			violated := 0
			for _, vd := range r.Verdicts {
				if vd.Holds {
					continue
				}
				violated++
				seq, err := compiled.Behaviour(mc, vd.Trace)
				require.NoError(t, err, vd.Name)
				require.Len(t, seq, len(vd.Trace)-1, vd.Name)
				s := mc.Init()
				for i, a := range seq {
					var next *model.State
					mc.Next(&s, func(b model.Action, u *model.State) bool {
						if b == a {
							c := *u
							next = &c
							return true
						}
						return false
					})
					require.NotNil(t, next, "%s step %d: %s not enabled", vd.Name, i+1, mc.ActionString(a))
					s = *next
					assert.Equal(t, m.Spec.Format(vd.Trace[i+1].State), m.Spec.Format(mc.Values(&s)), "%s step %d", vd.Name, i+1)
					assert.Equal(t, vd.Trace[i+1].Action.Text, mc.ActionString(a), "%s step %d", vd.Name, i+1)
				}
			}
			assert.Positive(t, violated)
			bad := append([]check.Step(nil), r.Verdicts[1].Trace...)
			if len(bad) > 2 {
				bad[1], bad[2] = bad[2], bad[1]
				_, err := compiled.Behaviour(mc, bad)
				assert.ErrorIs(t, err, compiled.ErrNotABehaviour)
			}
		})
	}
}
