package sglang

import (
	"syscall"
	"testing"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/subprocess"
)

// BenchmarkDefaultRun is what `roomspec test -impl sglang:SOURCE` spends
// once the code is resolved and probed: both properties at the default
// budget (the tour of every edge of the chosen configuration's graph,
// then 100 random cases each), on SGLang's real code under the harness,
// a fresh harness per run; and, as the reference measured in the same
// run, the same on the Python emulator of the same variant through the
// same protocol. Besides wall time it reports the CPU time of roomspec
// and its child processes (the machine is shared: wall time follows the
// load).
func BenchmarkDefaultRun(b *testing.B) {
	l := load(b, realSource(b), nil)
	dir, err := InstallHarness(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	real := conformance.Target{Name: "sglang:" + l.src.Label(), Config: l.config}
	emulator := conformance.Target{Name: "emulator", Config: l.config}
	var wall, cpu [2]time.Duration
	steps := 0
	for b.Loop() {
		for i, start := range []func() conformance.Implementation{
			func() conformance.Implementation {
				return (&Code{Source: l.src, Harness: dir}).Implementation(subprocess.Options{})
			},
			func() conformance.Implementation {
				return subprocess.New(needPython(b)+" ../python/prefill.py --variant "+emulatorVariant(l.variant), subprocess.Options{})
			},
		} {
			t := real
			if i == 1 {
				t = emulator
			}
			t.Impl = start()
			c0, w0 := cpuTime(), time.Now()
			for _, p := range []string{conformance.Refinement, conformance.Liveness} {
				r, err := t.Check(p, conformance.Options{Seed: 1})
				if err != nil || !r.Holds {
					b.Fatalf("%s %s: holds=%v err=%v", t.Name, p, r != nil && r.Holds, err)
				}
				if cov := r.Coverage; cov.EdgesTaken != cov.Edges {
					b.Fatalf("%s %s: %d of %d edges", t.Name, p, cov.EdgesTaken, cov.Edges)
				}
				if i == 0 {
					steps += r.Coverage.Tour.Steps
				}
			}
			if err := t.Impl.Close(); err != nil {
				b.Fatal(err)
			}
			wall[i] += time.Since(w0)
			cpu[i] += cpuTime() - c0
		}
	}
	n := float64(b.N)
	b.ReportMetric(wall[0].Seconds()/n, "s/run")
	b.ReportMetric(cpu[0].Seconds()/n, "cpu-s/run")
	b.ReportMetric(wall[1].Seconds()/n, "s/run-emulator")
	b.ReportMetric(float64(wall[0])/float64(wall[1]), "x-emulator")
	b.ReportMetric(float64(steps)/n, "tour-steps/run")
}

// emulatorVariant is the emulator's name for the code of a variant
// (upstream is adca19c4's code).
func emulatorVariant(v string) string {
	if v == "sglang-35360" {
		return "upstream"
	}
	return v
}

// cpuTime is the CPU time, user and system, of this process and of its
// children that have exited.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	d := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return d(self.Utime) + d(self.Stime) + d(children.Utime) + d(children.Stime)
}
