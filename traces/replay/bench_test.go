package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/traces/decode"
)

// largeCapture returns the decoding issue's benchmark capture (made by
// "make_captures.py --large N", not committed), or skips.
func largeCapture(b *testing.B) []byte {
	b.Helper()
	best := os.Getenv("ROOMSPEC_LARGE")
	if best == "" {
		files, _ := filepath.Glob("../testdata/large/large_*.pcap")
		fewest := -1
		for _, f := range files {
			var n int
			if _, err := fmt.Sscanf(filepath.Base(f), "large_%d.pcap", &n); err == nil && (fewest < 0 || n < fewest) {
				best, fewest = f, n
			}
		}
	}
	if best == "" {
		b.Skip("no ../testdata/large/large_*.pcap; make one with: sudo /usr/bin/python3 traces/testdata/make_captures.py --large 1000000")
	}
	data, err := os.ReadFile(best)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecodeOnly is the decoding the replay runs on, alone (as the
// CLI runs it, with Options.Reuse): the reference for BenchmarkReplay.
func BenchmarkDecodeOnly(b *testing.B) {
	data := largeCapture(b)
	b.SetBytes(int64(len(data)))
	msgs := 0
	for b.Loop() {
		sum, err := decode.Run(bytes.NewReader(data), decode.Options{Reuse: true}, func(*decode.Message) {}, nil)
		if err != nil {
			b.Fatal(err)
		}
		msgs += sum.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkReplay decodes the large capture and replays every room
// (wire only, fork variant).
func BenchmarkReplay(b *testing.B) {
	data := largeCapture(b)
	cfg, err := spec.Config("fork-90a52f44a")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	msgs := 0
	for b.Loop() {
		r, err := New(cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		sum, err := decode.Run(bytes.NewReader(data), decode.Options{Reuse: true}, func(m *decode.Message) {
			if o, ok := FromMessage(m); ok {
				r.Observe(o)
			}
		}, nil)
		if err != nil {
			b.Fatal(err)
		}
		rep := r.Finish(time.Time{})
		msgs += sum.Messages
		b.ReportMetric(float64(len(rep.Rooms)), "rooms")
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}
