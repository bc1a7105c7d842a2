package conformance

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/commands"

	"github.com/roomspec/roomspec/conformance/tour"
	"github.com/roomspec/roomspec/spec/model"
)

// Options tune a property run.
type Options struct {
	// Seed makes the run reproducible (one worker).
	Seed int64
	// Cases is the number of generated cases that must pass (default 100).
	Cases int
	// MaxSteps is the longest generated sequence (default 30); gopter grows
	// the length from MinSteps to MaxSteps over the run.
	MaxSteps int
	// MinSteps is the shortest (default 5; negative means 0). gopter grows
	// lengths by (MaxSteps-MinSteps)/Cases per case, so with many cases
	// starting from 0 spends thousands of cases on sequences too short to
	// show anything: on fork-90a52f44a the median time to the first
	// counterexample over 20 seeds drops from ~190 ms to ~2 ms with 5.
	MinSteps int
	// Bound limits the fair round-robin rounds of the liveness property
	// (default DefaultBound).
	Bound int
	// NoTour skips the tour: only random cases run. By default the
	// implementation first walks every edge of the spec's reachable state
	// graph (package tour), then the random cases run.
	NoTour bool
	// MaxStates bounds the state graph explored for the tour, the
	// coverage and the weighting of random cases (default
	// tour.DefaultMaxStates); over it, only random cases run, uniformly
	// chosen, and the coverage says so.
	MaxStates int
	// ResetCost is what a reset of the implementation is worth in steps
	// when the tour weighs going on against starting over (default
	// tour.DefaultResetCost).
	ResetCost int
	// Crowd, if set, is a configuration of the same variant with several
	// requests: refinement also runs its crowded-queue cases (crowd.go),
	// after the tour.
	Crowd *model.Config
	// uniform chooses random steps uniformly among the enabled action
	// instances, as the suite did before it weighted them (tests compare).
	uniform bool
}

func (o Options) withDefaults() Options {
	if o.Cases <= 0 {
		o.Cases = 100
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = 30
	}
	o.MinSteps = max(o.MinSteps, 0)
	if o.Bound <= 0 {
		o.Bound = DefaultBound
	}
	if o.ResetCost <= 0 {
		o.ResetCost = tour.DefaultResetCost
	}
	if o.MaxStates <= 0 {
		o.MaxStates = tour.DefaultMaxStates
	}
	return o
}

// DefaultMinSteps is the shortest random case when the spec's graph is not
// known (MinSteps 0); with the graph, the shortest is long enough to reach
// every ending the graph has.
const DefaultMinSteps = 5

// run is one property run: the state the generated commands share.
type run struct {
	k        *checker
	cfg      *model.Config
	initial  *model.State
	property string
	cases    int
	rounds   int
	lastFail []model.Action
	specViol map[string]bool
	// invalid counts cases run with an action the spec does not enable
	// (gopter's shrinker must never produce one).
	invalid int
	// broken is the first failure to reset or observe the initial state:
	// the implementation cannot be checked (a child process died).
	broken error
	// graph is the spec's reachable state graph (nil over the bound),
	// cov what the run took of it, targets the endings random cases aim
	// at (nil without the graph or when it has no deadlock).
	graph     *tour.Graph
	cov       *tour.Coverage
	targets   *tour.Targets
	goalKinds []int
	resetCost int
	uniform   bool
	// random counts the random cases' outcomes until the first failure
	// (shrinking runs cases too, and they are not counted).
	outcomes RandomStats
}

// caseRun is the system under test of one generated case.
type caseRun struct {
	seq  []model.Action
	spec model.State // the spec's state after seq
	obs  model.State // the implementation's, observed
	node int32       // the spec graph's node of obs, -1: unknown
	// checked is how many steps of seq the liveness condition was last
	// checked after.
	checked int
	// diverged: the implementation took a successor of a nondeterministic
	// action other than the one the case was generated for.
	diverged bool
	failed   bool
	err      error
	out      outcome
}

// genState is the state of a generated case: the spec's state, its node
// in the graph (-1: none), the ending the case aims at (-1: none), and
// the steps left to generate.
type genState struct {
	s      model.State
	node   int32
	target int
	left   int
}

// stepCommand is one generated command: a spec action (or a stutter).
// last marks the last command of the case as generated.
type stepCommand struct {
	r       *run
	a       model.Action
	stutter bool
	last    bool
}

// stepResult is what running a command on the implementation gave.
type stepResult struct {
	msg string // failure, "" if none
}

func (r *run) newCase() *caseRun {
	r.cases++
	cr := &caseRun{spec: *r.initial, node: -1}
	if err := r.k.impl.Reset(r.cfg); err != nil {
		cr.err = fmt.Errorf("reset: %w", err)
		r.broken = cmp.Or(r.broken, cr.err)
		return cr
	}
	obs, err := r.k.impl.Observe()
	if err != nil {
		cr.err = fmt.Errorf("observe: %w", err)
		r.broken = cmp.Or(r.broken, cr.err)
		return cr
	}
	cr.obs = obs
	if r.property == Refinement {
		if m, _ := r.k.judge(nil, &obs, r.initial); m != "" {
			cr.err = fmt.Errorf("initial state: %s", m)
		}
	}
	if r.graph != nil && obs.Equal(r.initial) {
		cr.node, _ = r.graph.Node(&obs)
		r.cov.See(cr.node)
	}
	return cr
}

func (r *run) endCase(cr *caseRun) {
	if cr.failed {
		if r.lastFail == nil {
			r.outcomes.count(r.cfg, cr)
		}
		r.lastFail = append([]model.Action(nil), cr.seq...)
	} else if r.lastFail == nil {
		r.outcomes.count(r.cfg, cr)
	}
}

// follow moves the case's spec state along a (taken by the
// implementation, observed in cr.obs) and returns it.
func (r *run) follow(cr *caseRun, a model.Action) model.State {
	spec, _ := successor(r.cfg, &cr.spec, a, &cr.obs)
	if !model.Actions[a.ID].Deterministic {
		if first, _ := r.cfg.Step(&cr.spec, a); !first.Equal(&spec) {
			cr.diverged = true // the generator assumed the first successor
		}
	}
	cr.spec = spec
	cr.out.step(&spec)
	return spec
}

// took records a step of a random case whose observed state is the
// spec's successor: the edge it took.
func (r *run) took(cr *caseRun, a model.Action) {
	if cr.node < 0 || r.graph == nil {
		return
	}
	e, ok := r.graph.Find(cr.node, a, &cr.obs)
	if !ok {
		cr.node = -1
		return
	}
	r.cov.Take(e)
	cr.node = r.graph.Edges[e].To
}

func (r *run) noteSpecViolations(names []string) {
	for _, name := range names {
		r.specViol[name] = true
	}
}

func (cmd stepCommand) String() string {
	if cmd.stutter {
		return "Stutter"
	}
	return cmd.r.cfg.ActionString(cmd.a)
}

func (cmd stepCommand) PreCondition(st commands.State) bool {
	if cmd.stutter {
		return true
	}
	_, ok := cmd.r.cfg.Step(&st.(*genState).s, cmd.a)
	return ok
}

func (cmd stepCommand) NextState(st commands.State) commands.State {
	g := st.(*genState)
	next := &genState{s: g.s, node: -1, target: g.target, left: g.left - 1}
	if !cmd.stutter {
		next.s, _ = cmd.r.cfg.Step(&g.s, cmd.a)
	}
	if r := cmd.r; r.graph != nil {
		next.node, _ = r.graph.Node(&next.s)
		if next.target >= 0 && next.node >= 0 && r.goalKinds[next.target] == goalSuccess &&
			r.targets.Distance(next.target, next.node) == 0 {
			next.target = -1 // a room reached Success: on at random
		}
	}
	return next
}

func (cmd stepCommand) Run(sut commands.SystemUnderTest) commands.Result {
	cr := sut.(*caseRun)
	r := cmd.r
	if cr.err != nil {
		cr.fail()
		return stepResult{msg: cr.err.Error()}
	}
	if cmd.stutter {
		if r.property == Liveness && cr.checked < len(cr.seq) {
			return stepResult{msg: r.liveCheck(cr)}
		}
		return stepResult{}
	}
	if _, ok := r.cfg.Step(&cr.spec, cmd.a); !ok {
		if cr.diverged {
			return stepResult{} // generated for the successor the implementation did not take
		}
		r.invalid++
		cr.fail()
		return stepResult{msg: "generated action not enabled in the spec"}
	}
	cr.seq = append(cr.seq, cmd.a)
	if r.property == Liveness {
		return stepResult{msg: r.liveStep(cr, cmd.a, cmd.last)}
	}
	// Refinement: the implementation's step, the spec's successor (the
	// one the implementation took, where the action has several), and
	// the comparison, here (Run is the only place that sees the case).
	res := stepResult{}
	prev := cr.obs
	if err := r.k.impl.Apply(cmd.a); err != nil {
		res.msg = refusalText(err)
	}
	obs, err := r.k.impl.Observe()
	if err != nil {
		cr.err = err
		res.msg = "observe: " + err.Error()
	}
	cr.obs = obs
	spec := r.follow(cr, cmd.a)
	if res.msg == "" {
		var sv []string
		res.msg, sv = r.k.judge(&prev, &obs, &spec)
		r.noteSpecViolations(sv)
	}
	if res.msg != "" {
		cr.fail()
	} else {
		r.took(cr, cmd.a)
	}
	return res
}

func (cmd stepCommand) PostCondition(st commands.State, result commands.Result) *gopter.PropResult {
	if msg := result.(stepResult).msg; msg != "" {
		return &gopter.PropResult{Status: gopter.PropFalse, Labels: []string{msg}}
	}
	return &gopter.PropResult{Status: gopter.PropTrue}
}

// fail marks the case failed: endCase records its sequence.
func (cr *caseRun) fail() { cr.failed = true }

// liveStep takes a step of a liveness case. The liveness condition is
// checked after it where the implementation can copy itself (on the
// copy), else at the end of the case (on the implementation itself: the
// case goes no further).
func (r *run) liveStep(cr *caseRun, a model.Action, last bool) string {
	impl := r.k.impl
	if err := impl.Apply(a); err != nil {
		cr.fail()
		return refusalText(err)
	}
	obs, err := impl.Observe()
	if err != nil {
		cr.fail()
		return "observe: " + err.Error()
	}
	cr.obs = obs
	r.follow(cr, a)
	if obs.Equal(&cr.spec) {
		r.took(cr, a)
	} else {
		cr.node = -1
	}
	if _, ok := impl.(Cloner); ok || last {
		return r.liveCheck(cr)
	}
	return ""
}

// liveCheck stops the environment after the case so far and lets the
// implementation's threads run fair round-robin: every aborted request
// must end terminated.
func (r *run) liveCheck(cr *caseRun) string {
	cr.checked = len(cr.seq)
	quiet := r.k.impl
	if cl, ok := quiet.(Cloner); ok {
		quiet = cl.Clone()
	}
	_, end, rounds, err := r.k.quiesce(quiet, cr.obs, cr.spec)
	if err != nil {
		cr.fail()
		return "quiesce: " + err.Error()
	}
	r.rounds = max(r.rounds, rounds)
	if p := pinned(r.cfg, &end); len(p) > 0 {
		cr.fail()
		return fmt.Sprintf("aborted requests not terminated after fair quiescence: %v", p)
	}
	if rounds > r.k.bound {
		cr.fail()
		return fmt.Sprintf("no quiescence within %d rounds", r.k.bound)
	}
	return ""
}

// Check runs property on the target: first the tour (every edge of the
// spec's reachable state graph, unless opt.NoTour or the graph is over
// opt.MaxStates), then opt.Cases random cases generated by gopter. A
// counterexample, from either, is minimized. The result carries the
// run's coverage.
func (t Target) Check(property Property, opt Options) (*Result, error) {
	if property != Refinement && property != Liveness {
		return nil, fmt.Errorf("conformance: unknown property %q", property)
	}
	c, impl, name, variant := t.Config, t.Impl, t.Name, t.Config.Name
	opt = opt.withDefaults()
	init := c.Init()
	r := &run{k: newChecker(c, impl, opt.Bound), cfg: c, initial: &init, property: property, specViol: map[string]bool{},
		resetCost: opt.ResetCost, uniform: opt.uniform}
	res := &Result{Impl: name, Variant: variant, Property: property, Seed: opt.Seed, Bound: opt.Bound, Config: c, FailStep: -1}
	cover := &Coverage{Bound: opt.MaxStates}
	res.Coverage = cover
	if g, err := graphOf(c, opt.MaxStates); err == nil {
		r.graph, r.cov = g, tour.NewCoverage(g)
		if !r.uniform {
			r.targets, r.goalKinds = goals(g)
		}
	} else if !errors.Is(err, tour.ErrTooLarge) {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	defer func() {
		res.MaxRounds = r.rounds
		res.SpecViolations = r.specViolations(res.SpecViolations)
		r.fillCoverage(cover)
	}()
	if r.graph != nil && !opt.NoTour {
		f, err := r.tour(&cover.Tour)
		if err != nil {
			return res, fmt.Errorf("conformance: %s: %w", property, err)
		}
		if f != nil {
			res.FoundBy, res.Shrunk, res.ShrunkSeq = "tour", len(f.seq), f.seq
			return res, r.k.explain(res, Minimize(c, f.seq, r.k.failsFunc(property)))
		}
	}
	if opt.Crowd != nil && property == Refinement {
		if failed, err := r.crowd(res, opt.Crowd, opt.MaxStates); failed || err != nil {
			if err != nil {
				err = fmt.Errorf("conformance: %s: %w", property, err)
			}
			return res, err
		}
	}
	if opt.MinSteps == 0 {
		opt.MinSteps = r.minSteps()
	}
	return res, r.randomCases(res, opt)
}

// randomCases runs the random cases with gopter and fills res.
func (r *run) randomCases(res *Result, opt Options) error {
	params := gopter.DefaultTestParametersWithSeed(opt.Seed)
	params.MinSuccessfulTests = opt.Cases
	params.MaxSize = opt.MaxSteps
	params.MinSize = min(opt.MinSteps, opt.MaxSteps)
	params.MaxShrinkCount = 1000
	params.Workers = 1
	tr := commands.Prop(suiteCommands(r)).Check(params)
	res.Cases = r.cases
	if r.broken != nil {
		return fmt.Errorf("conformance: %s: %w", r.property, r.broken)
	}
	if tr.Error != nil {
		return fmt.Errorf("conformance: %s: gopter: %w", r.property, tr.Error)
	}
	if tr.Passed() {
		res.Holds = true
		res.Cases = tr.Succeeded
		return nil
	}
	if r.lastFail == nil {
		return fmt.Errorf("conformance: %s failed (%v) but no failing case was recorded", r.property, tr.Status)
	}
	res.FoundBy = "random"
	res.Cases = tr.Succeeded + 1
	res.Shrunk = len(r.lastFail)
	res.ShrunkSeq = r.lastFail
	res.InvalidCases = r.invalid
	return r.k.explain(res, Minimize(r.cfg, r.lastFail, r.k.failsFunc(r.property)))
}

// specViolations merges the names of invariants and step properties the
// spec itself violated in this run into names, sorted.
func (r *run) specViolations(names []string) []string {
	for n := range r.specViol {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Fails returns the predicate "seq (a behaviour of the spec) shows a
// failure of property on the target", the fair round-robin bounded by
// bound rounds (DefaultBound if not positive).
func (t Target) Fails(property Property, bound int) func([]model.Action) bool {
	return newChecker(t.Config, t.Impl, bound).failsFunc(property)
}

// failsFunc returns the predicate "seq shows a failure of property".
func (k *checker) failsFunc(property string) func([]model.Action) bool {
	if property == Refinement {
		return func(seq []model.Action) bool {
			steps, at, msg, _, err := k.refine(seq)
			return err == nil && msg != "" && at <= len(steps)
		}
	}
	return func(seq []model.Action) bool {
		_, _, pin, _, err := k.live(seq)
		return err == nil && len(pin) > 0
	}
}

// explain fills res with the counterexample seq.
func (k *checker) explain(res *Result, seq []model.Action) error {
	fails, err := k.evaluate(res, seq)
	if err != nil {
		return err
	}
	if !fails {
		return fmt.Errorf("conformance: minimized %s counterexample does not fail", res.Property)
	}
	return nil
}

// evaluate runs seq for res.Property and fills res with its steps, and
// with the failure if it fails.
func (k *checker) evaluate(res *Result, seq []model.Action) (fails bool, err error) {
	if res.Property == Refinement {
		steps, at, msg, viol, err := k.refine(seq)
		if err != nil {
			return false, err
		}
		res.Steps, res.FailStep, res.Failure = steps, at, msg
		for _, n := range viol {
			if !slices.Contains(res.SpecViolations, n) {
				res.SpecViolations = append(res.SpecViolations, n)
			}
		}
		sort.Strings(res.SpecViolations)
		return msg != "", nil
	}
	steps, quiet, pin, rounds, err := k.live(seq)
	if err != nil {
		return false, err
	}
	res.Steps, res.Quiesce, res.Pinned = steps, quiet, pin
	res.MaxRounds = max(res.MaxRounds, rounds)
	res.FailStep = len(steps)
	if len(pin) == 0 {
		return false, nil
	}
	what := "aborted requests not terminated"
	if slices.ContainsFunc(pin, func(p string) bool { return strings.HasSuffix(p, "(not ACKed)") }) {
		what = "aborted requests not terminated, or whose pages decode still holds for want of an ABORT_ACK"
	}
	res.Failure = fmt.Sprintf("after fair quiescence (%d rounds, bound %d), %s: %v", rounds, k.bound, what, pin)
	if strings.HasPrefix(pin[0], "(the implementation refused") {
		res.Failure = fmt.Sprintf("liveness fails: %s", strings.Join(pin, "; "))
	}
	return true, nil
}

// Minimize shrinks a failing sequence: it keeps the shortest failing
// prefix, then removes single steps, and then pairs of steps (a message
// sent and received can only go together), while the result is still a
// behaviour of the spec and still fails, until neither helps: the result
// is 1-minimal (and 2-minimal).
func Minimize(c *model.Config, seq []model.Action, fails func([]model.Action) bool) []model.Action {
	seq = append([]model.Action(nil), seq...)
	for n := 0; n <= len(seq); n++ {
		if fails(seq[:n]) {
			seq = seq[:n]
			break
		}
	}
	try := func(cand []model.Action) bool { return Valid(c, cand) && fails(cand) }
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(seq) && !changed; i++ {
			if cand := without(seq, i, -1); try(cand) {
				seq, changed = cand, true
			}
		}
		for i := 0; i < len(seq) && !changed; i++ {
			for j := i + 1; j < len(seq) && !changed; j++ {
				if cand := without(seq, i, j); try(cand) {
					seq, changed = cand, true
				}
			}
		}
	}
	return seq
}

// without returns seq without the steps at i and j (j < 0: only i).
func without(seq []model.Action, i, j int) []model.Action {
	out := make([]model.Action, 0, len(seq))
	for k, a := range seq {
		if k != i && k != j {
			out = append(out, a)
		}
	}
	return out
}

// OneMinimal reports whether removing any single step from seq gives a
// sequence that is not a behaviour of the spec or no longer fails.
func OneMinimal(c *model.Config, seq []model.Action, fails func([]model.Action) bool) bool {
	for i := range seq {
		cand := append(append([]model.Action(nil), seq[:i]...), seq[i+1:]...)
		if Valid(c, cand) && fails(cand) {
			return false
		}
	}
	return true
}

// Actions returns the actions of steps.
func Actions(steps []Step) []model.Action {
	out := make([]model.Action, 0, len(steps))
	for _, s := range steps {
		if !s.Stutter {
			out = append(out, s.Action)
		}
	}
	return out
}
