package check

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/tla/value"
)

// TestITFRoundTrip writes the lasso of FairWF's liveness violation as ITF
// and reads it back: the same states, the loop, the actions; and matching
// it against the spec finds the same steps.
func TestITFRoundTrip(t *testing.T) {
	m := loadModel(t, filepath.Join("testdata", "idioms"), "FairWF", "FairWF.cfg")
	r := Check(context.Background(), m, Options{Workers: 1})
	require.Equal(t, Violation, r.Outcome)
	require.GreaterOrEqual(t, r.LoopStart, 0)
	data, err := ITF("FairWF.tla", "Live is violated", m.Spec.Vars, r.Trace, r.LoopStart)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc), "%s", data)
	assert.EqualValues(t, r.LoopStart, doc["loop"])

	tr, err := ReadITF(data, nil)
	require.NoError(t, err)
	assert.Equal(t, m.Spec.Vars, tr.Vars)
	assert.Equal(t, r.LoopStart, tr.Loop)
	require.Len(t, tr.States, len(r.Trace))
	for i, st := range r.Trace {
		assert.Equal(t, m.Spec.Format(st.State), m.Spec.Format(tr.States[i]), "state %d", i)
		if i > 0 {
			assert.Equal(t, st.Action.String(), tr.Actions[i])
		}
	}
	steps, err := MatchITF(m, tr)
	require.NoError(t, err)
	require.Len(t, steps, len(r.Trace))
	for i := 1; i < len(steps); i++ {
		assert.Equal(t, r.Trace[i].Action.String(), steps[i].Action.String())
	}
}

// TestITFFromOtherTools: a trace written by another tool (variables in
// another order, integers as plain numbers, tuples as #tup) loads when its
// states are the spec's, and a state that is not gives an error naming it.
func TestITFFromOtherTools(t *testing.T) {
	m := loadModel(t, filepath.Join("testdata", "idioms"), "FairWF", "FairWF.cfg")
	good := `{"vars":["on","x"],"states":[
		{"on":false,"x":{"#bigint":"0"}},
		{"on":true,"x":0},
		{"on":true,"x":{"#bigint":"1"}}]}`
	tr, err := ReadITF([]byte(good), nil)
	require.NoError(t, err)
	steps, err := MatchITF(m, tr)
	require.NoError(t, err)
	assert.Equal(t, "Toggle", steps[1].Action.String())
	assert.Equal(t, "Inc", steps[2].Action.String())
	assert.Equal(t, value.Int(1), steps[2].State[0])

	bad := `{"vars":["x","on"],"states":[
		{"x":0,"on":false},
		{"x":2,"on":false}]}`
	tr, err = ReadITF([]byte(bad), nil)
	require.NoError(t, err)
	_, err = MatchITF(m, tr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "state 1 of the trace is not a successor of state 0")

	_, err = MatchITF(m, &ITFTrace{Vars: []string{"x"}, States: nil})
	require.Error(t, err)
}
