package eval

import (
	"strings"
	"sync"
	"time"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// Checker is what TLC's TLCGet and TLCSet read and write of the model
// checker evaluating a spec (Spec.Checker): its statistics, its
// configuration, the level it is at, and a stop. Without a Checker,
// TLCGet of anything but a register is an error, as TLC's is in an
// expression evaluated before model checking starts.
type Checker interface {
	// Level is the level of the states whose successors are being
	// computed: 0 while the initial states are, then 1 (the initial
	// states' successors), 2, ... It is negative where the checker is at
	// no level (while it checks liveness on the whole graph).
	Level() int
	// Stats returns the search's figures at this moment.
	Stats() Stats
	// Config is TLCGet("config").
	Config() Config
	// Exit asks the checker to stop exploring (TLCSet("exit", TRUE)).
	Exit()
}

// Stats are the figures of a search as TLCGet reads them.
type Stats struct {
	// Queue is the number of distinct states found but not yet expanded;
	// Distinct and Initial the numbers of distinct states and of distinct
	// initial states; Generated the number of states computed.
	Queue, Distinct, Initial, Generated int64
	// Diameter is the highest level of a state found so far.
	Diameter int
	// Duration is the time since the checker started.
	Duration time.Duration
}

// Config is the configuration of a search as TLCGet("config") reads it.
type Config struct {
	Deadlock bool // deadlock is checked
	Workers  int
	// Seed is the seed of RandomElement's choices; Fingerprint says how
	// states are fingerprinted; Install where the checker's executable is.
	Seed, Fingerprint, Install string
}

// registers are TLC's registers, TLCSet(i, v) and TLCGet(i) for a natural
// number i, and the named ones "s:name". TLC keeps a set per worker
// thread (and TLCSet outside a worker sets every worker's); roomspec keeps
// one set for every worker, which is the same with one worker.
type registers struct {
	mu   sync.Mutex
	vals map[value.Value]value.Value
}

func (r *registers) get(k value.Value) (value.Value, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.vals[k]
	return v, ok
}

func (r *registers) set(k, v value.Value) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.vals == nil {
		r.vals = map[value.Value]value.Value{}
	}
	r.vals[k] = v
}

// namedRegister is the prefix of a named register's key.
const namedRegister = "s:"

// tlcGet evaluates TLCGet(arg) as TLC does (tlc2.module.TLCGetSet).
func (c *ctx) tlcGet(args []expr, at tla.Pos) value.Value {
	if len(args) != 1 {
		c.fail(at, "TLCGet takes 1 argument, got %d", len(args))
	}
	k := c.eval(args[0])
	switch x := k.(type) {
	case value.Int:
		if x >= 0 {
			if v, ok := c.sc.spec.regs.get(k); ok {
				return v
			}
			c.fail(at, "TLCGet(%d) was undefined", x)
		}
	case value.String:
		return c.tlcGetNamed(string(x), at)
	}
	c.fail(at, "the argument of TLCGet should be a nonnegative integer or a string, but instead it is: %s", value.Format(k))
	return nil
}

func (c *ctx) tlcGetNamed(name string, at tla.Pos) value.Value {
	if strings.HasPrefix(name, namedRegister) {
		if v, ok := c.sc.spec.regs.get(value.String(name)); ok {
			return v
		}
		c.fail(at, "TLCGet(%q) was undefined", name)
	}
	if name == "level" {
		return value.Int(c.tlcLevel(at))
	}
	ch := c.sc.spec.Checker
	if ch == nil {
		c.fail(at, "TLCGet(%q) was undefined: there is no model checker here", name)
	}
	st := ch.Stats()
	switch name {
	case "diameter":
		return value.Int(st.Diameter)
	case "distinct":
		return value.Int(st.Distinct)
	case "generated":
		return value.Int(st.Generated)
	case "queue":
		return value.Int(st.Queue)
	case "duration":
		return value.Int(int64(st.Duration / time.Second))
	case "stats":
		// worker is the number of TLC's worker thread, which roomspec's
		// evaluator does not know.
		return value.NewRecord(
			[]string{"queue", "distinct", "initial", "generated", "diameter", "duration", "worker"},
			[]value.Value{value.Int(st.Queue), value.Int(st.Distinct), value.Int(st.Initial), value.Int(st.Generated),
				value.Int(st.Diameter), value.Int(int64(st.Duration / time.Second)), value.Int(0)})
	case "config":
		cf := ch.Config()
		return value.NewRecord(
			[]string{"mode", "deadlock", "worker", "seed", "fingerprint", "install"},
			[]value.Value{value.String("bfs"), value.Bool(cf.Deadlock), value.Int(cf.Workers),
				value.String(cf.Seed), value.String(cf.Fingerprint), value.String(cf.Install)})
	}
	c.fail(at, "TLCGet(%q) was undefined (roomspec knows level, diameter, distinct, generated, queue, duration, stats, config and the registers)", name)
	return nil
}

// tlcLevel is TLCGet("level"): the level of the state TLC calls s0, the
// first state of the evaluation. It is 0 in a constant expression and in
// the initial predicate, the level of the state being expanded in a step
// (the next-state relation, an action constraint or property), and one
// more for a successor evaluated alone (its state constraints, invariants
// and VIEW) and for the next state under a prime.
func (c *ctx) tlcLevel(at tla.Pos) int {
	if c.s == nil && c.t == nil || c.partial {
		return 0
	}
	ch := c.sc.spec.Checker
	if ch == nil {
		c.fail(at, "TLCGet(\"level\") was undefined: there is no model checker here")
	}
	l := ch.Level()
	if l < 0 {
		c.fail(at, "TLCGet(\"level\") is not defined while liveness is checked on the whole state graph")
	}
	if c.t != nil && !c.primed {
		return l
	}
	return l + 1
}

// tlcSet evaluates TLCSet(key, v) as TLC does: it sets a register, or with
// "exit" and TRUE stops the search; "pause" is accepted and does nothing.
func (c *ctx) tlcSet(args []expr, at tla.Pos) value.Value {
	if len(args) != 2 {
		c.fail(at, "TLCSet takes 2 arguments, got %d", len(args))
	}
	k, v := c.eval(args[0]), c.eval(args[1])
	switch x := k.(type) {
	case value.Int:
		if x >= 0 {
			c.sc.spec.regs.set(k, v)
			return value.True
		}
	case value.String:
		switch {
		case x == "exit":
			if v == value.True {
				if ch := c.sc.spec.Checker; ch != nil {
					ch.Exit()
				}
			}
			return value.True
		case x == "pause":
			return value.True
		case strings.HasPrefix(string(x), namedRegister):
			c.sc.spec.regs.set(k, v)
			return value.True
		}
	}
	c.fail(at, "the first argument of TLCSet should be a nonnegative integer, \"exit\", \"pause\" or a string starting with %q, but instead it is: %s", namedRegister, value.Format(k))
	return nil
}
