package captured

import (
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// stormRoom returns room id of the storm-fork capture under variant.
func stormRoom(tb testing.TB, variant string, id int64) (*model.Config, *Room) {
	tb.Helper()
	c, err := conformance.LoadVariant(variant)
	if err != nil {
		tb.Fatal(err)
	}
	obs, err := LoadCapture(filepath.Join("..", "..", "traces", "testdata", "scenarios", "storm-fork.pcap"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range Rooms(c, "storm-fork.pcap", obs) {
		if r.Room == id {
			return c, r
		}
	}
	tb.Fatalf("no room %d", id)
	return nil, nil
}

// stormLogRoom returns room id of storm-fork with its event log merged in.
func stormLogRoom(tb testing.TB, c *model.Config, id int64) *Room {
	tb.Helper()
	dir := filepath.Join("..", "..", "traces", "testdata", "scenarios")
	wire, err := LoadCapture(filepath.Join(dir, "storm-fork.pcap"))
	if err != nil {
		tb.Fatal(err)
	}
	logObs, err := LoadEventLog(filepath.Join(dir, "storm-fork.events.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range Rooms(c, "storm-fork.pcap", observe.Merge(wire, logObs)) {
		if r.Room == id && r.Log {
			return r
		}
	}
	tb.Fatalf("no room %d with log events", id)
	return nil
}

// checkSchedule fails unless sc is a behaviour of the spec that takes
// every event of room exactly once, each connection's events in order.
func checkSchedule(t testing.TB, c *model.Config, room *Room, sc Schedule) {
	t.Helper()
	if !conformance.Valid(c, sc.Seq) {
		t.Fatalf("schedule is not a behaviour of the spec: %v", sc.Seq)
	}
	pos := map[int]int{}
	put := func(ev, i int) {
		if _, dup := pos[ev]; dup {
			t.Fatalf("event %d taken twice", ev)
		}
		pos[ev] = i
	}
	for i, ev := range sc.Event {
		if ev >= 0 {
			put(ev, i)
			if room.Events[ev].Log == nil && sc.Seq[i] != room.Events[ev].Action {
				t.Fatalf("step %d is event %d but takes another action", i, ev)
			}
			for _, j := range sc.Also[i] {
				put(j, i)
			}
		}
	}
	for _, ev := range sc.Quiet {
		put(ev, -1) // a quiet poll: its place is not recorded
	}
	if !logConsistent(c, room, sc) {
		t.Fatalf("schedule does not leave the room's log lines")
	}
	if len(pos) != len(room.Events) {
		t.Fatalf("%d of %d events taken", len(pos), len(room.Events))
	}
	for i := range room.Events {
		for j := range i {
			if conn(&room.Events[i]) == conn(&room.Events[j]) && pos[j] > pos[i] && pos[i] >= 0 {
				t.Fatalf("events %d and %d of one connection swapped", j, i)
			}
		}
	}
}

// TestCapturedSkew: room 102's two TransferInfos arrive 11 µs apart on
// different connections, so relaxed mode may swap them and strict mode
// (or a skew below 11 µs) may not; its ABORT shares a connection with the
// first TransferInfo, so never goes first.
func TestCapturedSkew(t *testing.T) {
	c, room := stormRoom(t, "fork-90a52f44a", 102)
	if len(room.Events) != 3 || conn(&room.Events[0]) == conn(&room.Events[1]) || conn(&room.Events[0]) != conn(&room.Events[2]) {
		t.Fatalf("room 102 events are not as this test expects: %+v", room.Events)
	}
	gap := room.Events[1].Time.Sub(room.Events[0].Time)
	for _, tc := range []struct {
		skew time.Duration
		swap bool
	}{{DefaultSkew, true}, {-1, false}, {gap / 2, false}, {gap + time.Microsecond, true}} {
		b := &scheduler{c: c, room: room, skew: tc.skew}
		rng := rand.New(rand.NewSource(1))
		swapped := false
		for range 2000 {
			choices := make([]int, rng.Intn(12))
			for i := range choices {
				choices[i] = rng.Intn(64)
			}
			sc, ok := b.build(choices)
			if !ok {
				t.Fatalf("skew %v: choices %v: no schedule", tc.skew, choices)
			}
			checkSchedule(t, c, room, sc)
			for _, ev := range sc.Event {
				if ev >= 0 {
					swapped = swapped || ev == 1
					break
				}
			}
		}
		if swapped != tc.swap {
			t.Errorf("skew %v: TransferInfos swapped in some schedule = %v, want %v", tc.skew, swapped, tc.swap)
		}
	}
}

// FuzzCapturedSchedule: any choices give either no schedule or one that
// keeps the capture's events (checkSchedule); never a panic.
func FuzzCapturedSchedule(f *testing.F) {
	c, room := stormRoom(f, "fork-90a52f44a", 102)
	logRoom := stormLogRoom(f, c, 102)
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{1, 5, 9, 63, 2, 2, 2, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		choices := make([]int, len(data))
		for i, d := range data {
			choices[i] = int(d)
		}
		for _, r := range []*Room{room, logRoom} {
			for _, skew := range []time.Duration{DefaultSkew, -1} {
				b := &scheduler{c: c, room: r, skew: skew}
				if sc, ok := b.build(choices); ok {
					checkSchedule(t, c, r, sc)
				}
			}
		}
	})
}

// BenchmarkCapturedSchedule: one schedule of storm-fork room 102 built
// and checked for both properties under fixed (schedules per second).
func BenchmarkCapturedSchedule(b *testing.B) {
	c, room := stormRoom(b, "fixed", 102)
	impl, _, err := conformance.Builtin("fixed")
	if err != nil {
		b.Fatal(err)
	}
	s := &scheduler{c: c, room: room, skew: DefaultSkew}
	live, ref := Fails(impl, c, conformance.Liveness, conformance.DefaultBound), Fails(impl, c, conformance.Refinement, conformance.DefaultBound)
	rng := rand.New(rand.NewSource(1))
	choices := make([]int, 20)
	b.ReportAllocs()
	for b.Loop() {
		for i := range choices {
			choices[i] = rng.Intn(64)
		}
		sc, _ := s.build(choices)
		if live(sc.Seq) || ref(sc.Seq) {
			b.Fatal("fixed fails")
		}
	}
}

// BenchmarkCapturedFirstPin: the time to the first pinned schedule of the
// healthy-pinnable capture's aborted room under fork-90a52f44a (Run with
// the generation, the check and the minimization).
func BenchmarkCapturedFirstPin(b *testing.B) {
	impl, variant, err := conformance.Builtin("fork-90a52f44a")
	if err != nil {
		b.Fatal(err)
	}
	c, err := conformance.LoadVariant(variant)
	if err != nil {
		b.Fatal(err)
	}
	obs, err := LoadCapture(filepath.Join("..", "..", "traces", "testdata", "scenarios", "healthy-pinnable.pcap"))
	if err != nil {
		b.Fatal(err)
	}
	var room *Room
	for _, r := range Rooms(c, "healthy-pinnable.pcap", obs) {
		if r.Aborted {
			room = r
		}
	}
	var first time.Duration
	n := 0
	for b.Loop() {
		res, err := Run(target(impl, "fork-90a52f44a", variant, c), room, Options{Seed: int64(n), Cases: 3000})
		if err != nil || res.Holds {
			b.Fatalf("seed %d: no pin (err %v)", n, err)
		}
		first += res.FirstFail
		n++
	}
	b.ReportMetric(float64(first.Microseconds())/float64(n), "µs/first-pin")
}
