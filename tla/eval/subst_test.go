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

	// A step's next state is whole: y' is kept in it too (read three times,
	// computed once; y may be computed again, as the few values kept per
	// substitution are chosen by the states' addresses).
	step, err := sp.Formula("Step")
	require.NoError(t, err)
	for _, tc := range []struct {
		next int64
		want bool
	}{{2, true}, {3, false}} {
		before := prints
		ok, err := sp.HoldsStep(step, s1, eval.State{value.Int(tc.next)})
		require.NoError(t, err)
		assert.Equal(t, tc.want, ok, "x' = %d", tc.next)
		assert.LessOrEqual(t, prints-before, 2, "y' computed once for three reads")
	}
	prints = 1

	v, err := sp.Eval(thrice, eval.State{value.Int(2)})
	require.NoError(t, err)
	assert.Equal(t, value.Int(12), v)
	assert.Equal(t, 2, prints, "y computed again in state x = 2")
}
