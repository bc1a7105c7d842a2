package conformance

import (
	"os"
	"sort"
	"testing"
	"time"
)

// BenchmarkCases measures random cases per second, per property, on the
// fixed port (every case passes, so no shrinking is included; no tour).
func BenchmarkCases(b *testing.B) {
	for _, p := range []string{Refinement, Liveness} {
		b.Run(p, func(b *testing.B) {
			im, _, c := loadBuiltin(b, "fixed")
			cases := 0
			for i := range b.N {
				r, err := Target{Name: "fixed", Impl: im, Config: c}.Check(p, Options{Seed: int64(i + 1), Cases: 200, NoTour: true})
				if err != nil || !r.Holds {
					b.Fatalf("holds=%v err=%v", r.Holds, err)
				}
				cases += r.Cases
			}
			b.ReportMetric(float64(cases)/b.Elapsed().Seconds(), "cases/s")
		})
	}
}

// BenchmarkPythonCases is BenchmarkCases/refinement through the exec
// adapter.
func BenchmarkPythonCases(b *testing.B) {
	if _, err := os.Stat(python); err != nil {
		b.Skip("no python3")
	}
	c, err := LoadVariant("upstream")
	if err != nil {
		b.Fatal(err)
	}
	im := NewExec(python + " python/prefill.py")
	defer im.Close()
	cases := 0
	for i := range b.N {
		r, err := Target{Name: "exec:python", Impl: im, Config: c}.Check(Refinement, Options{Seed: int64(i + 1), Cases: 50, NoTour: true})
		if err != nil || !r.Holds {
			b.Fatalf("holds=%v err=%v", r.Holds, err)
		}
		cases += r.Cases
	}
	b.ReportMetric(float64(cases)/b.Elapsed().Seconds(), "cases/s")
}

// BenchmarkTour measures the tour of the fixed configuration's graph (393
// edges), per property, on the Go port and on the Python port through
// the exec adapter: steps per second, and the time of one tour (with one
// random case after it).
func BenchmarkTour(b *testing.B) {
	for _, impl := range []string{"go", "python"} {
		for _, p := range []string{Refinement, Liveness} {
			b.Run(impl+"/"+p, func(b *testing.B) {
				im, _, c := loadBuiltin(b, "fixed")
				if impl == "python" {
					if _, err := os.Stat(python); err != nil {
						b.Skip("no python3")
					}
					im = NewExec(python + " python/prefill.py --variant fixed")
					defer im.Close()
				}
				steps := 0
				for b.Loop() {
					r, err := Target{Name: impl, Impl: im, Config: c}.Check(p, Options{Seed: 1, Cases: 1})
					if err != nil || !r.Holds || r.Coverage.EdgesTaken != r.Coverage.Edges {
						b.Fatalf("holds=%v err=%v", r.Holds, err)
					}
					steps += r.Coverage.Tour.Steps + r.Coverage.Tour.QuiesceSteps
				}
				b.ReportMetric(float64(steps)/b.Elapsed().Seconds(), "steps/s")
				b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/tour")
			})
		}
	}
}

// BenchmarkFirstCounterexample measures, over 20 seeds, the median time
// from the start of a liveness run on fork-90a52f44a to its minimized
// counterexample: found by the tour (every seed the same), or, without
// it, by random cases (generation, gopter's shrinking and the
// 1-minimization) from 5 steps or from gopter's ramp from 0.
func BenchmarkFirstCounterexample(b *testing.B) {
	for _, bc := range []struct {
		name     string
		noTour   bool
		minSteps int
	}{{"tour", false, 0}, {"random/minsteps=0", true, -1}, {"random/minsteps=5", true, 5}} {
		b.Run(bc.name, func(b *testing.B) { benchFirst(b, bc.noTour, bc.minSteps) })
	}
}

func benchFirst(b *testing.B, noTour bool, minSteps int) {
	im, _, c := loadBuiltin(b, "fork-90a52f44a")
	var medians []float64
	for range b.N {
		times := make([]float64, 0, 20)
		for seed := int64(1); seed <= 20; seed++ {
			start := time.Now()
			r, err := Target{Name: "fork-90a52f44a", Impl: im, Config: c}.Check(Liveness, Options{Seed: seed, Cases: 10000, MinSteps: minSteps, NoTour: noTour})
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
