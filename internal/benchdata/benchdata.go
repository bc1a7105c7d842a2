// Package benchdata holds what the benchmarks of several packages share:
// the large benchmark capture, which is made on demand and never
// committed, and the process's CPU time, which ratios of whole passes are
// measured in.
package benchdata

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// LargeCapture returns the large benchmark capture (made by
// "make_captures.py --large N" into traces/testdata/large, not
// committed), or skips tb. Of several, the one with the fewest messages
// is used (the 10x capture is for whole-process runs); ROOMSPEC_LARGE
// names another file.
func LargeCapture(tb testing.TB) []byte {
	tb.Helper()
	best := os.Getenv("ROOMSPEC_LARGE")
	if best == "" {
		_, file, _, _ := runtime.Caller(0)
		dir := filepath.Join(filepath.Dir(file), "..", "..", "traces", "testdata", "large")
		files, _ := filepath.Glob(filepath.Join(dir, "large_*.pcap"))
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
