package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/roomspec/roomspec/internal/pcapcut"
	"github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
	"github.com/roomspec/roomspec/traces/source"
)

// TestStoppedWithLogAhead is issue 25's "watch stopped by SIGTERM with a
// log ahead of the stream exits 1 with invalid rooms": the capture file
// is still being written (only its first part is there) while the whole
// log is, and the watch is stopped. The log's lines past the capture
// time reached show rooms (and steps) the capture has not yet shown:
// they are not evidence against any room, so no room is invalid or
// violated (storm-fixed's aborted rooms are all released), and the run
// does not read as failed.
func TestStoppedWithLogAhead(t *testing.T) {
	sc := findScenario(t, "storm-fixed")
	base := filepath.Join(scenarios.Dir(), "storm-fixed")
	data, err := os.ReadFile(base + ".pcap")
	if err != nil {
		t.Fatal(err)
	}
	n, err := pcapcut.Count(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tenth := range []int{3, 5, 7} {
		at := n * tenth / 10
		parts, err := pcapcut.Cut(data, at)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "live.pcap")
		if err := os.WriteFile(path, parts[0], 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		src, err := source.OpenFile(ctx, path, 5*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		follower := eventlog.NewFollower(base + ".events.jsonl")
		runCtx, stop := context.WithCancel(context.Background())
		m := NewMetrics(prometheus.NewRegistry(), nil)
		var bad []string
		done := make(chan *Result, 1)
		go func() {
			// (A long Hold: capture time stays at the last record decoded,
			// however slowly the test runs, rather than going on with the
			// wall clock while the file waits for more.)
			res, err := Run(runCtx, Config{Variant: sc.cfg, Source: src, Log: follower, Judge: judge.Options{Deadline: sc.deadline, Log: true},
				Live: observe.LiveOptions{Hold: time.Minute}, Metrics: m, OnEvent: func(ev judge.Event) {
					if ev.Kind == judge.EventVerdict && (ev.Room.Verdict == judge.Invalid || ev.Room.Verdict == judge.Violated) {
						bad = append(bad, fmt.Sprintf("%s: room %d: %s", ev.Room.Verdict, ev.Room.Room, ev.Room.Reason))
					}
				}})
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		for deadline := time.Now().Add(10 * time.Second); testutil.ToFloat64(m.Packets) < float64(at); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%v of %d packets read in 10 s", testutil.ToFloat64(m.Packets), at)
			}
		}
		time.Sleep(100 * time.Millisecond)
		stop()
		res := <-done
		cancel()
		src.Close()
		follower.Close()
		if res == nil {
			continue
		}
		for _, b := range bad {
			t.Errorf("cut at %d of %d packets: %s", at, n, b)
		}
		if res.Report.Failed() {
			t.Errorf("cut at %d of %d packets: the stopped run fails: %s", at, n, res.Report.Summary())
		}
	}
}
