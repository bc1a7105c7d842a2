package judge

import (
	"bytes"
	"testing"
	"time"

	"github.com/roomspec/roomspec/internal/benchdata"
	"github.com/roomspec/roomspec/traces/decode"
)

func largeCapture(b *testing.B) []byte { return benchdata.LargeCapture(b) }

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

// BenchmarkReplay decodes the large capture and replays every room from
// the wire (variant fixed-deferred, whose ABORT_ACKs the capture has):
// the capture is valid room traffic, so every room must be explained.
func BenchmarkReplay(b *testing.B) {
	data := largeCapture(b)
	cfg := variantConfig(b, "fixed-deferred")
	b.SetBytes(int64(len(data)))
	msgs := 0
	for b.Loop() {
		r, err := New(cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		most := 0
		sum, err := decode.Run(bytes.NewReader(data), decode.Options{Reuse: true}, func(m *decode.Message) {
			if o, ok := FromMessage(m); ok {
				r.Step(o)
				r.Ready()
				most = max(most, r.Stats().Held)
			}
		}, nil)
		if err != nil {
			b.Fatal(err)
		}
		rep := r.Finish(sum.End)
		if n := rep.Count(Invalid); n > 0 {
			b.Fatalf("%d of %d rooms invalid", n, rep.Total)
		}
		msgs += sum.Messages
		b.ReportMetric(float64(rep.Total), "rooms")
		b.ReportMetric(float64(most), "held")
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkRatio runs decode-only and the replay of BenchmarkReplay on the
// large capture in each iteration and reports replay's throughput as a
// fraction of decode-only's (throughput-ratio = decode time / replay
// time, in wall and in CPU time of the whole process, the garbage
// collector included): the target is at least 0.5.
func BenchmarkRatio(b *testing.B) {
	data := largeCapture(b)
	cfg := variantConfig(b, "fixed-deferred")
	var dec, rep benchdata.Timer
	msgs := 0
	for b.Loop() {
		dec.Time(func() {
			if _, err := decode.Run(bytes.NewReader(data), decode.Options{Reuse: true}, func(*decode.Message) {}, nil); err != nil {
				b.Fatal(err)
			}
		})
		rep.Time(func() {
			r, err := New(cfg, Options{})
			if err != nil {
				b.Fatal(err)
			}
			sum, err := decode.Run(bytes.NewReader(data), decode.Options{Reuse: true}, func(m *decode.Message) {
				if o, ok := FromMessage(m); ok {
					r.Step(o)
					r.Ready()
				}
			}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if rep := r.Finish(sum.End); rep.Count(Invalid) > 0 {
				b.Fatalf("%d rooms invalid", rep.Count(Invalid))
			}
			msgs += sum.Messages
		})
	}
	// Throughput ratio: decode time / replay time.
	benchdata.Report(b, "decode", &dec, "replay", &rep, "throughput-ratio")
	b.ReportMetric(float64(msgs)/rep.Wall.Seconds(), "msgs/s")
}

// BenchmarkSearch measures replay on rooms that follow one pattern, wire
// and log: 1000 rooms, each following the healthy behaviour of the
// upstream spec, interleaved 10 rooms at a time.
func BenchmarkSearch(b *testing.B) {
	c, err := variantConfig(b, "upstream"), error(nil)
	if err != nil {
		b.Fatal(err)
	}
	w, l := observations(c, behaviour(b, c, healthy...))
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
	cfg := variantConfig(b, "upstream")
	b.ResetTimer()
	for b.Loop() {
		rep := judgeReported(b, cfg, Options{Log: true}, obs, obs[len(obs)-1].Time)
		if n := rep.Count(Satisfied); n != 1000 {
			b.Fatalf("%d satisfied", n)
		}
	}
	b.ReportMetric(float64(len(obs))*float64(b.N)/b.Elapsed().Seconds(), "obs/s")
}
