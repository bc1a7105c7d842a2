// Package benchdata holds what the benchmarks and scale tests of several
// packages share: the large captures, which are made on demand and never
// committed, and the process's CPU time, which ratios of whole passes are
// measured in.
package benchdata

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// largeDir is traces/testdata/large, where the uncommitted captures go.
func largeDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "traces", "testdata", "large")
}

// RoomsCaptures returns the captures of many distinct rooms made by
// "make_captures.py --rooms N" (not committed), or skips tb.
func RoomsCaptures(tb testing.TB) []string {
	tb.Helper()
	paths, _ := filepath.Glob(filepath.Join(largeDir(), "rooms_*.pcap"))
	if len(paths) == 0 {
		tb.Skip("no traces/testdata/large/rooms_N.pcap: make one with sudo /usr/bin/python3 traces/testdata/make_captures.py --rooms 10000")
	}
	return paths
}

// LargeCapture returns the large benchmark capture (made by
// "make_captures.py --large N" into traces/testdata/large, not
// committed), or skips tb. Of several, the one with the fewest messages
// is used (the 10x capture is for whole-process runs); ROOMSPEC_LARGE
// names another file.
func LargeCapture(tb testing.TB) []byte {
	tb.Helper()
	best := os.Getenv("ROOMSPEC_LARGE")
	if best == "" {
		files, _ := filepath.Glob(filepath.Join(largeDir(), "large_*.pcap"))
		fewest := -1
		for _, f := range files {
			var n int
			if _, err := fmt.Sscanf(filepath.Base(f), "large_%d.pcap", &n); err == nil && (fewest < 0 || n < fewest) {
				best, fewest = f, n
			}
		}
	}
	if best == "" {
		tb.Skip("no traces/testdata/large/large_*.pcap; make one with: sudo /usr/bin/python3 traces/testdata/make_captures.py --large 1000000")
	}
	data, err := os.ReadFile(best)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// Timer adds up the wall and process CPU time of passes, for benchmarks
// that compare two kinds of pass run in the same iterations.
type Timer struct {
	Wall, CPU time.Duration
	// NoCPU says CPU time was not measured (not a unix system).
	NoCPU bool
	// Allocs and Bytes count the heap allocations the passes made (the
	// whole process's, as testing.B's -benchmem counts them).
	Allocs, Bytes uint64
}

// Time runs pass after a garbage collection (so that one pass does not
// pay for another's garbage) and adds its times and allocations.
func (t *Timer) Time(pass func()) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0, ok0 := CPUTime()
	t0 := time.Now()
	pass()
	t.Wall += time.Since(t0)
	c1, ok1 := CPUTime()
	runtime.ReadMemStats(&m1)
	t.CPU += c1 - c0
	t.NoCPU = t.NoCPU || !ok0 || !ok1
	t.Allocs += m1.Mallocs - m0.Mallocs
	t.Bytes += m1.TotalAlloc - m0.TotalAlloc
}

// Report reports the per-iteration times of a and b as name-s and
// name-cpu-s, and their ratio a/b as ratio and cpu-ratio (ratio names
// the metric), over b.N iterations.
func Report(b *testing.B, aName string, a *Timer, bName string, bt *Timer, ratio string) {
	n := float64(b.N)
	b.ReportMetric(a.Wall.Seconds()/n, aName+"-s")
	b.ReportMetric(bt.Wall.Seconds()/n, bName+"-s")
	b.ReportMetric(a.Wall.Seconds()/bt.Wall.Seconds(), ratio)
	if !a.NoCPU && !bt.NoCPU && bt.CPU > 0 {
		b.ReportMetric(a.CPU.Seconds()/n, aName+"-cpu-s")
		b.ReportMetric(bt.CPU.Seconds()/n, bName+"-cpu-s")
		b.ReportMetric(a.CPU.Seconds()/bt.CPU.Seconds(), "cpu-"+ratio)
	}
}
