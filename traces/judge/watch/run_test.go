package watch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/source"
)

// TestRun watches scenario captures streamed from their files with their
// logs followed: the final verdicts are replay's, the pinned rooms are
// reported pinned (none under the fix), and the metrics count them.
func TestRun(t *testing.T) {
	for _, name := range []string{"storm-fork", "storm-fixed", "midstream-fork"} {
		t.Run(name, func(t *testing.T) {
			sc := findScenario(t, name)
			base := filepath.Join(scenarios.Dir(), name)
			f, err := os.Open(base + ".pcap")
			if err != nil {
				t.Fatal(err)
			}
			src, err := source.NewStream(f)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			follower := eventlog.NewFollower(base + ".events.jsonl")
			defer follower.Close()
			reg := prometheus.NewPedanticRegistry()
			m := NewMetrics(reg, nil)
			var events []judge.Event
			opt := judge.Options{Deadline: sc.deadline, Log: true}
			res, err := Run(context.Background(), Config{Variant: sc.cfg, Source: src, Log: follower,
				Judge: opt, Metrics: m, OnEvent: func(ev judge.Event) { events = append(events, ev) },
				Warn: func(err error) { t.Errorf("warning: %v", err) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stopped {
				t.Error("stopped, not ended")
			}
			var got []string
			pinned := 0
			for _, ev := range events {
				switch ev.Kind {
				case judge.EventVerdict:
					var b bytes.Buffer
					if err := judge.WriteEventJSON(&b, ev); err != nil {
						t.Fatal(err)
					}
					line := b.String()
					// The room object is replay's.
					i := strings.Index(line, `"room":{`)
					got = append(got, strings.TrimSuffix(strings.TrimSpace(line[i+len(`"room":`):]), "}"))
				case judge.EventPinned:
					pinned++
				}
			}
			slices.Sort(got)
			if d := cmp.Diff(sc.replayJSON(t, opt), got); d != "" {
				t.Errorf("verdicts differ from replay's (-replay +watch):\n%s", d)
			}
			violated := 0
			for _, v := range sc.WithLog {
				if v == "violated" {
					violated++
				}
			}
			if pinned != violated {
				t.Errorf("%d rooms reported pinned, want %d", pinned, violated)
			}
			if got := testutil.ToFloat64(m.judged.WithLabelValues("violated")); int(got) != violated {
				t.Errorf("rooms_judged_total{verdict=violated} = %v, want %d", got, violated)
			}
			if got := testutil.ToFloat64(m.alerts.WithLabelValues("pinned")); int(got) != violated {
				t.Errorf("alerts_total{event=pinned} = %v, want %d", got, violated)
			}
			if got := testutil.ToFloat64(m.pinned); got != 0 {
				t.Errorf("rooms_pinned = %v after the end", got)
			}
			if got := testutil.ToFloat64(m.Messages); got == 0 {
				t.Error("no message counted")
			}
			if n, err := testutil.GatherAndCount(reg); err != nil || n < 16 {
				t.Errorf("%d metrics gathered: %v", n, err)
			}
		})
	}
}

// TestRunStopped: a capture file still being written is watched until the
// context ends; then the rooms held are judged at the capture time
// reached.
func TestRunStopped(t *testing.T) {
	sc := findScenario(t, "storm-fork")
	data, err := os.ReadFile(filepath.Join(scenarios.Dir(), "storm-fork.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "live.pcap")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := source.OpenFile(ctx, path, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	runCtx, stop := context.WithCancel(context.Background())
	var verdicts int
	done := make(chan *Result)
	m := NewMetrics(prometheus.NewRegistry(), nil)
	go func() {
		res, err := Run(runCtx, Config{Variant: sc.cfg, Source: src, Judge: judge.Options{Deadline: sc.deadline},
			Metrics: m, OnEvent: func(ev judge.Event) {
				if ev.Kind == judge.EventVerdict {
					verdicts++
				}
			}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	// The whole file read (the source then waits for more), and a while.
	for deadline := time.Now().Add(10 * time.Second); testutil.ToFloat64(m.Packets) < float64(len(sc.records)); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%v of %d packets read in 10 s", testutil.ToFloat64(m.Packets), len(sc.records))
		}
	}
	time.Sleep(300 * time.Millisecond)
	stop()
	res := <-done
	if !res.Stopped || verdicts != len(sc.WithLog) || res.Report.Aborted != len(sc.WithLog) {
		t.Fatalf("stopped %v, %d verdicts, report %s; want %d aborted rooms", res.Stopped, verdicts, res.Report.Summary(), len(sc.WithLog))
	}
	if !res.Report.End.After(sc.end) {
		t.Errorf("judged at %v, not past the capture's last packet %v", res.Report.End, sc.end)
	}
}
