package eval

import (
	"errors"
	"runtime/metrics"
	"sync/atomic"
)

// guard is what stops evaluations of a spec from outside them: an error
// to stop with (Interrupt), and a bound on the heap they may build into
// (LimitMemory).
type guard struct {
	stop     atomic.Pointer[halt]
	memory   atomic.Uint64 // bytes; 0: no bound
	memError atomic.Pointer[halt]
}

// halt wraps the error an evaluation is stopped with.
type halt struct{ err error }

// Interrupt stops every evaluation of sp in progress, and every later one,
// with err: each checks at every element it enumerates and every operator
// it applies. Interrupt(nil) lets evaluations run again. Any goroutine may
// call it; the model checker does, on a signal or at its memory bound, so
// that neither waits for one long expression to end.
func (sp *Spec) Interrupt(err error) {
	if err == nil {
		sp.guard.stop.Store(nil)
		return
	}
	sp.guard.stop.Store(&halt{err})
}

// LimitMemory stops, with err, an evaluation of sp that is about to build
// so many values that the Go heap would exceed max bytes, before it builds
// them (a sequence that doubles, the subsets of a large set). 0 lifts the
// bound.
func (sp *Spec) LimitMemory(max uint64, err error) {
	sp.guard.memory.Store(max)
	sp.guard.memError.Store(&halt{err})
}

// poll stops the evaluation if the spec was interrupted.
func (c *ctx) poll() {
	if h := c.sc.spec.guard.stop.Load(); h != nil {
		panic(evalPanic{h.err})
	}
}

// valueBytes is what a value built by an enumeration or a sequence
// operator takes on the heap, on average and counting its slot: the
// estimate the memory bound is checked against before building.
const valueBytes = 48

// reserveAbove is the number of values below which building them is not
// checked against the memory bound: reading the heap's size costs more
// than building a few.
const reserveAbove = 1 << 14

// reserve stops the evaluation if the spec was interrupted, or if n more
// values would take the heap over its bound.
func (c *ctx) reserve(n int) {
	if err := c.Spend(n); err != nil {
		panic(evalPanic{err})
	}
}

// Spend implements value.Budget: it is reserve, returning the error.
func (c *ctx) Spend(n int) error {
	g := &c.sc.spec.guard
	if h := g.stop.Load(); h != nil {
		return h.err
	}
	if n < reserveAbove {
		return nil
	}
	max := g.memory.Load()
	if max == 0 {
		return nil
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 && sample[0].Value.Uint64()+uint64(n)*valueBytes > max {
		if h := g.memError.Load(); h != nil {
			return h.err
		}
		return errMemory
	}
	return nil
}

var errMemory = errors.New("the memory bound would be exceeded")

// stopError reports whether err stops the evaluation from outside it (an
// interruption, the memory bound), as opposed to an error of the spec.
func (c *ctx) stopError(err error) bool {
	g := &c.sc.spec.guard
	if h := g.stop.Load(); h != nil && errors.Is(err, h.err) {
		return true
	}
	if h := g.memError.Load(); h != nil && errors.Is(err, h.err) {
		return true
	}
	return errors.Is(err, errMemory)
}
