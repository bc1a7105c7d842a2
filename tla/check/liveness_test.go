package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/internal/sharedpath"
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// checkWith copies the .tla files of srcDir into a temporary directory,
// writes conf there as test.cfg and checks module under it. Shared models
// are read in place and only copied for the duration of the test.
func checkWith(t *testing.T, srcDir, module, conf string) (*Model, *Result) {
	t.Helper()
	dir := t.TempDir()
	tlas, err := filepath.Glob(filepath.Join(srcDir, "*.tla"))
	require.NoError(t, err)
	require.NotEmpty(t, tlas, "no .tla files in %s", srcDir)
	for _, p := range tlas {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(p)), data, 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test.cfg"), []byte(conf), 0o644))
	m := loadModel(t, dir, module, "test.cfg")
	r := Check(context.Background(), m, Options{Workers: 2})
	require.NoError(t, r.Err)
	return m, r
}

// lasso evaluates temporal formulas on an ultimately periodic behaviour:
// the states of a counterexample, where the last state is followed by
// states[loop]. It is deliberately independent of the checker's tableau:
// it evaluates the formula directly on the lasso.
type lasso struct {
	t      *testing.T
	sp     *eval.Spec
	states []eval.State
	loop   int
}

// next is the position after i.
func (l *lasso) next(i int) int {
	if i+1 < len(l.states) {
		return i + 1
	}
	return l.loop
}

// future is where the positions reachable from i start: from i on, and
// the whole cycle.
func (l *lasso) future(i int) int { return min(i, l.loop) }

// angleStep reports whether the step from position i is an <<A>>_sub step.
func (l *lasso) angleStep(a, sub *eval.Formula, i int) bool {
	s, u := l.states[i], l.states[l.next(i)]
	ok, err := l.sp.HoldsStep(a, s, u)
	require.NoError(l.t, err)
	if !ok {
		return false
	}
	before, err := l.sp.Eval(sub, s)
	require.NoError(l.t, err)
	after, err := l.sp.Eval(sub, u)
	require.NoError(l.t, err)
	return !value.Equal(before, after)
}

// eval returns the truth of f at every position of the lasso.
func (l *lasso) eval(f *eval.Temporal) []bool {
	n := len(l.states)
	out := make([]bool, n)
	switch f.Op {
	case eval.TAtom:
		for i := range out {
			var ok bool
			var err error
			if f.Action {
				ok, err = l.sp.HoldsStep(f.Atom, l.states[i], l.states[l.next(i)])
			} else {
				ok, err = l.sp.Holds(f.Atom, l.states[i])
			}
			require.NoError(l.t, err, "atom %s", f.Atom)
			out[i] = ok
		}
	case eval.TAnd, eval.TOr:
		for i := range out {
			out[i] = f.Op == eval.TAnd
		}
		for _, a := range f.Args {
			sub := l.eval(a)
			for i := range out {
				if f.Op == eval.TAnd {
					out[i] = out[i] && sub[i]
				} else {
					out[i] = out[i] || sub[i]
				}
			}
		}
	case eval.TNot:
		sub := l.eval(f.Args[0])
		for i := range out {
			out[i] = !sub[i]
		}
	case eval.TAlways, eval.TEventually:
		sub := l.eval(f.Args[0])
		for i := range out {
			out[i] = f.Op == eval.TAlways
			for j := l.future(i); j < n; j++ {
				if sub[j] != out[i] {
					out[i] = sub[j]
					break
				}
			}
		}
	case eval.TLeadsTo:
		// P ~> Q == [](P => <>Q)
		return l.eval(&eval.Temporal{Op: eval.TAlways, Args: []*eval.Temporal{{Op: eval.TOr, Args: []*eval.Temporal{
			{Op: eval.TNot, Args: []*eval.Temporal{f.Args[0]}},
			{Op: eval.TEventually, Args: []*eval.Temporal{f.Args[1]}},
		}}}})
	case eval.TWeakFair, eval.TStrongFair:
		// WF: <>[]ENABLED <<A>>_v => []<><<A>>_v; SF: []<>ENABLED ... On a
		// lasso only the cycle matters.
		enabledAll, enabledSome, taken := true, false, false
		for j := l.loop; j < n; j++ {
			en, err := l.sp.EnabledAngle(f.Fair, f.Sub, l.states[j])
			require.NoError(l.t, err)
			enabledAll = enabledAll && en
			enabledSome = enabledSome || en
			taken = taken || l.angleStep(f.Fair, f.Sub, j)
		}
		fair := taken || !enabledAll
		if f.Op == eval.TStrongFair {
			fair = taken || !enabledSome
		}
		for i := range out {
			out[i] = fair
		}
	default:
		l.t.Fatalf("unexpected temporal operator %v", f.Op)
	}
	return out
}

// requireBehaviour checks that trace (with the cycle from loop back, if
// loop >= 0) is a behaviour of the model's Init /\ [][Next]_vars: it
// starts in an initial state and every step is a Next step or stutters.
func requireBehaviour(t *testing.T, m *Model, trace []Step, loop int) {
	t.Helper()
	require.NotEmpty(t, trace)
	sp := m.Spec
	for _, f := range m.Init {
		ok, err := sp.Holds(f, trace[0].State)
		require.NoError(t, err)
		require.True(t, ok, "the first state of the trace does not satisfy %s:\n%s", f, sp.Format(trace[0].State))
	}
	step := func(s, u eval.State) bool {
		stutter := false
		if m.Vars != nil {
			a, err := sp.Eval(m.Vars, s)
			require.NoError(t, err)
			b, err := sp.Eval(m.Vars, u)
			require.NoError(t, err)
			stutter = value.Equal(a, b)
		} else {
			stutter = value.Equal(value.NewTuple(s...), value.NewTuple(u...))
		}
		if stutter {
			return true
		}
		ok, err := sp.HoldsStep(m.Next, s, u)
		require.NoError(t, err)
		return ok
	}
	for i := 1; i < len(trace); i++ {
		require.True(t, step(trace[i-1].State, trace[i].State), "step %d -> %d is not a Next step:\n%s\n--\n%s",
			i-1, i, sp.Format(trace[i-1].State), sp.Format(trace[i].State))
	}
	if loop >= 0 {
		last := trace[len(trace)-1].State
		require.True(t, step(last, trace[loop].State), "the last state does not step back to state %d:\n%s\n--\n%s",
			loop, sp.Format(last), sp.Format(trace[loop].State))
	}
}

// requireFairCounterexample checks that r's lasso is a fair behaviour of
// the model that violates the property named prop.
func requireFairCounterexample(t *testing.T, m *Model, r *Result, prop string) {
	t.Helper()
	require.Equal(t, Violation, r.Outcome)
	require.Equal(t, prop, r.Violated)
	require.GreaterOrEqual(t, r.LoopStart, 0, "a liveness counterexample is a lasso")
	require.Less(t, r.LoopStart, len(r.Trace))
	requireBehaviour(t, m, r.Trace, r.LoopStart)
	l := newLasso(t, m, r.Trace, r.LoopStart)
	for _, f := range m.Fairness {
		assert.True(t, l.eval(f)[0], "the counterexample violates the fairness condition %s", f)
	}
	assert.False(t, l.eval(property(t, m, prop))[0], "the counterexample satisfies %s", prop)
}

// requireSafetyCounterexample checks that r's finite trace refutes the
// safety property prop: every extension of it violates prop, among them
// stuttering forever in its last state. Fairness does not matter here.
func requireSafetyCounterexample(t *testing.T, m *Model, r *Result, prop string) {
	t.Helper()
	require.Equal(t, Violation, r.Outcome)
	require.Equal(t, prop, r.Violated)
	require.Equal(t, -1, r.LoopStart, "TLC reports a finite trace for a safety property")
	requireBehaviour(t, m, r.Trace, -1)
	l := newLasso(t, m, r.Trace, len(r.Trace)-1)
	assert.False(t, l.eval(property(t, m, prop))[0], "the trace satisfies %s", prop)
}

func newLasso(t *testing.T, m *Model, trace []Step, loop int) *lasso {
	l := &lasso{t: t, sp: m.Spec, loop: loop}
	for _, s := range trace {
		l.states = append(l.states, s.State)
	}
	return l
}

func property(t *testing.T, m *Model, name string) *eval.Temporal {
	for _, p := range m.Properties {
		if p.Name == name {
			return p.Temporal
		}
	}
	t.Fatalf("no property %s in the model", name)
	return nil
}

type propertyCase struct {
	name     string
	module   string
	conf     string
	violated string // "" when every property holds
	safety   bool   // violated is a safety property: expect a finite trace
	anyShape bool   // accept a finite trace or a lasso
	distinct int64
	shared   string // subdirectory of ../shared/tla-examples; "" for testdata
}

func runPropertyCases(t *testing.T, cases []propertyCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := "testdata"
			if tc.shared != "" {
				src = filepath.Join(sharedpath.Require(t, "tla-examples"), tc.shared)
			}
			m, r := checkWith(t, src, tc.module, tc.conf)
			if tc.distinct > 0 {
				assert.Equal(t, tc.distinct, r.Distinct, "distinct states")
			}
			if tc.violated == "" {
				assert.Equal(t, OK, r.Outcome, "violated %s", r.Violated)
				return
			}
			if tc.safety || tc.anyShape && r.LoopStart < 0 {
				requireSafetyCounterexample(t, m, r, tc.violated)
				return
			}
			requireFairCounterexample(t, m, r, tc.violated)
		})
	}
}

// mcRealTime is MCRealTimeHourClock.cfg without its PROPERTY line.
const mcRealTime = "CONSTANTS Rho = 1\n MaxReal = 5\n SecondsPerHour = 2\nINIT BigInit\nNEXT BigNext\n"

// TestLivenessShared checks temporal properties of the shared example
// models where TLC finds them violated (and a few where it does not).
func TestLivenessShared(t *testing.T) {
	runPropertyCases(t, []propertyCase{
		// The comments of EWD840.tla: FalseLiveness does not hold (nodes
		// can wake each other up); AllNodesTerminateIfNoMessages fails
		// under Spec (only System is fair) and holds under SpecWFNext.
		{name: "EWD840/FalseLiveness", shared: "ewd840--EWD840", module: "EWD840",
			conf:     "CONSTANTS N = 3\nSPECIFICATION Spec\nCHECK_DEADLOCK FALSE\nPROPERTY FalseLiveness\n",
			violated: "FalseLiveness", distinct: 302},
		{name: "EWD840/AllNodesTerminateIfNoMessages/Spec", shared: "ewd840--EWD840", module: "EWD840",
			conf:     "CONSTANTS N = 3\nSPECIFICATION Spec\nCHECK_DEADLOCK FALSE\nPROPERTY AllNodesTerminateIfNoMessages\n",
			violated: "AllNodesTerminateIfNoMessages", distinct: 302},
		{name: "EWD840/AllNodesTerminateIfNoMessages/SpecWFNext", shared: "ewd840--EWD840", module: "EWD840",
			conf:     "CONSTANTS N = 3\nSPECIFICATION SpecWFNext\nCHECK_DEADLOCK FALSE\nPROPERTY AllNodesTerminateIfNoMessages\n",
			distinct: 302},
		{name: "EWD840/Liveness/SpecWFNext", shared: "ewd840--EWD840", module: "EWD840",
			conf:     "CONSTANTS N = 3\nSPECIFICATION SpecWFNext\nCHECK_DEADLOCK FALSE\nPROPERTY Liveness\n",
			distinct: 302},
		// HC has no fairness: the clock may stop, so neither AlwaysTick nor
		// AllTimes holds (the counterexample stutters forever); the safety
		// property TypeInvariance still holds.
		{name: "LiveHourClock/HC/AlwaysTick", shared: "SpecifyingSystems-Liveness--LiveHourClock", module: "LiveHourClock",
			conf: "SPECIFICATION HC\nPROPERTY AlwaysTick\n", violated: "AlwaysTick", distinct: 12},
		{name: "LiveHourClock/HC/AllTimes", shared: "SpecifyingSystems-Liveness--LiveHourClock", module: "LiveHourClock",
			conf: "SPECIFICATION HC\nPROPERTY AllTimes\n", violated: "AllTimes", distinct: 12},
		{name: "LiveHourClock/HC/TypeInvariance", shared: "SpecifyingSystems-Liveness--LiveHourClock", module: "LiveHourClock",
			conf: "SPECIFICATION HC\nPROPERTY TypeInvariance\n", distinct: 12},
		// SimpleAllocator.tla: under SimpleAllocator2 (clients need return
		// resources only once their request is satisfied)
		// ClientsWillReturn holds, ClientsWillObtain and
		// InfOftenSatisfied do not.
		{name: "SimpleAllocator2/ClientsWillReturn", shared: "allocator--SimpleAllocator", module: "SimpleAllocator",
			conf:     "CONSTANTS Clients = {c1, c2, c3}\n Resources = {r1, r2}\nSPECIFICATION SimpleAllocator2\nPROPERTY ClientsWillReturn\n",
			distinct: 400},
		{name: "SimpleAllocator2/ClientsWillObtain", shared: "allocator--SimpleAllocator", module: "SimpleAllocator",
			conf:     "CONSTANTS Clients = {c1, c2, c3}\n Resources = {r1, r2}\nSPECIFICATION SimpleAllocator2\nPROPERTY ClientsWillObtain\n",
			violated: "ClientsWillObtain", distinct: 400},
		{name: "SimpleAllocator2/InfOftenSatisfied", shared: "allocator--SimpleAllocator", module: "SimpleAllocator",
			conf:     "CONSTANTS Clients = {c1, c2, c3}\n Resources = {r1, r2}\nSPECIFICATION SimpleAllocator2\nPROPERTY InfOftenSatisfied\n",
			violated: "InfOftenSatisfied", distinct: 400},
		// The manifest's liveness failure, with its own cfg: ErrorTemporal
		// fails (TLC finds a lasso); NonZeno and ImpliedTemporal fail too,
		// since INIT/NEXT has no fairness and time may stop.
		{name: "MCRealTimeHourClock/ErrorTemporal", shared: "SpecifyingSystems-RealTime--MCRealTimeHourClock", module: "MCRealTimeHourClock",
			conf: mcRealTime + "PROPERTY ErrorTemporal\n", violated: "ErrorTemporal"},
		{name: "MCRealTimeHourClock/NonZeno", shared: "SpecifyingSystems-RealTime--MCRealTimeHourClock", module: "MCRealTimeHourClock",
			conf: mcRealTime + "PROPERTY NonZeno\n", violated: "NonZeno"},
		{name: "MCRealTimeHourClock/ImpliedTemporal", shared: "SpecifyingSystems-RealTime--MCRealTimeHourClock", module: "MCRealTimeHourClock",
			conf: mcRealTime + "PROPERTY ImpliedTemporal\n", violated: "ImpliedTemporal"},
		// Without the fairness of Spec (INIT/NEXT has none) a philosopher
		// may starve.
		{name: "DiningPhilosophers/NoFairness", shared: "DiningPhilosophers--DiningPhilosophers", module: "DiningPhilosophers",
			conf:     "CONSTANT NP = 5\nINIT Init\nNEXT Next\nPROPERTY NobodyStarves\n",
			violated: "NobodyStarves", distinct: 67},
	})
}

// fairConf is the configuration of testdata/Fair.tla under spec with one
// property.
func fairConf(spec, prop string) string {
	return "SPECIFICATION " + spec + "\nPROPERTY " + prop + "\n"
}

// TestLivenessOwn checks the hand-made Fair.tla, Deadlock.tla and
// Refine.tla, whose expected verdicts and state counts are derived in
// their header comments.
func TestLivenessOwn(t *testing.T) {
	var cases []propertyCase
	add := func(spec, prop string, holds bool) {
		tc := propertyCase{name: spec + "/" + prop, module: "Fair", conf: fairConf(spec, prop), distinct: 4}
		if !holds {
			tc.violated = prop
		}
		cases = append(cases, tc)
	}
	// WF vs SF: B is enabled only intermittently.
	add("SpecWF", "EventuallyDone", false)
	add("SpecSF", "EventuallyDone", true)
	add("SpecWF", "DoneForever", false) // <>[]P
	add("SpecSF", "DoneForever", true)
	add("SpecWF", "OneLeadsToDone", false) // P ~> Q
	add("SpecSF", "OneLeadsToDone", true)
	add("SpecNoFair", "InfOftenOne", false) // []<>P
	add("SpecWF", "InfOftenOne", true)
	add("SpecSF", "InfOftenOne", true)
	add("SpecWF", "EventuallyAlwaysZero", false)
	add("SpecSF", "DoneStays", true) // [][A]_v that holds
	// Fairness of an action that can only stutter is no fairness.
	add("SpecIdle", "EventuallyDone", false)
	add("SpecIdle", "InfOftenOne", false)
	// Quantifiers over temporal formulas, ENABLED inside a property.
	add("SpecNoFair", "DoneSettles", true)
	add("SpecWF", "DoneSettles", true)
	add("SpecWF", "XSettles", false)
	add("SpecWF", "XVisitsAll", false)
	add("SpecSF", "XVisitsAll", false)
	add("SpecWF", "XVisitsBoth", true)
	add("SpecNoFair", "XChanges", false)
	add("SpecWF", "XChanges", true)
	add("SpecNoFair", "BOftenEnabled", false)
	add("SpecWF", "BOftenEnabled", true)
	// B fires only if SF forces it; x stops only without fairness.
	add("SpecWF", "BHappens", false)
	add("SpecSF", "BHappens", true)
	add("SpecWF", "NotStuckAtZero", true)
	add("SpecNoFair", "NotStuckAtZero", false)
	add("SpecWF", "DoneThenTicks", true)
	add("SpecNoFair", "DoneThenTicks", false)
	add("SpecNoFair", "DoneSettlesStep", true)
	add("SpecSF", "DoneAndTicks", true)
	add("SpecWF", "DoneAndTicks", false)
	// Deadlock.tla: terminal states stutter forever.
	for _, c := range []struct {
		spec, prop              string
		holds, safety, anyShape bool
	}{
		{"Spec", "Reaches3", false, false, false},
		{"FairSpec", "Reaches3", true, false, false},
		{"FairSpec", "Stays3", true, false, false},
		{"FairSpec", "InfOften3", true, false, false},
		{"FairSpec", "AlwaysBelow3", false, true, false},
		// A property without temporal operators is a condition on the
		// initial states: TLC checks it as each initial state is
		// generated and stops at the first that violates it, with that
		// state as the trace.
		{"Spec", "StartsAtZero", true, false, false},
		{"Spec", "StartsAtOne", false, true, false},
	} {
		distinct := int64(4)
		if c.prop == "StartsAtOne" {
			distinct = 1 // stopped at the violating initial state
		}
		tc := propertyCase{name: "Deadlock/" + c.spec + "/" + c.prop, module: "Deadlock", distinct: distinct, safety: c.safety, anyShape: c.anyShape,
			conf: "SPECIFICATION " + c.spec + "\nPROPERTY " + c.prop + "\nCHECK_DEADLOCK FALSE\n"}
		if !c.holds {
			tc.violated = c.prop
		}
		cases = append(cases, tc)
	}
	// Constraints cut the explored graph, not the spec: at x = 1 Next is
	// still enabled (x' = 2), so stuttering there forever violates
	// WF_x(Next). No fair behaviour stays below 2, and none violates
	// Reaches3 (TLC evaluates ENABLED on the spec, not on the graph).
	for _, c := range []string{"CONSTRAINT Below2", "ACTION_CONSTRAINT StepBelow2"} {
		cases = append(cases, propertyCase{name: "Deadlock/FairSpec/Reaches3/" + c, module: "Deadlock", distinct: 2,
			conf: "SPECIFICATION FairSpec\nPROPERTY Reaches3\n" + c + "\n"})
	}
	// Refine.tla: properties defined in an instantiated module.
	for _, c := range []struct {
		spec, prop string
		holds      bool
	}{
		{"SpecUp", "CountsUp", true},
		{"Spec", "CountsUp", false},
		{"SpecUpFair", "TopReached", true},
		{"SpecUp", "TopReached", false},
	} {
		tc := propertyCase{name: "Refine/" + c.spec + "/" + c.prop, module: "Refine", distinct: 4, anyShape: true,
			conf: "SPECIFICATION " + c.spec + "\nPROPERTY " + c.prop + "\nCHECK_DEADLOCK FALSE\n"}
		if !c.holds {
			tc.violated = c.prop
		}
		cases = append(cases, tc)
	}
	runPropertyCases(t, cases)
}

// TestConjunctiveSafetyShape: TLC splits a property into its conjuncts and
// checks Init-level and [][A]_v conjuncts while exploring, so a refinement
// property like C!CSpec (CInit /\ [][CNext]_c) that a step violates gets
// the shortest finite trace, here 0, 1, 2, 3, 0 with no loop.
func TestConjunctiveSafetyShape(t *testing.T) {
	m, r := checkWith(t, "testdata", "Refine", "SPECIFICATION Spec\nPROPERTY CountsUp\nCHECK_DEADLOCK FALSE\n")
	requireSafetyCounterexample(t, m, r, "CountsUp")
	var got []string
	for _, s := range r.Trace {
		got = append(got, value.Format(s.State[0]))
	}
	assert.Equal(t, "0 1 2 3 0", strings.Join(got, " "))
}

// TestInvariantBeforeDeadlock: TLC checks a new state's invariants as it
// generates it, and a state for deadlock when it takes it from its queue.
// In Order.tla the violation of NotThree (found expanding 1) comes before
// the deadlock of 2, which is queued after 1.
func TestInvariantBeforeDeadlock(t *testing.T) {
	m, r := checkWith(t, "testdata", "Order", "INIT Init\nNEXT Next\nINVARIANT NotThree\n")
	require.Equal(t, Invariant, r.Outcome, "violated %q", r.Violated)
	assert.Equal(t, "NotThree", r.Violated)
	requireBehaviour(t, m, r.Trace, -1)
	var got []string
	for _, s := range r.Trace {
		got = append(got, value.Format(s.State[0]))
	}
	assert.Equal(t, "0 1 3", strings.Join(got, " "))
}

// TestActionProperty checks a [][A]_v property that a step violates (x
// goes from 1 back to 0). Whatever its shape, the counterexample must be a
// behaviour of the spec containing a violating step.
func TestActionProperty(t *testing.T) {
	m, r := checkWith(t, "testdata", "Fair", fairConf("SpecWF", "NeverDecrease"))
	require.Equal(t, Violation, r.Outcome)
	require.Equal(t, "NeverDecrease", r.Violated)
	require.GreaterOrEqual(t, len(r.Trace), 2)
	if r.LoopStart >= 0 {
		requireFairCounterexample(t, m, r, "NeverDecrease")
	} else {
		requireSafetyCounterexample(t, m, r, "NeverDecrease")
	}
	t.Run("shortest", func(t *testing.T) {
		// TLC checks [][A]_v while it explores and reports the shortest
		// trace to a violating step, with no loop: (0,F) -> (1,F) -> (0,F).
		var lines []string
		for _, s := range r.Trace {
			lines = append(lines, m.Spec.Format(s.State))
		}
		assert.Equal(t, -1, r.LoopStart)
		assert.Equal(t, []string{
			"/\\ x = 0\n/\\ done = FALSE",
			"/\\ x = 1\n/\\ done = FALSE",
			"/\\ x = 0\n/\\ done = FALSE",
		}, lines)
	})
}

// TestSafetyFeatures checks deadlock detection, state and action
// constraints, symmetry and VIEW on the hand-made specs of testdata, whose
// state counts are derived in their header comments.
func TestSafetyFeatures(t *testing.T) {
	cases := []struct {
		name     string
		module   string
		conf     string
		outcome  Outcome
		violated string
		distinct int64  // 0: not checked
		trace    string // the x (or active) values of the trace, "" if none
		// generated counts every successor computed, also those outside
		// the constraints (as TLC does): 0 means not checked.
		generated int64
	}{
		{"deadlock", "Deadlock", "INIT Init\nNEXT Next\n", Deadlock, "", 0, "0 1 2 3", 0},
		{"deadlock under stuttering", "Deadlock", "SPECIFICATION Spec\n", Deadlock, "", 0, "0 1 2 3", 0},
		// Without the invariant, the deadlock of 2; with deadlock checking
		// off, the violation (see TestInvariantBeforeDeadlock for both).
		{"deadlock at depth 1", "Order", "INIT Init\nNEXT Next\n", Deadlock, "", 0, "0 2", 0},
		{"invariant at depth 2", "Order", "INIT Init\nNEXT Next\nINVARIANT NotThree\nCHECK_DEADLOCK FALSE\n", Invariant, "NotThree", 0, "0 1 3", 0},
		{"no deadlock check", "Deadlock", "INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n", OK, "", 4, "", 4},
		{"no deadlock outside constraint", "Deadlock", "INIT Init\nNEXT Next\nCONSTRAINT Below2\n", OK, "", 2, "", 3},
		{"no deadlock outside action constraint", "Deadlock", "INIT Init\nNEXT Next\nACTION_CONSTRAINT StepBelow2\n", OK, "", 2, "", 3},
		{"constraint", "Constrained", "INIT Init\nNEXT Next\nCONSTRAINT XBound\nINVARIANT TypeOK\n", OK, "", 6, "", 13},
		{"action constraint", "Constrained",
			"INIT Init\nNEXT Next\nCONSTRAINT XBound\nACTION_CONSTRAINT OnlyZeroHasY\nINVARIANT TypeOK\n", OK, "", 4, "", 9},
		{"no symmetry", "Sym", "CONSTANT Procs = {a, b, c}\nINIT Init\nNEXT Next\n", OK, "", 8, "", 25},
		{"symmetry", "Sym", "CONSTANT Procs = {a, b, c}\nINIT Init\nNEXT Next\nSYMMETRY Perms\n", OK, "", 4, "", 13},
		// The shortest path to all three active: {} {a} {a, b} {a, b, c}
		// (up to the order in which processes join).
		{"symmetry invariant", "Sym", "CONSTANT Procs = {a, b, c}\nINIT Init\nNEXT Next\nSYMMETRY Perms\nINVARIANT NotAll\n",
			Invariant, "NotAll", 0, "0 1 2 3", 0},
		// NoneActive fails in the initial state: a trace of one state.
		{"invariant in initial state", "Sym", "CONSTANT Procs = {a, b, c}\nINIT Init\nNEXT Next\nINVARIANT NoneActive\n",
			Invariant, "NoneActive", 0, "0", 0},
		{"no symmetry, functions", "Leader", "CONSTANTS Procs = {a, b, c}\n None = None\nINIT Init\nNEXT Next\nINVARIANT LeaderBusy\n", OK, "", 20, "", 49},
		{"symmetry, functions", "Leader", "CONSTANTS Procs = {a, b, c}\n None = None\nINIT Init\nNEXT Next\nSYMMETRY Perms\nINVARIANT LeaderBusy\n", OK, "", 7, "", 19},
		{"no view", "View", "INIT Init\nNEXT Next\nCONSTRAINT StepBound\n", OK, "", 10, "", 11},
		{"view", "View", "INIT Init\nNEXT Next\nCONSTRAINT StepBound\nVIEW XOnly\n", OK, "", 3, "", 4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, r := checkWith(t, "testdata", tc.module, tc.conf)
			assert.Equal(t, tc.outcome, r.Outcome, "violated %s", r.Violated)
			assert.Equal(t, tc.violated, r.Violated)
			if tc.distinct > 0 {
				assert.Equal(t, tc.distinct, r.Distinct, "distinct states")
			}
			if tc.generated > 0 {
				assert.Equal(t, tc.generated, r.Generated, "states generated")
			}
			if tc.trace == "" {
				assert.Empty(t, r.Trace)
				return
			}
			requireBehaviour(t, m, r.Trace, -1)
			// The initial state has no action; every other step names one.
			assert.Nil(t, r.Trace[0].Action)
			for i, s := range r.Trace[1:] {
				if assert.NotNil(t, s.Action, "step %d", i+1) {
					assert.NotEmpty(t, s.Action.Name, "step %d", i+1)
				}
			}
			var got []string
			for _, s := range r.Trace {
				v := s.State[0]
				if set, ok := v.(value.SetValue); ok {
					n, err := set.Enumerate()
					require.NoError(t, err)
					v = value.Int(n.Len())
				}
				got = append(got, value.Format(v))
			}
			assert.Equal(t, tc.trace, strings.Join(got, " "))
		})
	}
}

// TestCounterexamplesDeterministic: the counterexample must not depend on
// the number of workers (outputs are compared and recorded).
func TestCounterexamplesDeterministic(t *testing.T) {
	cases := []struct{ src, module, conf string }{
		{"testdata", "Fair", fairConf("SpecWF", "EventuallyDone")},
		{"testdata", "Order", "INIT Init\nNEXT Next\nINVARIANT NotThree\n"},
		{"testdata", "Sym", "CONSTANT Procs = {a, b, c}\nINIT Init\nNEXT Next\nSYMMETRY Perms\nINVARIANT NotAll\n"},
		{"ewd840--EWD840", "EWD840", "CONSTANTS N = 3\nSPECIFICATION Spec\nCHECK_DEADLOCK FALSE\nPROPERTY FalseLiveness\n"},
		{"allocator--SimpleAllocator", "SimpleAllocator",
			"CONSTANTS Clients = {c1, c2, c3}\n Resources = {r1, r2}\nSPECIFICATION SimpleAllocator2\nPROPERTY ClientsWillObtain\n"},
	}
	for _, tc := range cases {
		t.Run(tc.module, func(t *testing.T) {
			src := tc.src
			if src != "testdata" {
				src = filepath.Join(sharedpath.Require(t, "tla-examples"), src)
			}
			m, r := checkWith(t, src, tc.module, tc.conf)
			require.NotEqual(t, OK, r.Outcome)
			r1 := Check(context.Background(), m, Options{Workers: 1})
			require.NoError(t, r1.Err)
			r4 := Check(context.Background(), m, Options{Workers: 4})
			require.NoError(t, r4.Err)
			show := func(r *Result) string {
				var b strings.Builder
				fmt.Fprintf(&b, "%s %s loop=%d\n", r.Outcome, r.Violated, r.LoopStart)
				for _, s := range r.Trace {
					b.WriteString(m.Spec.Format(s.State) + "\n")
				}
				return b.String()
			}
			assert.Equal(t, show(r1), show(r))
			assert.Equal(t, show(r1), show(r4))
		})
	}
}
