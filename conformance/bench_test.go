package conformance

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec"
)

// BenchmarkCases measures generated cases per second, per property, on the
// fixed port (every case passes, so no shrinking is included).
func BenchmarkCases(b *testing.B) {
	for _, p := range []string{Refinement, Liveness} {
		b.Run(p, func(b *testing.B) {
			im, _, c := loadBuiltin(b, "fixed")
			cases := 0
			for i := range b.N {
				r, err := Target{Name: "fixed", Impl: im, Config: c}.Check(p, Options{Seed: int64(i + 1), Cases: 200})
				if err != nil || !r.Holds {
					b.Fatalf("holds=%v err=%v", r.Holds, err)
				}
				cases += r.Cases
			}
			b.ReportMetric(float64(cases)/b.Elapsed().Seconds(), "cases/s")
		})
	}
}

// BenchmarkPythonCases is BenchmarkCases through the exec adapter.
func BenchmarkPythonCases(b *testing.B) {
	if _, err := os.Stat(python); err != nil {
		b.Skip("no python3")
	}
	c, err := spec.Compiled("upstream")
	if err != nil {
		b.Fatal(err)
	}
	im := NewExec(python + " python/prefill.py")
	defer im.Close()
	cases := 0
	for i := range b.N {
		r, err := Target{Name: "exec:python", Impl: im, Config: c}.Check(Refinement, Options{Seed: int64(i + 1), Cases: 50})
		if err != nil || !r.Holds {
			b.Fatalf("holds=%v err=%v", r.Holds, err)
		}
		cases += r.Cases
	}
	b.ReportMetric(float64(cases)/b.Elapsed().Seconds(), "cases/s")
}

// BenchmarkFirstCounterexample measures, over 20 seeds, the median time
// from the start of a liveness run on fork-90a52f44a to its minimized
// counterexample (generation, gopter's shrinking and the 1-minimization).
func BenchmarkFirstCounterexample(b *testing.B) {
	for _, minSteps := range []int{-1, 5} {
		b.Run(fmt.Sprintf("minsteps=%d", minSteps), func(b *testing.B) { benchFirst(b, minSteps) })
	}
}

func benchFirst(b *testing.B, minSteps int) {
	im, _, c := loadBuiltin(b, "fork-90a52f44a")
	var medians []float64
	for range b.N {
		times := make([]float64, 0, 20)
		for seed := int64(1); seed <= 20; seed++ {
			start := time.Now()
			r, err := Target{Name: "fork-90a52f44a", Impl: im, Config: c}.Check(Liveness, Options{Seed: seed, Cases: 10000, MinSteps: minSteps})
			if err != nil || r.Holds {
				b.Fatalf("seed %d: holds=%v err=%v", seed, r.Holds, err)
			}
			times = append(times, float64(time.Since(start).Microseconds())/1000)
		}
		sort.Float64s(times)
		medians = append(medians, (times[9]+times[10])/2)
	}
	sort.Float64s(medians)
	b.ReportMetric(medians[len(medians)/2], "ms-median/20-seeds")
}
