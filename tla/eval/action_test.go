package eval_test

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

func actionsSpec(t testing.TB) *eval.Spec {
	return loadSpec(t, "testdata", "Actions")
}

// show prints a state of Actions.tla compactly: "x=1 y=5".
func show(sp *eval.Spec, s eval.State) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = sp.Vars[i] + "=" + value.Format(v)
	}
	return strings.Join(parts, " ")
}

func state(vals ...value.Value) eval.State { return eval.State(vals) }

func formula(t testing.TB, sp *eval.Spec, name string) *eval.Formula {
	t.Helper()
	f, err := sp.Formula(name)
	require.NoError(t, err)
	return f
}

// initStates returns the initial states of the named predicate, sorted.
func initStates(t testing.TB, sp *eval.Spec, name string) ([]string, error) {
	var out []string
	err := sp.Init([]*eval.Formula{formula(t, sp, name)}, func(s eval.State) {
		out = append(out, show(sp, s))
	})
	slices.Sort(out)
	return out, err
}

// successors returns the distinct successors of s under the named action,
// sorted, and how many were generated (duplicates included).
func successors(t testing.TB, sp *eval.Spec, name string, s eval.State) ([]string, int, error) {
	var out []string
	n := 0
	err := sp.Next(formula(t, sp, name), s, func(t eval.State, _ *eval.Action) {
		n++
		out = append(out, show(sp, t))
	})
	slices.Sort(out)
	return slices.Compact(out), n, err
}

func TestInit(t *testing.T) {
	sp := actionsSpec(t)
	cases := []struct {
		name string
		want []string
	}{
		// x \in 0..2 assigns x; y = x * 10 then assigns y from it.
		{"Init", []string{"x=0 y=0", "x=1 y=10", "x=2 y=20"}},
		// The second x = 1 is a test, which holds.
		{"InitTest", []string{"x=1 y=2"}},
		// The second x = ... is a test, which fails.
		{"InitFalse", nil},
		{"InitBoth", []string{`x=1 y="a"`, `x=1 y="b"`, `x=2 y="a"`, `x=2 y="b"`}},
		{"InstInit", []string{"x=0 y=0"}},
		// \E, \/, IF and \A in initial predicates.
		{"InitExists", []string{"x=1 y=-1", "x=2 y=-2"}},
		{"InitOr", []string{"x=0 y=0", "x=1 y=7", "x=1 y=8"}},
		{"InitIf", []string{`x=0 y="zero"`, `x=1 y="one"`}},
		{"InitForall", []string{"x=4 y=4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := initStates(t, sp, tc.name)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestNext(t *testing.T) {
	sp := actionsSpec(t)
	s15 := state(value.Int(1), value.Int(5))
	s05 := state(value.Int(0), value.Int(5))
	s75 := state(value.Int(7), value.Int(5))
	cases := []struct {
		action string
		from   eval.State
		want   []string
		raw    int // successors generated, duplicates included; 0 means len(want)
	}{
		// The first x' = e assigns, the second tests.
		{"AssignThenTest", s15, []string{"x=2 y=5"}, 0},
		{"AssignThenTestFails", s15, nil, 0},
		// x' \in S enumerates.
		{"InSet", s15, []string{"x=1 y=5", "x=2 y=5", "x=3 y=5"}, 0},
		// Once assigned, x' is an ordinary value in later conjuncts.
		{"InSetFilter", s15, []string{"x=4 y=4", "x=5 y=5"}, 0},
		{"TestBeforeAssign", s15, []string{"x=2 y=4"}, 0},
		// Disjunctions branch; TLC counts the duplicate successor.
		{"Branch", s15, []string{"x=0 y=5", "x=1 y=5"}, 3},
		// \E branches, also over tuple patterns; over {} it is false.
		{"Exists", s15, []string{"x=1 y=1", "x=2 y=4", "x=3 y=9"}, 0},
		{"ExistsTuple", s15, []string{"x=1 y=3", "x=2 y=3"}, 0},
		{"ExistsEmpty", s15, nil, 0},
		// UNCHANGED of a tuple, of a definition, of one variable; after an
		// assignment it tests.
		{"UnchangedTuple", s15, []string{"x=1 y=5"}, 0},
		{"UnchangedVars", s15, []string{"x=1 y=5"}, 0},
		{"UnchangedOne", s15, []string{"x=5 y=5"}, 0},
		{"UnchangedAfterAssign", s15, []string{"x=1 y=5"}, 0},
		{"UnchangedConflict", s15, nil, 0},
		// IF and CASE choose the branch by the current state.
		{"IfAction", s05, []string{"x=1 y=5"}, 0},
		{"IfAction", s15, []string{"x=1 y=5"}, 0},
		{"CaseAction", s05, []string{"x=10 y=0"}, 0},
		{"CaseAction", s15, []string{"x=11 y=1"}, 0},
		{"CaseAction", s75, []string{"x=7 y=5"}, 0},
		{"ForallConj", s15, []string{"x=3 y=5", "x=4 y=5", "x=5 y=5"}, 0},
		{"ForallAssign", s15, []string{"x=3 y=30"}, 0},
		{"ForallEmpty", s15, []string{"x=9 y=5"}, 0},
		{"ImpliesAssign", s15, []string{"x=7 y=5"}, 0},
		{"ImpliesAssign", s05, []string{"x=7 y=5", "x=8 y=5"}, 0},
		{"LetAction", s15, []string{"x=2 y=2"}, 0},
		{"SetNext", s15, []string{"x=1 y=5", "x=2 y=5"}, 0},
		// [A]_v allows stuttering; <<A>>_v requires v to change.
		{"BoxInc", s15, []string{"x=1 y=5", "x=2 y=5"}, 0},
		{"AngleInc", s15, []string{"x=2 y=5"}, 0},
		{"AngleStutter", s15, nil, 0},
		{"AngleOther", s15, nil, 0},
		{"Guarded", s15, nil, 0},
		// The instance's CNext with c <- x and Limit <- 2.
		{"InstNext", state(value.Int(2), value.Int(1)), []string{"x=2 y=2"}, 0},
		{"InstNext", state(value.Int(1), value.Int(3)), []string{"x=2 y=3"}, 0},
		{"CPNext", s05, []string{"x=1 y=5"}, 0},
		{"CPNext", s15, nil, 0},
		{"CPNext3", s15, []string{"x=2 y=3"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.action+"/"+show(sp, tc.from), func(t *testing.T) {
			got, n, err := successors(t, sp, tc.action, tc.from)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			raw := tc.raw
			if raw == 0 {
				raw = len(tc.want)
			}
			assert.Equal(t, raw, n, "successors generated")
		})
	}
}

// TestNextLabels checks that a successor is attributed to the definition
// (with its arguments) that produced it.
func TestNextLabels(t *testing.T) {
	sp := actionsSpec(t)
	var got []string
	err := sp.Next(formula(t, sp, "SetNext"), state(value.Int(1), value.Int(5)), func(s eval.State, a *eval.Action) {
		got = append(got, a.String()+" -> "+show(sp, s))
	})
	require.NoError(t, err)
	slices.Sort(got)
	assert.Equal(t, []string{"Set(1) -> x=1 y=5", "Set(2) -> x=2 y=5"}, got)
}

// TestReachableThroughInstance explores InstInit /\ [][InstNext]_vars:
// x counts to 2 through C!CNext, y to 3 through the unnamed instance, so
// all 3 * 4 = 12 pairs are reachable.
func TestReachableThroughInstance(t *testing.T) {
	sp := actionsSpec(t)
	next := formula(t, sp, "InstNext")
	seen := map[string]bool{}
	var queue []eval.State
	err := sp.Init([]*eval.Formula{formula(t, sp, "InstInit")}, func(s eval.State) {
		seen[show(sp, s)] = true
		queue = append(queue, s)
	})
	require.NoError(t, err)
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		require.NoError(t, sp.Next(next, s, func(t eval.State, _ *eval.Action) {
			if k := show(sp, t); !seen[k] {
				seen[k] = true
				queue = append(queue, t)
			}
		}))
	}
	assert.Len(t, seen, 12)
	assert.True(t, seen["x=2 y=3"])
	assert.False(t, seen["x=3 y=0"])
}

func TestActionErrors(t *testing.T) {
	sp := actionsSpec(t)
	s := state(value.Int(1), value.Int(5))
	cases := []struct {
		name string
		init bool
		msg  string
	}{
		{"InitMissing", true, "does not assign variable y"},
		{"InitUseBefore", true, "x is used before it is assigned"},
		{"Missing", false, "does not assign y'"},
		{"UnchangedThenMissing", false, "does not assign y'"},
		{"PrimeBefore", false, "x' is used before it is assigned"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.init {
				_, err = initStates(t, sp, tc.name)
			} else {
				_, _, err = successors(t, sp, tc.name, s)
			}
			require.Error(t, err)
			var te *tla.Error
			require.True(t, errors.As(err, &te), "error %v is not a *tla.Error", err)
			assert.True(t, te.Pos.IsValid(), "error %v has no position", err)
			assert.Equal(t, "Actions.tla", te.File)
			assert.Contains(t, te.Msg, tc.msg)
		})
	}
}

func TestEnabled(t *testing.T) {
	sp := actionsSpec(t)
	s := state(value.Int(1), value.Int(5))
	cases := []struct {
		expr string
		want bool
	}{
		{"EnabledGuarded", false},
		{"EnabledInc", true},
		{"EnabledNeedsY", true},
		{"ENABLED (x' = x /\\ y' = y /\\ x' # x)", false},
		{"ENABLED AngleInc", true},
		{"ENABLED AngleStutter", false},
		{"ENABLED (\\E k \\in 1..3 : x' = k /\\ y' = k /\\ k > 2)", true},
		{"ENABLED (\\E k \\in 1..3 : x' = k /\\ y' = k /\\ k > 3)", false},
		{"ENABLED Guarded \\/ ENABLED Inc", true},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			f, err := sp.Formula(tc.expr)
			if err != nil {
				f, err = sp.ParseFormula(tc.expr)
				require.NoError(t, err)
			}
			got, err := sp.Holds(f, s)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	// The API form: ENABLED of a named action.
	en, err := sp.Enabled(formula(t, sp, "Inc"), s)
	require.NoError(t, err)
	assert.True(t, en)
	en, err = sp.Enabled(formula(t, sp, "Guarded"), s)
	require.NoError(t, err)
	assert.False(t, en)
}

func TestHoldsStep(t *testing.T) {
	sp := actionsSpec(t)
	s := state(value.Int(1), value.Int(5))
	inc := state(value.Int(2), value.Int(5))
	jump := state(value.Int(3), value.Int(5))
	cases := []struct {
		action string
		to     eval.State
		want   bool
	}{
		{"Inc", inc, true},
		{"Inc", jump, false},
		{"BoxInc", inc, true},
		{"BoxInc", s, true}, // stuttering
		{"BoxInc", jump, false},
		{"AngleInc", inc, true},
		{"AngleInc", s, false},
		{"UnchangedVars", s, true},
		{"UnchangedVars", inc, false},
	}
	for _, tc := range cases {
		t.Run(tc.action+"/"+show(sp, tc.to), func(t *testing.T) {
			got, err := sp.HoldsStep(formula(t, sp, tc.action), s, tc.to)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestInstanceTemporal decomposes C!CSpec, a specification defined in an
// instantiated module: CInit /\ [][CNext]_c with c <- x.
func TestInstanceTemporal(t *testing.T) {
	sp := actionsSpec(t)
	tf, err := sp.Temporal(formula(t, sp, "InstSpecX"))
	require.NoError(t, err)
	require.Equal(t, eval.TAnd, tf.Op, "%s", tf)
	require.Len(t, tf.Args, 2)
	init, box := tf.Args[0], tf.Args[1]
	require.Equal(t, eval.TAtom, init.Op)
	require.Equal(t, eval.TAlways, box.Op)
	require.NotNil(t, box.Args[0].Box)
	s := state(value.Int(0), value.Int(7))
	ok, err := sp.Holds(init.Atom, s)
	require.NoError(t, err)
	assert.True(t, ok, "CInit with c <- x holds where x = 0")
	// [CNext]_c on x: 0 -> 1 is a CNext step, 0 -> 2 is not, 0 -> 0 stutters.
	for _, tc := range []struct {
		to   int
		want bool
	}{{1, true}, {2, false}, {0, true}} {
		ok, err := sp.HoldsStep(box.Args[0].Atom, s, state(value.Int(int64(tc.to)), value.Int(7)))
		require.NoError(t, err)
		assert.Equal(t, tc.want, ok, "x: 0 -> %d", tc.to)
	}
}

// TestBindings checks how a model binds constants: by value, by another
// definition (<- in a cfg), and the errors for names it cannot bind.
func TestBindings(t *testing.T) {
	mods, err := tla.Load(os.DirFS("testdata"), "EvalTest")
	require.NoError(t, err)
	info, err := tla.Resolve(mods)
	require.NoError(t, err)
	procs := eval.Binding{Name: "Procs", Value: modelValues("p1")}
	big := eval.Binding{Name: "Big", Value: value.Int(1)}
	// N <- r: N is replaced by the definition r (a record).
	sp, err := eval.NewSpec(info, []eval.Binding{{Name: "N", Subst: "r"}, procs, big})
	require.NoError(t, err)
	f, err := sp.ParseFormula("N.val")
	require.NoError(t, err)
	v, err := sp.Eval(f, nil)
	require.NoError(t, err)
	assert.Equal(t, "1", value.Format(v))
	// A constant left unbound is an error when it is used.
	sp, err = eval.NewSpec(info, []eval.Binding{procs, big})
	require.NoError(t, err)
	f, err = sp.ParseFormula("N + 1")
	require.NoError(t, err)
	_, err = sp.Eval(f, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "constant N has no value")
	// Binding a name the module does not have, or substituting a name
	// that is not a definition, is an error at NewSpec.
	_, err = eval.NewSpec(info, []eval.Binding{{Name: "Nope", Value: value.Int(1)}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Nope")
	_, err = eval.NewSpec(info, []eval.Binding{{Name: "N", Subst: "Nope"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Nope is not a definition")
	// A variable cannot be bound.
	amods, err := tla.Load(os.DirFS("testdata"), "Actions")
	require.NoError(t, err)
	ainfo, err := tla.Resolve(amods)
	require.NoError(t, err)
	_, err = eval.NewSpec(ainfo, []eval.Binding{{Name: "x", Value: value.Int(1)}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "variable")
}
