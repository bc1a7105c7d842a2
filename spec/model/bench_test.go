package model_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/internal/benchdata"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/eval"
)

// The largest bundled cfgs (about 30,000 states each).
var benchVariants = []string{"fixed-reuse", "upstream-reuse"}

// reachable returns the reachable states of a cfg in both representations.
func reachable(b *testing.B, name string) (*check.Model, *model.Config, []eval.State, []model.State) {
	m, c := variant(b, name)
	var is []eval.State
	seen := map[string]bool{}
	add := func(s eval.State) {
		if k := m.Spec.Format(s); !seen[k] {
			seen[k] = true
			is = append(is, s)
		}
	}
	if err := m.Spec.Init(m.Init, add); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < len(is); i++ {
		if err := m.Spec.Next(m.Next, is[i], func(t eval.State, _ *eval.Action) { add(t) }); err != nil {
			b.Fatal(err)
		}
	}
	var cs []model.State
	exploreFast(c, func(s *model.State) { cs = append(cs, *s) })
	if len(cs) != len(is) {
		b.Fatalf("%d compiled states, %d interpreted", len(cs), len(is))
	}
	runtime.GC()
	return m, c, is, cs
}

// BenchmarkSuccessors computes the successors of every reachable state;
// succ/s is the rate of successor generation.
func BenchmarkSuccessors(b *testing.B) {
	for _, name := range benchVariants {
		m, c, is, cs := reachable(b, name)
		b.Run(name+"/compiled", func(b *testing.B) {
			n := 0
			cpu := cpuTime()
			for b.Loop() {
				for i := range cs {
					c.Next(&cs[i], func(model.Action, *model.State) bool { n++; return false })
				}
			}
			report(b, n, cpu)
		})
		b.Run(name+"/interpreter", func(b *testing.B) {
			n := 0
			cpu := cpuTime()
			for b.Loop() {
				for _, s := range is {
					if err := m.Spec.Next(m.Next, s, func(eval.State, *eval.Action) { n++ }); err != nil {
						b.Fatal(err)
					}
				}
			}
			report(b, n, cpu)
		})
	}
}

// BenchmarkExplore is a full exhaustive breadth-first exploration with
// fingerprints (what a model checker's state search does, without
// properties), compiled and interpreted.
func BenchmarkExplore(b *testing.B) {
	for _, name := range benchVariants {
		m, c := variant(b, name)
		b.Run(name+"/compiled", func(b *testing.B) {
			var n int
			cpu := cpuTime()
			for b.Loop() {
				n = exploreFast(c, nil)
			}
			b.ReportMetric(float64(n), "states")
			b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
		// Without properties, so that the checker explores every state.
		bare := *m
		bare.Invariants, bare.Properties = nil, nil
		b.Run(name+"/interpreter", func(b *testing.B) {
			var n int
			cpu := cpuTime()
			for b.Loop() {
				r := check.Check(b.Context(), &bare, check.Options{Workers: 1})
				if r.Err != nil {
					b.Fatal(r.Err)
				}
				n = int(r.Distinct)
			}
			b.ReportMetric(float64(n), "states")
			b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// exploreFast is breadth-first search keyed by Hash, as a checker would
// do it with the compiled model.
func exploreFast(c *model.Config, visit func(*model.State)) int {
	seen := map[uint64]bool{}
	var queue []model.State
	c.Inits(func(s *model.State) bool {
		if h := s.Hash(); !seen[h] {
			seen[h] = true
			queue = append(queue, *s)
		}
		return false
	})
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		if visit != nil {
			visit(&s)
		}
		c.Next(&s, func(_ model.Action, t *model.State) bool {
			if h := t.Hash(); !seen[h] {
				seen[h] = true
				queue = append(queue, *t)
			}
			return false
		})
	}
	return len(seen)
}

// cpuTime is the process's user+system CPU time: on a loaded machine it
// measures the work done better than wall time (0 where not measured).
func cpuTime() time.Duration {
	t, _ := benchdata.CPUTime()
	return t
}

// report gives the successor rate per wall second and per CPU second.
func report(b *testing.B, n int, cpu0 time.Duration) {
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "succ/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)/cpu.Seconds(), "succ/cpu-s")
	}
}

// BenchmarkCodec runs what specrt does from the types' descriptions over
// every reachable state of the largest cfgs: fingerprints (Hash),
// comparisons (Equal), the interpreter's values (Values: what the
// checker's compiled successors build for each new state), printing
// (Format), and ITF written and read back. ns/state is per state.
func BenchmarkCodec(b *testing.B) {
	for _, name := range benchVariants {
		_, c := variant(b, name)
		var cs []model.State
		exploreFast(c, func(s *model.State) { cs = append(cs, *s) })
		copies := slices.Clone(cs)
		itf := make([]string, len(cs))
		for i := range cs {
			var w strings.Builder
			c.WriteITF(&w, &cs[i], 0)
			itf[i] = w.String()
		}
		perState := func(b *testing.B, f func(i int)) {
			for b.Loop() {
				for i := range cs {
					f(i)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(cs)), "ns/state")
		}
		var sink uint64
		b.Run(name+"/hash", func(b *testing.B) { perState(b, func(i int) { sink += cs[i].Hash() }) })
		b.Run(name+"/equal", func(b *testing.B) {
			perState(b, func(i int) {
				if !cs[i].Equal(&copies[i]) {
					b.Fatal("a state differs from its copy")
				}
			})
		})
		b.Run(name+"/values", func(b *testing.B) { perState(b, func(i int) { c.Values(&cs[i]) }) })
		b.Run(name+"/format", func(b *testing.B) { perState(b, func(i int) { sink += uint64(len(c.Format(&cs[i]))) }) })
		b.Run(name+"/itf", func(b *testing.B) {
			perState(b, func(i int) {
				var w strings.Builder
				c.WriteITF(&w, &cs[i], 0)
				if _, err := c.ReadITFState([]byte(itf[i])); err != nil {
					b.Fatal(err)
				}
			})
		})
		_ = sink
	}
}
