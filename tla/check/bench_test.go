package check

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/roomspec/roomspec/internal/benchdata"
	"github.com/roomspec/roomspec/internal/sharedpath"
)

// benchModel checks a shared model b.N times and reports states per second.
func benchModel(b *testing.B, dir, module, config string, workers int) {
	root := sharedpath.Require(b, "tla-examples")
	m := loadModel(b, filepath.Join(root, dir), module, config)
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	b.ResetTimer()
	var distinct int64
	for i := 0; i < b.N; i++ {
		r := Check(context.Background(), m, Options{Workers: workers})
		if r.Err != nil {
			b.Fatal(r.Err)
		}
		distinct = r.Distinct
	}
	b.ReportMetric(float64(distinct)*float64(b.N)/b.Elapsed().Seconds(), "states/s")
}

func BenchmarkTokenRing(b *testing.B) {
	benchModel(b, "ewd426--TokenRing", "TokenRing", "TokenRing.cfg", 0)
}

// BenchmarkPaxosCommit explores PaxosCommit's 1,321,761 states, too many for
// the default test run.
func BenchmarkPaxosCommit(b *testing.B) {
	benchModel(b, "transaction_commit--PaxosCommit", "PaxosCommit", "PaxosCommit.cfg", 0)
}

// BenchmarkWorkers checks a model with one worker and with two, one after
// the other in each iteration, and reports the ratio of their wall times
// (speedup: the goal on PaxosCommit is at least 1.7 on a 2-core machine
// with nothing else running), of their CPU times (cpu-speedup: below 1 by
// the extra work two workers do), and busy: the share of the Go processors' time
// the runtime had work for during the two-worker passes. busy says how
// much of the search runs in parallel whatever else the machine runs; on
// a loaded machine the wall-time speedup says how much CPU the others
// left. The final measurement is
//
//	go test ./tla/check -run '^$' -bench 'Workers/PaxosCommit' -benchtime 3x
func BenchmarkWorkers(b *testing.B) {
	for _, m := range []struct{ name, set, dir, module, config string }{
		{"PaxosCommit", "tla-examples", "transaction_commit--PaxosCommit", "PaxosCommit", "PaxosCommit.cfg"},
		{"TokenRing", "tla-examples", "ewd426--TokenRing", "TokenRing", "TokenRing.cfg"},
		{"FastPaxos", "tla-corpus", "SimplifiedFastPaxos--FastPaxos", "FastPaxos", "FastPaxos.cfg"},
	} {
		b.Run(m.name, func(b *testing.B) {
			model := loadModel(b, filepath.Join(sharedpath.Require(b, m.set), m.dir), m.module, m.config)
			// As roomspec check runs.
			defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
			var one, two benchdata.Timer
			var idle, total float64
			var distinct [2]int64
			for i := 0; i < b.N; i++ {
				for w, t := range []*benchdata.Timer{&one, &two} {
					i0, t0 := schedulerTime()
					t.Time(func() {
						r := Check(context.Background(), model, Options{Workers: w + 1})
						if r.Err != nil {
							b.Fatal(r.Err)
						}
						distinct[w] = r.Distinct
					})
					if i1, t1 := schedulerTime(); w == 1 {
						idle, total = idle+i1-i0, total+t1-t0
					}
				}
			}
			if distinct[0] != distinct[1] {
				b.Fatalf("one worker found %d states, two %d", distinct[0], distinct[1])
			}
			benchdata.Report(b, "one-worker", &one, "two-workers", &two, "speedup")
			if total > 0 {
				b.ReportMetric(1-idle/total, "busy")
			}
		})
	}
}

// schedulerTime returns the Go runtime's account of its processors' time
// so far: idle, and in total (as if each processor had a CPU).
func schedulerTime() (idle, total float64) {
	s := []metrics.Sample{{Name: "/cpu/classes/idle:cpu-seconds"}, {Name: "/cpu/classes/total:cpu-seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 || s[1].Value.Kind() != metrics.KindFloat64 {
		return 0, 0
	}
	return s[0].Value.Float64(), s[1].Value.Float64()
}
