package replay

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
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

// BenchmarkSearch measures the search itself, which the large capture
// hardly exercises (it reuses 512 room ids, so after their first cycle its
// rooms are invalid and cost only bookkeeping): 1000 rooms, each following
// the healthy behaviour of the upstream spec, wire and log, interleaved
// 10 rooms at a time.
func BenchmarkSearch(b *testing.B) {
	c, err := model.LoadConfig(cfgText(b, "upstream"))
	if err != nil {
		b.Fatal(err)
	}
	w, l := observe(c, behaviour(b, c, healthy...))
	one := Merge(w, l)
	var obs []Observation
	for g := 0; g < 100; g++ {
		for _, o := range one {
			for k := 0; k < 10; k++ {
				o := o
				o.Room = int64(g*10 + k)
				o.Time = o.Time.Add(time.Duration(g) * time.Minute)
				obs = append(obs, o)
			}
		}
	}
	cfg := cfgText(b, "upstream")
	b.ResetTimer()
	for b.Loop() {
		r, err := New(cfg, Options{Log: true})
		if err != nil {
			b.Fatal(err)
		}
		for _, o := range obs {
			r.Observe(o)
		}
		rep := r.Finish(obs[len(obs)-1].Time)
		if n := rep.Count(Satisfied); n != 1000 {
			b.Fatalf("%d satisfied", n)
		}
	}
	b.ReportMetric(float64(len(obs))*float64(b.N)/b.Elapsed().Seconds(), "obs/s")
}
