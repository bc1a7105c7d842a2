package captured

import (
	"path/filepath"
	"testing"

	"github.com/roomspec/roomspec/conformance"
	scen "github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/traces/judge/explain"
)

func healthyRoom40(tb testing.TB, impl string) (conformance.Target, *Room) {
	im, variant, err := conformance.Builtin(impl)
	if err != nil {
		tb.Fatal(err)
	}
	c, err := conformance.LoadVariant(variant)
	if err != nil {
		tb.Fatal(err)
	}
	sc := scenario{name: "healthy-pinnable.pcap", path: filepath.Join(scen.Dir(), "healthy-pinnable.pcap")}
	for _, r := range rooms(tb, sc, c, false) {
		if r.Room == 40 {
			return conformance.Target{Name: impl, Impl: im, Config: c}, r
		}
	}
	tb.Fatal("no room 40")
	return conformance.Target{}, nil
}

// BenchmarkRoom checks room 40 of healthy-pinnable: under the fork to
// its first pin, under the fix on every schedule.
func BenchmarkRoom(b *testing.B) {
	for _, impl := range []string{"fork-90a52f44a", "fixed"} {
		b.Run(impl, func(b *testing.B) {
			t, room := healthyRoom40(b, impl)
			scheds := 0
			for b.Loop() {
				res, err := Run(t, room, Options{})
				if err != nil {
					b.Fatal(err)
				}
				scheds += res.Schedules
			}
			b.ReportMetric(float64(scheds)/b.Elapsed().Seconds(), "schedules/s")
		})
	}
}

// FuzzWalk: whatever the choices, a random schedule of a room is a
// behaviour of the spec that explains each of the room's observations at
// most once, and ends in the state its states say.
func FuzzWalk(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3})
	f.Add([]byte{7, 0})
	f.Add([]byte{3, 9, 9, 9, 9, 9, 9, 1})
	t, room := healthyRoom40(f, "fork-90a52f44a")
	finals, _ := room.Match.Explanations()
	f.Fuzz(func(tt *testing.T, data []byte) {
		choices := make([]int, len(data))
		for i, b := range data {
			choices[i] = int(b)
		}
		sc := room.Match.Walk(finals, choices)
		checkSchedule(tt, t, room.Match, sc)
	})
}

func checkSchedule(tb testing.TB, t conformance.Target, m *explain.Match, sc explain.Schedule) {
	c := t.Config
	if !conformance.Valid(c, sc.Actions) {
		tb.Fatalf("not a behaviour of the spec: %v", sc.Actions)
	}
	if len(sc.States) != len(sc.Actions)+1 || len(sc.Obs) != len(sc.Actions) {
		tb.Fatalf("%d states, %d actions, %d observations", len(sc.States), len(sc.Actions), len(sc.Obs))
	}
	seen := map[int]bool{}
	for i, j := range sc.Obs {
		for _, k := range append([]int{j}, sc.Also[i]...) {
			if k < 0 {
				continue
			}
			if seen[k] || k >= len(m.Hist) {
				tb.Fatalf("observation %d explained twice or out of range", k)
			}
			seen[k] = true
		}
	}
}

// Every enumerated schedule of the bundled rooms is a behaviour of the
// spec that explains each observation at most once.
func TestSchedulesAreBehaviours(t *testing.T) {
	for _, impl := range []string{"fork-90a52f44a", "fixed"} {
		target, room := healthyRoom40(t, impl)
		scheds, complete := room.Match.Schedules(DefaultMaxSchedules)
		if !complete || len(scheds) == 0 {
			t.Fatalf("%s: %d schedules, complete %v", impl, len(scheds), complete)
		}
		for _, sc := range scheds {
			checkSchedule(t, target, room.Match, sc)
		}
	}
}
