package check

import (
	"os"
	"sync/atomic"
	"time"

	"github.com/roomspec/roomspec/tla/eval"
)

// tlcView is what TLC's TLCGet and TLCSet see of a check (eval.Checker):
// the level the search is at, its figures, its configuration, and a stop.
// The serial parts of the search write it; workers read it while they
// expand a chunk, during which it does not change.
type tlcView struct {
	start  time.Time
	config eval.Config
	// level is the level of the states being expanded (0 while the
	// initial states are computed; -1 while liveness is checked).
	level                               atomic.Int64
	queue, distinct, initial, generated atomic.Int64
	diameter                            atomic.Int64
	exit                                atomic.Bool
}

func newTLCView(opts Options, deadlock bool) *tlcView {
	v := &tlcView{start: time.Now(), config: eval.Config{
		Deadlock: deadlock,
		Workers:  opts.Workers,
		// RandomElement's choices come from a fixed seed (eval.Spec), and
		// states are not fingerprinted by TLC's polynomials.
		Seed:        "0",
		Fingerprint: "0",
	}}
	if exe, err := os.Executable(); err == nil {
		v.config.Install = exe
	}
	return v
}

func (v *tlcView) Level() int          { return int(v.level.Load()) }
func (v *tlcView) Config() eval.Config { return v.config }
func (v *tlcView) Exit()               { v.exit.Store(true) }

func (v *tlcView) Stats() eval.Stats {
	return eval.Stats{
		Queue: v.queue.Load(), Distinct: v.distinct.Load(), Initial: v.initial.Load(),
		Generated: v.generated.Load(), Diameter: int(v.diameter.Load()), Duration: time.Since(v.start),
	}
}

// publish records the search's figures, with queue states found but not
// yet expanded.
func (c *checker) publish(queue int) {
	v := c.tlc
	v.queue.Store(int64(queue))
	v.distinct.Store(c.res.Distinct)
	v.generated.Store(c.res.Generated)
	v.diameter.Store(int64(c.res.Depth))
}

// atLevel sets the level TLCGet("level") reads and returns a function
// that restores the previous one.
func (c *checker) atLevel(l int) (restore func()) {
	old := c.tlc.level.Swap(int64(l))
	return func() { c.tlc.level.Store(old) }
}

// exitRequested is the reason a search stops when the spec asked it to.
const exitRequested = `the spec asked to stop with TLCSet("exit", TRUE)`

// postconditions evaluates the configuration's POSTCONDITIONs once the
// search is over, as TLC does: in a constant context, where TLCGet reads
// the final figures. The first that is false is the outcome.
func (c *checker) postconditions() error {
	for _, p := range c.m.Postconditions {
		ok, err := c.m.Spec.Holds(p.Formula, nil)
		if err != nil {
			return err
		}
		if !ok {
			c.res.Outcome, c.res.Violated = Postcondition, p.Name
			return nil
		}
	}
	return nil
}
