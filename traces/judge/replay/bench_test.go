package replay_test

import (
	"io"
	"testing"

	"github.com/roomspec/roomspec/internal/benchdata"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/replay"
)

// BenchmarkHalfGreetings replays (as roomspec replay does: one capture,
// one judge, no log) the captures of decode's BenchmarkHalfGreetings:
// 10k, 100k and 1M connections stopped in the middle of their greeting
// and still open when the capture ends, one ABORT on a live ZeroMQ
// connection per 1000 of them (benchdata.HalfGreetings). It reports the
// time per connection of each size and the ratios to 10k's ("100k/10k",
// "1M/10k", "cpu-..." in process CPU time: issue 25 wants 1M/10k <= 1.5),
// and the heap held when the capture's last packet has been read
// ("held-MB-L": issue 25 wants it under 500 MB). Run it with
//
//	go test ./traces/judge/replay -run '^$' -bench HalfGreetings -benchtime 2x
//
// Whole-process figures (peak RSS without the benchmark's captures in
// memory) come from the same capture written to a file: go run
// ./internal/benchdata/halfgreetings -n 1000000 -o FILE.
func BenchmarkHalfGreetings(b *testing.B) {
	cfg, err := spec.Compiled("upstream")
	if err != nil {
		b.Fatal(err)
	}
	benchdata.BenchHalfGreetings(b, func(r io.Reader, sz benchdata.ConnSize) {
		j, err := judge.New(cfg, judge.Options{})
		if err != nil {
			b.Fatal(err)
		}
		in := replay.Input{Captures: []replay.Capture{replay.Reader("half.pcap", r)}}
		res, err := replay.Run(in, []*judge.Judge{j}, func(int, judge.Event) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		if sum := res.Files[0].Summary; sum.Connections != sz.N+1 || sum.Messages != sz.N/1000 {
			b.Fatalf("%d connections, %d messages; want %d and %d", sum.Connections, sum.Messages, sz.N+1, sz.N/1000)
		}
	})
}
