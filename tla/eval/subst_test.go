package eval_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// TestSubstitutionOncePerState: a variable an instance replaces by an
// expression is computed once in a state however often the instance's
// definitions read it (as TLC's lazy values of the substitutions), primed
// in the whole next state of a step too; in another state it is computed
// again.
func TestSubstitutionOncePerState(t *testing.T) {
	sp := loadSpec(t, "testdata", "Refine")
	prints := 0
	sp.Print = func(string) { prints++ }
	thrice, err := sp.Formula("Thrice")
	require.NoError(t, err)
	s1 := eval.State{value.Int(1)}
	for range 2 {
		v, err := sp.Eval(thrice, s1)
		require.NoError(t, err)
		assert.Equal(t, value.Int(6), v)
	}
	assert.Equal(t, 1, prints, "y computed once in state x = 1 for six reads")

	step, err := sp.Formula("Step")
	require.NoError(t, err)
	t2, t3 := eval.State{value.Int(2)}, eval.State{value.Int(3)}
	for _, tc := range []struct {
		next eval.State
		want bool
	}{{t2, true}, {t3, false}, {t2, true}} {
		ok, err := sp.HoldsStep(step, s1, tc.next)
		require.NoError(t, err)
		assert.Equal(t, tc.want, ok, "x' = %v", tc.next[0])
	}
	// A step's next state is whole: y' is kept in it too.
	assert.Equal(t, 3, prints, "y kept in state x = 1, y' computed once in each next state")

	v, err := sp.Eval(thrice, eval.State{value.Int(2)})
	require.NoError(t, err)
	assert.Equal(t, value.Int(12), v)
	assert.Equal(t, 4, prints, "y computed again in state x = 2")
}
