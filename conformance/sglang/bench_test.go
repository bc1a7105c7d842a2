package sglang

import (
	"testing"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/subprocess"
)

// benchTargets are the code under the harness (SGLang's real code, which
// ROOMSPEC_SGLANG names; skipped without it) and, as the reference
// measured in the same run, the Python emulator conformance/python/prefill.py
// of the same variant through the same exec protocol.
func benchTargets(b *testing.B) (real, emulator conformance.Target) {
	l := load(b, realSource(b), nil)
	em := subprocess.New(needPython(b)+" ../python/prefill.py --variant "+emulatorVariant(l.variant), subprocess.Options{})
	b.Cleanup(func() { em.Close() })
	real = conformance.Target{Name: "sglang:" + l.src.Label(), Impl: l.impl, Config: l.config}
	emulator = conformance.Target{Name: "emulator", Impl: em, Config: l.config}
	return real, emulator
}

// BenchmarkReset times one reset (with the observation that follows it) of
// the code under the harness: its real threads stopped, a new manager
// built, decode's ranks registered through the real bootstrap thread.
func BenchmarkReset(b *testing.B) {
	real, emulator := benchTargets(b)
	var tReal, tEmu time.Duration
	for b.Loop() {
		for _, x := range []struct {
			t *conformance.Target
			d *time.Duration
		}{{&real, &tReal}, {&emulator, &tEmu}} {
			start := time.Now()
			if err := x.t.Impl.Reset(x.t.Config); err != nil {
				b.Fatal(err)
			}
			if _, err := x.t.Impl.Observe(); err != nil {
				b.Fatal(err)
			}
			*x.d += time.Since(start)
		}
	}
	b.ReportMetric(float64(tReal.Microseconds())/1000/float64(b.N), "ms/reset")
	b.ReportMetric(float64(tEmu.Microseconds())/1000/float64(b.N), "ms/reset-emulator")
	b.ReportMetric(float64(tReal)/float64(tEmu), "x-emulator")
}

// BenchmarkCases runs 20 refinement cases per iteration on the code under
// the harness and on the emulator: cases per second, and the ratio.
func BenchmarkCases(b *testing.B) {
	real, emulator := benchTargets(b)
	var tReal, tEmu time.Duration
	cases, seed := 0, int64(0)
	for b.Loop() {
		seed++
		for _, x := range []struct {
			t *conformance.Target
			d *time.Duration
		}{{&real, &tReal}, {&emulator, &tEmu}} {
			start := time.Now()
			r, err := x.t.Check(conformance.Refinement, conformance.Options{Seed: seed, Cases: 20})
			if err != nil || !r.Holds {
				b.Fatalf("%s: holds=%v err=%v", x.t.Name, r.Holds, err)
			}
			*x.d += time.Since(start)
			if x.t == &real {
				cases += r.Cases
			}
		}
	}
	b.ReportMetric(float64(cases)/tReal.Seconds(), "cases/s")
	b.ReportMetric(float64(cases)/tEmu.Seconds(), "cases/s-emulator")
	b.ReportMetric(float64(tReal)/float64(tEmu), "x-emulator")
}
