package check

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// GCPercent is the garbage collector's target heap growth that roomspec
// check runs with (debug.SetGCPercent), and the benchmarks with it:
// exploring states allocates fast and keeps a large, pointer-rich heap (the
// states of a level), and at the default 100% the collector spends more
// time marking than the search spends checking. The heap is bounded by
// Options.MaxMemory instead.
const GCPercent = 400

// Options tune a check.
type Options struct {
	// Workers is the number of goroutines computing successors; 0 means
	// one per CPU.
	Workers int
	// Graph keeps the reachable state graph, with the action of every edge,
	// in Result.Graph.
	Graph bool
	// All keeps checking after a violation until every invariant and
	// property has a verdict (Result.Verdicts).
	All bool
	// Successors, if set, computes initial states and successors in place
	// of the interpreter: a compiled model of the same spec. It must agree
	// with the interpreter exactly (same states, same action names).
	Successors Successors
	// Progress, if set, is called now and then from the checking goroutine.
	Progress func(Progress)
	// MaxStates, MaxDepth and MaxMemory bound the search (0: no bound): it
	// stops with outcome Incomplete once MaxStates distinct states are
	// found, before expanding states at depth MaxDepth (initial states are
	// at depth 1), or when the Go heap exceeds MaxMemory bytes. Cancelling
	// the context stops it the same way.
	MaxStates int64
	MaxDepth  int
	MaxMemory uint64
}

// Progress reports how far a check has got.
type Progress struct {
	Distinct, Generated int64
	Depth, Queue        int
}

// Successors computes the states of a model: the initial states, and the
// successors of a state with the action that produced each.
type Successors interface {
	Init(yield func(eval.State)) error
	Next(s eval.State, yield func(eval.State, *eval.Action)) error
}

// interpreted is the default Successors: the evaluator on the model's
// Init and Next.
type interpreted struct{ m *Model }

func (x interpreted) Init(yield func(eval.State)) error { return x.m.Spec.Init(x.m.Init, yield) }

func (x interpreted) Next(s eval.State, yield func(eval.State, *eval.Action)) error {
	return x.m.Spec.Next(x.m.Next, s, yield)
}

// node is what the checker remembers of a distinct state.
type node struct {
	fp     uint64
	parent int32 // index of the predecessor in the BFS tree; -1 for initial states
}

// graph is the explored state graph, kept only when properties need it.
type graph struct {
	states []eval.State
	succ   [][]int32 // successor indices (deduplicated), excluding self-loops
	// steps, kept when fairness is decided from the successors' actions
	// (ExactActions), are every successor of each state with its action.
	steps [][]labelledStep
}

// labelledStep is a successor and the action instance that yields it.
type labelledStep struct {
	to     int32
	action string
}

type checker struct {
	m     *Model
	succ  Successors
	opts  Options
	ctx   context.Context
	nodes []node
	seen  map[uint64]int32
	res   *Result
	g     *graph // nil unless liveness is checked
	// sym is the SYMMETRY group (nil without one), and hashers the
	// scratch space of the goroutines that fingerprint states with it.
	sym     *value.Symmetry
	hashers sync.Pool
	live    *liveness
	// codec writes the states of the queue, through enc in the merge.
	codec *value.Codec
	enc   *value.Encoder
	// kept says every state found is kept as values anyway (for liveness,
	// or Options.Graph): the queue is then not written, and a level's
	// states are read where they are kept. Expanding the states found,
	// not copies read back from bytes, also lets a Successors that keeps
	// its own representation of them (spec/compiled) find it by identity.
	kept bool
	// invFns and stepFns are the invariants (by index) and the [][A]_v
	// properties (by property index) the Successors evaluate themselves
	// (Predicates); nil entries are left to the interpreter.
	invFns  []func(eval.State) (bool, error)
	stepFns []func(s, t eval.State) (bool, error)
	claims  claims
	workers []worker
	tlc     *tlcView // what TLCGet and TLCSet see
}

// worker is what a worker keeps from chunk to chunk.
type worker struct {
	// succs holds the successors the worker computes in the chunk being
	// expanded; a state's succList is a piece of it. The merge of a chunk
	// is done with them before the next chunk is expanded, so succs
	// serves every chunk: the successors of a state are not a slice of
	// their own, grown as they are found. bytes holds likewise the bytes
	// of the new states the worker claimed, written through enc.
	succs []succ
	bytes []byte
	enc   *value.Encoder
}

// claims are the fingerprints of new states that workers have prechecked
// in the chunk being expanded: a state reached from several states of the
// chunk is prechecked once. The merge falls back to evaluating the
// predicates of a new state whose successor entry did not claim it.
type claims struct {
	shards [16]struct {
		sync.Mutex
		fps map[uint64]struct{}
	}
}

// claim reports whether fp was not claimed yet, claiming it.
func (cl *claims) claim(fp uint64) bool {
	sh := &cl.shards[fp%uint64(len(cl.shards))]
	sh.Lock()
	defer sh.Unlock()
	if _, ok := sh.fps[fp]; ok {
		return false
	}
	if sh.fps == nil {
		sh.fps = map[uint64]struct{}{}
	}
	sh.fps[fp] = struct{}{}
	return true
}

// reset forgets every claim, once the chunk is merged.
func (cl *claims) reset() {
	for i := range cl.shards {
		clear(cl.shards[i].fps)
	}
}

// Check explores the model exhaustively.
func Check(ctx context.Context, m *Model, opts Options) *Result {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	c := &checker{m: m, opts: opts, ctx: ctx, seen: map[uint64]int32{}, res: &Result{Outcome: OK, LoopStart: -1}}
	c.succ = opts.Successors
	if c.succ == nil {
		c.succ = interpreted{m}
	}
	if opts.All {
		for _, inv := range m.Invariants {
			c.res.Verdicts = append(c.res.Verdicts, Verdict{Name: inv.Name, Kind: Invariant, Holds: true, LoopStart: -1})
		}
		for _, p := range m.Properties {
			c.res.Verdicts = append(c.res.Verdicts, Verdict{Name: p.Name, Kind: Violation, Holds: true, LoopStart: -1})
		}
	}
	c.res.Warnings = append(c.res.Warnings, m.Warnings...)
	if opts.Graph {
		c.res.Graph = &Graph{}
	}
	c.tlc = newTLCView(opts, m.CheckDeadlock)
	defer func(old eval.Checker) { m.Spec.Checker = old }(m.Spec.Checker)
	m.Spec.Checker = c.tlc
	defer c.watch()()
	// As TLC, the assumptions are checked by the model checker, where
	// TLCGet("config") knows the configuration.
	err := m.Spec.CheckAssumptions()
	if err == nil {
		err = c.run()
	}
	if err != nil {
		var stop *stopped
		if errors.As(err, &stop) {
			// A violation found before the stop stands (with -all).
			c.res.Stopped, c.res.Queue = stop.reason, stop.queue
			var perr error
			if c.res.Outcome == OK && stop.reason == exitRequested {
				// As TLC, the postconditions hold of a search the spec
				// ended.
				perr = c.postconditions()
			}
			if c.res.Outcome == OK {
				c.res.Outcome = Incomplete
			}
			if perr == nil {
				return c.res
			}
			err = perr
		}
		c.res.Outcome = Failure
		c.res.Err = err
		var in *inState
		if errors.As(err, &in) {
			// The behaviour that led to the state the error is in, as TLC
			// prints it: its last step is the action that made the state.
			c.res.Err = in.err
			if trace, terr := c.trace(in.id); terr == nil {
				c.res.Trace = trace
			}
		}
		return c.res
	}
	if c.res.Outcome == OK {
		if err := c.postconditions(); err != nil {
			c.res.Outcome, c.res.Err = Failure, err
		}
	}
	return c.res
}

// inState is an error met evaluating something in (or out of) a state the
// search reached, id.
type inState struct {
	id  int32
	err error
}

func (e *inState) Error() string { return e.err.Error() }
func (e *inState) Unwrap() error { return e.err }

// watch stops the evaluations of the model from outside them when the
// context is done or the heap exceeds MaxMemory, so that one long
// expression (the subsets of a large set, a sequence that doubles) is
// stopped too; it returns the function that ends the watch.
func (c *checker) watch() func() {
	sp := c.m.Spec
	sp.Interrupt(nil)
	memory := &stopped{reason: fmt.Sprintf("-max-memory %d MiB reached", c.opts.MaxMemory>>20)}
	sp.LimitMemory(c.opts.MaxMemory, memory)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(watchEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-c.ctx.Done():
				sp.Interrupt(&stopped{reason: stopReason(c.ctx.Err())})
				return
			case <-tick.C:
				if c.opts.MaxMemory > 0 && heapBytes() > c.opts.MaxMemory {
					sp.Interrupt(memory)
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		sp.Interrupt(nil)
		sp.LimitMemory(0, nil)
	}
}

// watchEvery is how often watch looks at the context and the heap.
const watchEvery = 20 * time.Millisecond

// heapBytes returns the bytes of the Go heap's objects.
// HeapBytes is the bytes of live and unswept heap objects, the measure
// MaxMemory bounds (for callers that bound work done before Check, such
// as loading a spec).
func HeapBytes() uint64 { return heapBytes() }

func heapBytes() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// stopReason says why a context is done.
func stopReason(err error) string {
	if errors.Is(err, context.Canceled) {
		return "interrupted"
	}
	return err.Error()
}

// stopped ends a search that reached a bound or was interrupted.
type stopped struct {
	reason string
	queue  int
}

func (s *stopped) Error() string { return "stopped: " + s.reason }

// bound reports a reason to stop before expanding more states, given the
// number of states still queued; it returns nil to go on.
func (c *checker) bound(queue int) error {
	if c.tlc.exit.Load() {
		return &stopped{exitRequested, queue}
	}
	if err := c.ctx.Err(); err != nil {
		return &stopped{stopReason(err), queue}
	}
	if c.opts.MaxStates > 0 && c.res.Distinct >= c.opts.MaxStates {
		return &stopped{fmt.Sprintf("-max-states %d reached", c.opts.MaxStates), queue}
	}
	if c.opts.MaxMemory > 0 && heapBytes() > c.opts.MaxMemory {
		return &stopped{fmt.Sprintf("-max-memory %d MiB reached", c.opts.MaxMemory>>20), queue}
	}
	return nil
}

type succ struct {
	state  eval.State
	action *eval.Action
	fp     uint64
	broken []int // indices of action-level properties the step violates
	pre    preChecked
	// bytes are the state's bytes for the queue, written by the worker
	// that claimed it as new.
	bytes []byte
	// seen is the id of the state where it was found before the chunk
	// (the worker looked it up: the seen set does not change while
	// workers run), or -1: the merge then looks it up again, as it may
	// have been added by an earlier entry of the chunk. Most successors
	// are states seen before, and the merge, which runs alone, is spared
	// their lookups.
	seen int32
}

func (c *checker) run() error {
	if len(c.m.Init) == 0 && c.opts.Successors == nil {
		return nil // assumptions only: no states
	}
	if pr, ok := c.succ.(Predicates); ok {
		c.invFns = make([]func(eval.State) (bool, error), len(c.m.Invariants))
		for i, inv := range c.m.Invariants {
			c.invFns[i], _ = pr.Invariant(inv.Name)
		}
		c.stepFns = make([]func(s, t eval.State) (bool, error), len(c.m.Properties))
		for i, p := range c.m.Properties {
			// Only a property that is one [][A]_v as a whole.
			if len(p.Steps) == 1 && len(p.Always) == 0 && len(p.Initially) == 0 && p.Liveness == nil {
				c.stepFns[i], _ = pr.StepProperty(p.Name)
			}
		}
	}
	if err := c.setupSymmetry(); err != nil {
		return err
	}
	if hasLiveness(c.m) {
		lv, err := newLiveness(c.m)
		if err != nil {
			return err
		}
		c.live = lv
		c.g = &graph{}
		if _, ok := c.succ.(ExactActions); ok {
			c.g.steps = [][]labelledStep{}
		}
	}
	var frontier []int32
	var frontierStates []eval.State
	var initErr error
	c.atLevel(0)
	err := c.succ.Init(func(s eval.State) {
		if initErr != nil {
			return
		}
		c.res.Generated++
		ok, err := c.inModel(s)
		if err != nil {
			initErr = err
			return
		}
		if !ok {
			return
		}
		fp, err := c.fingerprint(s)
		if err != nil {
			initErr = err
			return
		}
		if _, dup := c.seen[fp]; dup {
			return
		}
		id := c.add(fp, -1, s)
		frontier = append(frontier, id)
		frontierStates = append(frontierStates, s)
	})
	if err == nil {
		err = initErr
	}
	if err != nil {
		return err
	}
	if len(frontier) > 0 {
		c.res.Depth = 1
	}
	c.tlc.initial.Store(int64(len(frontier)))
	c.publish(len(frontier))
	if c.res.Graph != nil {
		c.res.Graph.Initial = len(frontier)
	}
	// Invariants of initial states.
	for i, id := range frontier {
		if done, err := c.checkInvariants(id, frontierStates[i], nil); done || err != nil {
			return err
		}
	}
	c.codec = value.NewCodec()
	c.enc = c.codec.NewEncoder()
	c.kept = c.g != nil || c.res.Graph != nil
	queued := &queue{}
	for _, s := range frontierStates {
		if !c.kept {
			queued.push(c.enc.Append(nil, s...), len(s))
		}
	}
	for level := 1; len(frontier) > 0; level++ {
		c.atLevel(level)
		if c.opts.MaxDepth > 0 && c.res.Depth >= c.opts.MaxDepth {
			return &stopped{fmt.Sprintf("-max-depth %d reached", c.opts.MaxDepth), len(frontier)}
		}
		var next []int32
		nextStates := &queue{}
		// A level is expanded in chunks, so that only a chunk's
		// successors are held at once; chunks are merged in order, which
		// keeps the search breadth-first and deterministic.
		chunk := 512 * c.opts.Workers
		for lo := 0; lo < len(frontier); lo += chunk {
			if err := c.bound(len(frontier) - lo + len(next)); err != nil {
				return err
			}
			hi := min(lo+chunk, len(frontier))
			succs, err := c.expand(queued, frontier, lo, hi)
			if err != nil {
				var stop *stopped
				if c.ctx.Err() != nil || errors.As(err, &stop) {
					// Interrupted in the middle of the chunk (or of one
					// expression): what was found before it stands.
					if err := c.bound(len(frontier) - lo + len(next)); err != nil {
						return err
					}
					return &stopped{stop.reason, len(frontier) - lo + len(next)}
				}
				return err
			}
			for i, id := range frontier[lo:hi] {
				if succs[i].raw == 0 && c.m.CheckDeadlock {
					c.res.Outcome = Deadlock
					c.res.Trace, err = c.trace(id)
					return err
				}
				c.res.Generated += int64(succs[i].raw - len(succs[i].list))
				if done, err := c.checkSteps(id, succs[i].list); done || err != nil {
					return err
				}
				for _, sc := range succs[i].list {
					c.res.Generated++
					tid, dup := sc.seen, sc.seen >= 0
					if !dup {
						tid, dup = c.seen[sc.fp]
					}
					if !dup && c.opts.MaxStates > 0 && c.res.Distinct >= c.opts.MaxStates {
						return &stopped{fmt.Sprintf("-max-states %d reached", c.opts.MaxStates), len(frontier) - lo - i + len(next)}
					}
					if !dup {
						tid = c.add(sc.fp, id, sc.state)
						next = append(next, tid)
						if !c.kept {
							if sc.bytes == nil {
								// Claimed by another entry of the chunk.
								sc.bytes = c.enc.Append(nil, sc.state...)
							}
							nextStates.push(sc.bytes, len(sc.state))
						}
						if len(next) == 1 {
							c.res.Depth++
						}
						// As TLC: a new state's invariants are checked when it
						// is generated, so a violation found expanding one state
						// comes before a deadlock of a state queued after it.
						if done, err := c.checkInvariants(tid, sc.state, &sc.pre); done || err != nil {
							return err
						}
					}
					if c.g != nil && tid != id {
						c.g.succ[id] = append(c.g.succ[id], tid)
					}
					if c.g != nil && c.g.steps != nil {
						c.g.steps[id] = append(c.g.steps[id], labelledStep{tid, sc.action.String()})
					}
					if c.res.Graph != nil {
						c.res.Graph.Edges = append(c.res.Graph.Edges, Edge{From: id, To: tid, Action: sc.action})
					}
				}
				c.publish(len(frontier) - lo - i - 1 + len(next))
			}
			c.claims.reset()
			if c.opts.Progress != nil {
				c.opts.Progress(Progress{Distinct: c.res.Distinct, Generated: c.res.Generated, Depth: c.res.Depth, Queue: len(frontier) - hi + len(next)})
			}
		}
		frontier, queued = next, nextStates
	}
	if c.live != nil {
		c.atLevel(-1)
		return c.live.check(c)
	}
	return nil
}

func (c *checker) add(fp uint64, parent int32, s eval.State) int32 {
	if c.res.Graph != nil {
		c.res.Graph.States = append(c.res.Graph.States, s)
	}
	id := int32(len(c.nodes))
	c.nodes = append(c.nodes, node{fp: fp, parent: parent})
	c.seen[fp] = id
	c.res.Distinct++
	if c.g != nil {
		c.g.states = append(c.g.states, s)
		c.g.succ = append(c.g.succ, nil)
		if c.g.steps != nil {
			c.g.steps = append(c.g.steps, nil)
		}
	}
	return id
}

// expand computes the successors of the states lo to hi (excluded) of a
// level (their node ids in frontier, their bytes in q), in parallel,
// keeping their order.
func (c *checker) expand(q *queue, frontier []int32, lo, hi int) ([]succList, error) {
	out := make([]succList, hi-lo)
	if len(c.workers) < c.opts.Workers {
		c.workers = make([]worker, c.opts.Workers)
		for w := range c.workers {
			c.workers[w].enc = c.codec.NewEncoder()
		}
	}
	for w := range c.workers {
		wk := &c.workers[w]
		clear(wk.succs) // let the states of the previous chunk go
		wk.succs, wk.bytes = wk.succs[:0], wk.bytes[:0]
	}
	err := parallel(hi-lo, c.opts.Workers, func(w, i int) error {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		if err := c.successors(c.levelState(q, frontier, lo+i), &out[i], &c.workers[w]); err != nil {
			return &inState{frontier[lo+i], err}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// succList is the successors of one state that satisfy the constraints;
// raw counts all successors, for deadlock detection.
type succList struct {
	list []succ
	raw  int
}

// successors computes the successors of s into out, appending them to
// the worker's succs.
func (c *checker) successors(s eval.State, out *succList, wk *worker) error {
	start := len(wk.succs)
	defer func() {
		// A full slice expression: a later append to succs must not write
		// into out.list.
		out.list = wk.succs[start:len(wk.succs):len(wk.succs)]
	}()
	var ferr error
	err := c.succ.Next(s, func(t eval.State, a *eval.Action) {
		if ferr != nil {
			return
		}
		out.raw++
		ok, err := c.inModel(t)
		if err == nil && ok {
			ok, err = c.actionAllowed(s, t)
		}
		if err != nil {
			ferr = err
			return
		}
		if !ok {
			return
		}
		fp, err := c.fingerprint(t)
		if err != nil {
			ferr = err
			return
		}
		var broken []int
		for i, p := range c.m.Properties {
			if c.stepFns != nil && c.stepFns[i] != nil {
				ok, err := c.stepFns[i](s, t)
				if err != nil {
					ferr = fmt.Errorf("evaluating property %s: %w", p.Name, err)
					return
				}
				if !ok {
					broken = append(broken, i)
				}
				continue
			}
			for _, f := range p.Steps {
				ok, err := c.m.Spec.HoldsStep(f, s, t)
				if err != nil {
					ferr = fmt.Errorf("evaluating property %s: %w", p.Name, err)
					return
				}
				if !ok {
					broken = append(broken, i)
					break
				}
			}
		}
		sc := succ{state: t, action: a, fp: fp, broken: broken, seen: -1}
		// The merge adds no state while workers run: a fingerprint not
		// seen yet is of a new state, which the first worker to claim it
		// prechecks.
		if id, dup := c.seen[fp]; dup {
			sc.seen = id
		} else if c.claims.claim(fp) {
			c.precheck(t, &sc.pre)
			if !c.kept {
				from := len(wk.bytes)
				wk.bytes = wk.enc.Append(wk.bytes, t...)
				sc.bytes = wk.bytes[from:len(wk.bytes):len(wk.bytes)]
			}
		}
		wk.succs = append(wk.succs, sc)
	})
	if err != nil {
		return err
	}
	return ferr
}

// inModel evaluates the state constraints.
func (c *checker) inModel(s eval.State) (bool, error) {
	for _, k := range c.m.Constraints {
		ok, err := c.m.Spec.Holds(k.Formula, s)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

func (c *checker) actionAllowed(s, t eval.State) (bool, error) {
	for _, k := range c.m.ActionConstraints {
		ok, err := c.m.Spec.HoldsStep(k.Formula, s, t)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// fingerprint hashes a state (its view, if any), reduced by symmetry.
func (c *checker) fingerprint(s eval.State) (uint64, error) {
	if c.m.View == nil {
		for _, x := range s {
			if err := normalize(x); err != nil {
				return 0, err
			}
		}
		if c.sym == nil {
			return value.HashTuple(s), nil
		}
		h := c.hashers.Get().(*value.SymmetryHasher)
		defer c.hashers.Put(h)
		return h.HashTuple(s), nil
	}
	v, err := c.m.Spec.Eval(c.m.View, s)
	if err != nil {
		return 0, fmt.Errorf("evaluating VIEW: %w", err)
	}
	if err := normalize(v); err != nil {
		return 0, err
	}
	if c.sym == nil {
		return value.Hash(v), nil
	}
	h := c.hashers.Get().(*value.SymmetryHasher)
	defer c.hashers.Put(h)
	return h.Hash(v), nil
}

// normalize rejects state values that cannot be fingerprinted.
func normalize(v value.Value) error {
	if _, ok := v.(*value.Infinite); ok {
		return fmt.Errorf("a variable holds the infinite set %s", value.Format(v))
	}
	return nil
}

// trace rebuilds the path from an initial state to id by re-exploring: the
// checker keeps only fingerprints of states.
func (c *checker) trace(id int32) ([]Step, error) {
	var fps []uint64
	for i := id; i >= 0; i = c.nodes[i].parent {
		fps = append(fps, c.nodes[i].fp)
	}
	// fps runs from id back to the initial state.
	var steps []Step
	var cur eval.State
	var ferr error
	defer c.atLevel(0)()
	err := c.succ.Init(func(s eval.State) {
		if cur != nil || ferr != nil {
			return
		}
		fp, err := c.fingerprint(s)
		if err != nil {
			ferr = err
			return
		}
		if fp == fps[len(fps)-1] {
			cur = s
		}
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return nil, err
	}
	if cur == nil {
		return nil, fmt.Errorf("internal error: cannot rebuild the initial state of the trace")
	}
	steps = append(steps, Step{State: cur})
	for k := len(fps) - 2; k >= 0; k-- {
		c.atLevel(len(steps))
		var next eval.State
		var act *eval.Action
		err := c.succ.Next(cur, func(t eval.State, a *eval.Action) {
			if next != nil || ferr != nil {
				return
			}
			fp, err := c.fingerprint(t)
			if err != nil {
				ferr = err
				return
			}
			if fp == fps[k] {
				next, act = t, a
			}
		})
		if err == nil {
			err = ferr
		}
		if err != nil {
			return nil, err
		}
		if next == nil {
			return nil, fmt.Errorf("internal error: cannot rebuild step %d of the trace", len(steps))
		}
		steps = append(steps, Step{Action: act, State: next})
		cur = next
	}
	return steps, nil
}

// levelState returns state i of the level being expanded: where it is
// kept as values, or read back from the queue.
func (c *checker) levelState(q *queue, frontier []int32, i int) eval.State {
	switch {
	case c.g != nil:
		return c.g.states[frontier[i]]
	case c.res.Graph != nil:
		return c.res.Graph.States[frontier[i]]
	}
	return q.state(i, c.codec)
}
