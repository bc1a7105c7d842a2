package watch

import (
	"bytes"
	"math/rand"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
	"github.com/roomspec/roomspec/traces/source"
)

// scenario is a capture of traces/testdata/scenarios with its log and
// expectations, as the sources deliver it: records with the messages they
// complete, and log lines.
type scenario struct {
	scenarios.Scenario
	deadline time.Duration
	// arrivals are what the sources deliver, in capture order per source.
	records []record
	log     []observe.Observation
	end     time.Time
	cfg     *model.Config
	// held counts the messages decode emitted more than MaxHold after
	// their time (out of order): the observations that may come late.
	held int
}

type record struct {
	t   time.Time
	obs []observe.Observation // messages this record completes (as decode emits them after it)
}

func loadScenarios(t *testing.T) []*scenario {
	t.Helper()
	all, err := scenarios.All(scenarios.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var out []*scenario
	for _, e := range all {
		sc := &scenario{Scenario: e}
		if sc.deadline, err = sc.DeadlineDuration(); err != nil {
			t.Fatal(err)
		}
		if sc.cfg, err = spec.Compiled(sc.Variant); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(sc.Capture())
		if err != nil {
			t.Fatal(err)
		}
		s, err := source.NewStream(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		p := source.NewPcapReader(s)
		p.OnRecord = func(rec *capture.Record) { sc.records = append(sc.records, record{t: rec.Time}) }
		// As Run decodes: a stream that does not resynchronize holds the
		// others back for at most Hold.
		sum, err := decode.Run(p, decode.Options{MaxHold: 250 * time.Millisecond}, func(m *decode.Message) {
			if o, ok := observe.FromMessage(m); ok {
				last := &sc.records[len(sc.records)-1]
				last.obs = append(last.obs, o)
			}
		}, func(decode.Diagnostic) {})
		if err != nil {
			t.Fatal(err)
		}
		sc.end = sum.End
		sc.held = sum.OutOfOrder
		if _, sc.log, _, err = sc.Observations(); err != nil {
			t.Fatal(err)
		}
		out = append(out, sc)
	}
	return out
}

// wire returns the scenario's wire observations in decode's order.
func (sc *scenario) wire() []observe.Observation {
	var out []observe.Observation
	for _, r := range sc.records {
		out = append(out, r.obs...)
	}
	return out
}

// replayJSON replays the scenario as roomspec replay -format json does and
// returns its lines, sorted.
func (sc *scenario) replayJSON(t *testing.T, opt judge.Options) []string {
	t.Helper()
	var lines []string
	r, err := judge.New(sc.cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	take := func() {
		for _, ev := range r.Ready() {
			var b bytes.Buffer
			if err := judge.WriteRoomJSON(&b, ev.Room); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.TrimSpace(b.String()))
		}
	}
	obs := sc.wire()
	if opt.Log {
		obs = observe.Merge(obs, sc.log)
	}
	for _, o := range obs {
		r.Step(o)
		take()
	}
	r.Finish(sc.end)
	take()
	slices.Sort(lines)
	return lines
}

// engine is the watcher Run's goroutine holds, fed directly: what the
// sources deliver goes to the merge, and what it hands on to the judge,
// whose events go to emit.
type engine struct {
	*watcher
	log bool
}

func newEngine(t *testing.T, c *model.Config, opt judge.Options, lopt observe.LiveOptions, emit func(judge.Event)) *engine {
	t.Helper()
	opt.Overdue = true
	j, err := judge.New(c, opt)
	if err != nil {
		t.Fatal(err)
	}
	if emit == nil {
		emit = func(judge.Event) {}
	}
	lopt.Log = opt.Log
	return &engine{watcher: &watcher{live: observe.NewLive(lopt), judge: j, emit: emit}, log: opt.Log}
}

func (e *engine) Record(t, wall time.Time)                   { e.live.Record(t, wall); e.pump() }
func (e *engine) Wire(o observe.Observation, wall time.Time) { e.live.Wire(o, wall); e.pump() }
func (e *engine) Log(o observe.Observation, wall time.Time)  { e.live.Log(o, wall); e.pump() }
func (e *engine) LogAtEnd(wall time.Time)                    { e.live.LogAtEnd(wall); e.pump() }
func (e *engine) Tick(wall time.Time)                        { e.live.Tick(wall); e.pump() }
func (e *engine) Now(wall time.Time) time.Time               { return e.live.Now(wall) }
func (e *engine) Last() time.Time                            { return e.live.Last() }
func (e *engine) Stats() Stats                               { return e.stats() }
func (e *engine) Finish(end time.Time) *judge.Report         { return e.finish(end, false, time.Time{}) }

// arrival is something a source delivers at a wall time.
type arrival struct {
	wall time.Time
	rec  *record
	log  *observe.Observation
}

// live plays the scenario into an Engine as live sources would deliver
// it: each record (then its messages) delay after its capture time, each
// log line up to maxLogDelay after its timestamp in log order, ticks every
// 10 ms of wall time, at each of which the log follower finds the log's
// end if its last line was written 20 ms before; then the source ends.
// It keeps *cur at the wall time being played.
func (sc *scenario) live(e *engine, rng *rand.Rand, delay, maxLogDelay, offset time.Duration, cur *time.Time) {
	var as []arrival
	for i := range sc.records {
		as = append(as, arrival{wall: sc.records[i].t.Add(offset + delay), rec: &sc.records[i]})
	}
	if e.log {
		last := time.Time{}
		for i := range sc.log {
			w := sc.log[i].Time.Add(offset + time.Duration(rng.Int63n(int64(maxLogDelay)+1)))
			if w.Before(last) {
				w = last // a file is read in order
			}
			last = w
			as = append(as, arrival{wall: w, log: &sc.log[i]})
		}
	}
	e.play(as, time.Time{}, cur)
}

// play delivers the arrivals in wall-time order, a millisecond of wall
// time at a step, until all are delivered and the wall clock has reached
// until (zero: no further), keeping *cur at the wall time being played.
// Every 10 ms it ticks, after the log follower looks at the log: it
// finds its end once it has read the last line written, 20 ms before.
func (e *engine) play(as []arrival, until time.Time, cur *time.Time) {
	sort.SliceStable(as, func(i, j int) bool { return as[i].wall.Before(as[j].wall) })
	start := as[0].wall
	next := 0
	logEnd := time.Time{}
	for wall := start; next < len(as) || wall.Before(until); wall = wall.Add(time.Millisecond) {
		*cur = wall
		for next < len(as) && !as[next].wall.After(wall) {
			a := as[next]
			next++
			if a.rec != nil {
				e.Record(a.rec.t, a.wall)
				for _, o := range a.rec.obs {
					e.Wire(o, a.wall)
				}
			} else {
				e.Log(*a.log, a.wall)
				logEnd = a.wall.Add(20 * time.Millisecond)
			}
		}
		if wall.Sub(start)%(10*time.Millisecond) == 0 {
			if e.log && !logEnd.IsZero() && !wall.Before(logEnd) {
				e.LogAtEnd(wall)
			}
			e.Tick(wall)
		}
	}
}

// TestEngineScenarios plays each scenario into the Engine as live sources
// deliver it (records 1 ms after capture, log lines up to 100 ms late, in
// random interleavings): its final verdicts are replay's, line for line;
// with the log, exactly the rooms left pinned past their deadline are
// reported pinned, each within Hold plus a tick of its deadline.
func TestEngineScenarios(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			for _, log := range []bool{true, false} {
				seeds := int64(2)
				if !log {
					seeds = 1 // (the log's delays are what is random)
				}
				for seed := int64(1); seed <= seeds; seed++ {
					opt := judge.Options{Deadline: sc.deadline, Log: log}
					var events []judge.Event
					var walls []time.Time
					var wall time.Time
					e := newEngine(t, sc.cfg, opt, observe.LiveOptions{}, func(ev judge.Event) {
						events = append(events, ev)
						walls = append(walls, wall)
					})
					sc.live(e, rand.New(rand.NewSource(seed)), time.Millisecond, 100*time.Millisecond, 0, &wall)
					e.Finish(e.Last())
					var got []string
					pinned := map[int64]judge.Event{}
					pinnedWall := map[int64]time.Time{}
					for i, ev := range events {
						switch ev.Kind {
						case judge.EventVerdict:
							var b bytes.Buffer
							judge.WriteRoomJSON(&b, ev.Room)
							got = append(got, strings.TrimSpace(b.String()))
						case judge.EventPinned:
							pinned[ev.Room.Room] = ev
							pinnedWall[ev.Room.Room] = walls[i]
						case judge.EventAtRisk:
							if log {
								t.Errorf("at-risk event with the log")
							}
						case judge.EventReleased:
							t.Errorf("room %d released late", ev.Room.Room)
						}
					}
					slices.Sort(got)
					want := sc.replayJSON(t, opt)
					if d := cmp.Diff(want, got); d != "" {
						t.Fatalf("log %v seed %d: verdicts differ from replay's (-replay +watch):\n%s", log, seed, d)
					}
					st := e.Stats()
					if st.Late > sc.held || st.Forced != 0 || st.Pinned != 0 || st.AtRisk != 0 {
						t.Errorf("log %v seed %d: stats %+v", log, seed, st)
					}
					if !log {
						continue
					}
					for room, v := range sc.WithLog {
						_, ok := pinned[parseInt(room)]
						if ok != (v == "violated") {
							t.Errorf("seed %d: room %s (%s) reported pinned: %v", seed, room, v, ok)
						}
					}
					// Reported at the first capture time past the deadline the
					// engine reached, on the wall clock at most Hold (the
					// log's silence) and a tick later.
					for room, ev := range pinned {
						due := ev.Room.AbortTime.Add(sc.deadline)
						late := pinnedWall[room].Sub(due)
						if ev.At.Before(due) || ev.At.After(due.Add(10*time.Millisecond)) || late > e.live.Hold()+20*time.Millisecond {
							t.Errorf("seed %d: room %d pinned at capture time %v, wall %v; deadline %v", seed, room, ev.At, pinnedWall[room], due)
						}
					}
				}
			}
		})
	}
}

func parseInt(s string) int64 {
	var n int64
	for _, c := range s {
		n = n*10 + int64(c-'0')
	}
	return n
}

func findScenario(t *testing.T, name string) *scenario {
	t.Helper()
	for _, sc := range loadScenarios(t) {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %s", name)
	return nil
}

// TestEngineClock: capture time follows the records while they come, and
// the wall clock, Hold after the last record, while none comes; a capture
// read much faster than it was taken (its records far behind the wall
// clock) never jumps ahead.
func TestEngineClock(t *testing.T) {
	sc := findScenario(t, "healthy")
	e := newEngine(t, sc.cfg, judge.Options{Deadline: sc.deadline}, observe.LiveOptions{Hold: 100 * time.Millisecond}, nil)
	if !e.Now(time.Now()).IsZero() {
		t.Fatal("capture time before the first record")
	}
	t0 := sc.records[0].t
	wall := t0.Add(24 * time.Hour) // read a day after it was taken
	for i, r := range sc.records[:10] {
		e.Record(r.t, wall)
		if i > 0 && !e.Now(wall).Equal(sc.records[i-1].t) {
			t.Fatalf("record %d: capture time %v, want the previous record's %v", i, e.Now(wall), sc.records[i-1].t)
		}
		e.Tick(wall.Add(50 * time.Millisecond)) // a pause shorter than Hold
		if e.Now(wall.Add(50 * time.Millisecond)).After(r.t) {
			t.Fatalf("record %d: capture time ran ahead in a short pause", i)
		}
	}
	last := sc.records[9].t
	if got := e.Now(wall.Add(100 * time.Millisecond)); !got.Equal(sc.records[8].t) {
		t.Fatalf("Hold after the last record: %v, want the one before's %v", got, sc.records[8].t)
	}
	if got := e.Now(wall.Add(101 * time.Millisecond)); !got.Equal(last.Add(time.Millisecond)) {
		t.Fatalf("just past Hold after the last record: %v, want %v", got, last.Add(time.Millisecond))
	}
	if got := e.Now(wall.Add(1100 * time.Millisecond)); !got.Equal(last.Add(time.Second)) {
		t.Fatalf("a second after that: %v, want %v", got, last.Add(time.Second))
	}
}

// TestEngineSilentWire: the wire falls silent after the last ABORT (no
// heartbeats, no packets) and the log after its last line: the pinned
// rooms are still reported, by the wall clock, within Hold and a tick of
// their deadline.
func TestEngineSilentWire(t *testing.T) {
	sc := findScenario(t, "storm-fork")
	var lastAbort time.Time
	for _, r := range sc.records {
		for _, o := range r.obs {
			if o.Kind == observe.Abort {
				lastAbort = r.t
			}
		}
	}
	const hold, tick = 250 * time.Millisecond, 50 * time.Millisecond
	var pinned []judge.Event
	var walls []time.Time
	var wall time.Time
	e := newEngine(t, sc.cfg, judge.Options{Deadline: sc.deadline, Log: true}, observe.LiveOptions{Hold: hold}, func(ev judge.Event) {
		if ev.Kind == judge.EventPinned {
			pinned = append(pinned, ev)
			walls = append(walls, wall)
		}
	})
	li := 0
	for _, r := range sc.records {
		if r.t.After(lastAbort) {
			break
		}
		wall = r.t
		for li < len(sc.log) && sc.log[li].Time.Before(r.t) {
			e.Log(sc.log[li], wall)
			li++
		}
		e.LogAtEnd(wall)
		e.Record(r.t, wall)
		for _, o := range r.obs {
			e.Wire(o, wall)
		}
	}
	// Prefill writes the rest of its log as it happens; then nothing.
	for ; li < len(sc.log); li++ {
		wall = sc.log[li].Time
		e.Log(sc.log[li], wall)
	}
	for end := wall.Add(2 * sc.deadline); wall.Before(end); wall = wall.Add(tick) {
		e.LogAtEnd(wall)
		e.Tick(wall)
	}
	if len(pinned) != len(sc.Pinned) {
		t.Fatalf("%d rooms reported pinned, want %v", len(pinned), sc.Pinned)
	}
	for i, ev := range pinned {
		due := ev.Room.AbortTime.Add(sc.deadline)
		if late := walls[i].Sub(due); late < 0 || late > hold+tick {
			t.Errorf("room %d reported %v after its deadline", ev.Room.Room, late)
		}
	}
}

// TestEngineQueueBound: with a log that never comes, messages wait for it
// only up to MaxQueued.
func TestEngineQueueBound(t *testing.T) {
	sc := findScenario(t, "healthy")
	e := newEngine(t, sc.cfg, judge.Options{Deadline: sc.deadline, Log: true}, observe.LiveOptions{MaxQueued: 5}, nil)
	n := 0
	for _, r := range sc.records {
		e.Record(r.t, r.t)
		for _, o := range r.obs {
			e.Wire(o, r.t)
			n++
		}
	}
	st := e.Stats()
	if st.Wire != n-5 || st.Forced != n-5 {
		t.Fatalf("%d messages: %d fed, %d forced; want %d", n, st.Wire, st.Forced, n-5)
	}
}
