package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/roomspec/roomspec/internal/scenarios"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/source"
)

// watchFile watches the capture at path (streamed from the file) with
// the scenario's variant and deadline, following logPath if not "", and
// returns the metrics' registry and the run's error.
func watchFile(t *testing.T, sc *scenario, path, logPath string) (*Metrics, prometheus.Gatherer, error) {
	t.Helper()
	src := streamFile(t, path)
	reg := prometheus.NewPedanticRegistry()
	m := NewMetrics(reg, nil)
	cfg := Config{Variant: sc.cfg, Source: src, Judge: judge.Options{Deadline: sc.deadline}, Metrics: m}
	if logPath != "" {
		follower := eventlog.NewFollower(logPath)
		defer follower.Close()
		cfg.Log, cfg.Judge.Log = follower, true
	}
	_, err := Run(context.Background(), cfg)
	return m, reg, err
}

// TestMetricsLogFit: the log's fit to the capture is in the metrics, as
// replay's report says it: the offset measured on the rooms that give
// one, the log's span and lines; a log of another run is refused, and
// the metrics say so.
func TestMetricsLogFit(t *testing.T) {
	sc := findScenario(t, "storm-fork")
	base := filepath.Join(scenarios.Dir(), "storm-fork")
	m, reg, err := watchFile(t, sc, base+".pcap", base+".events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if n := testutil.ToFloat64(m.logOffsetRooms); n < 5 {
		t.Errorf("roomspec_log_offset_rooms %v, want the storm's rooms with an offset (8)", n)
	}
	// On one node, the log's WaitingForInput follows the TransferInfo
	// within a millisecond.
	if o := testutil.ToFloat64(m.logOffset.WithLabelValues("median")); o <= 0 || o > 0.005 {
		t.Errorf("roomspec_log_offset_seconds{stat=median} %v, want a fraction of a millisecond", o)
	}
	if lo, hi := testutil.ToFloat64(m.logOffset.WithLabelValues("min")), testutil.ToFloat64(m.logOffset.WithLabelValues("max")); lo > hi || lo <= 0 {
		t.Errorf("roomspec_log_offset_seconds min %v max %v", lo, hi)
	}
	if first, last := testutil.ToFloat64(m.logFirstLine), testutil.ToFloat64(m.logLastLine); first != 1 || last < 60 {
		t.Errorf("roomspec_log_first_line %v, roomspec_log_last_line %v: want 1 and the log's last", first, last)
	}
	if a, b := testutil.ToFloat64(m.logFirst), testutil.ToFloat64(m.logLast); a < 1e9 || b < a {
		t.Errorf("roomspec_log_{first,last}_line_time_seconds %v, %v", a, b)
	}
	for name, g := range map[string]prometheus.Gauge{"log_refused": m.logRefused, "log_ended_before_capture": m.logEnded, "log_inconclusive_rooms": m.logDoubted} {
		if v := testutil.ToFloat64(g); v != 0 {
			t.Errorf("roomspec_%s %v, want 0", name, v)
		}
	}
	if n, err := testutil.GatherAndCount(reg, "roomspec_log_offset_seconds", "roomspec_log_refused", "roomspec_log_ended_before_capture", "roomspec_log_inconclusive_rooms", "roomspec_log_first_line_time_seconds"); err != nil || n != 7 {
		t.Errorf("%d log-fit series gathered (%v), want 7", n, err)
	}

	// Another scenario's log on this capture: refused, and said.
	m, _, err = watchFile(t, sc, base+".pcap", filepath.Join(scenarios.Dir(), "healthy.events.jsonl"))
	if err == nil {
		t.Fatal("another run's log was not refused")
	}
	if v := testutil.ToFloat64(m.logRefused); v != 1 {
		t.Errorf("roomspec_log_refused %v after %v, want 1", v, err)
	}
}

// TestMetricsDamage: each kind of damage of a capture (the inputs of
// traces/testdata/make_damaged.py, made from storm-fixed) is counted in
// roomspec_capture_damage_total by kind, every occurrence (decode says
// only the first of a kind).
func TestMetricsDamage(t *testing.T) {
	sc := findScenario(t, "storm-fixed")
	for _, tc := range []struct {
		file, kind string
		want       float64 // 0: at least one
	}{
		{"snaplen.pcap", "snaplen", 20},
		{"retransmit.pcap", "retransmission-conflict", 12},
		{"timejump.pcap", "time-jump", 2},
		{"linktype.pcap", "link-type", 0},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			m, _, err := watchFile(t, sc, filepath.Join(scenarios.Dir(), "..", "damaged", tc.file), "")
			if err != nil {
				t.Fatal(err)
			}
			got := testutil.ToFloat64(m.damage.WithLabelValues(tc.kind))
			if tc.want == 0 && got < 1 || tc.want != 0 && got != tc.want {
				t.Errorf("roomspec_capture_damage_total{kind=%q} %v, want %v", tc.kind, got, tc.want)
			}
		})
	}
	m, _, err := watchFile(t, sc, sc.Capture(), "")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range damageKinds {
		if v := testutil.ToFloat64(m.damage.WithLabelValues(string(k))); v != 0 {
			t.Errorf("the whole capture: roomspec_capture_damage_total{kind=%q} %v", k, v)
		}
	}
}

// stalledSource is a source that says it has been stalled for a while.
type stalledSource struct {
	source.Source
	for_ time.Duration
}

func (s stalledSource) Stalled() time.Duration { return s.for_ }

// TestMetricsStall: a source that stalls (watch DIR: files written and
// no packet read) is a metric, not only a line on stderr.
func TestMetricsStall(t *testing.T) {
	sc := findScenario(t, "healthy")
	src := streamFile(t, sc.Capture())
	reg := prometheus.NewPedanticRegistry()
	m := NewMetrics(reg, nil)
	if _, err := Run(context.Background(), Config{Variant: sc.cfg, Source: stalledSource{src, 42 * time.Second}, Judge: judge.Options{Deadline: sc.deadline}, Metrics: m}); err != nil {
		t.Fatal(err)
	}
	if v, ok := gauge(t, reg, "roomspec_capture_stalled_seconds"); !ok || v != 42 {
		t.Errorf("roomspec_capture_stalled_seconds %v (present %v), want 42", v, ok)
	}
	var _ Staller = (*source.Dir)(nil)
}

// streamFile is the capture at path as a pcap stream ("watch -"), closed
// when the test ends.
func streamFile(t *testing.T, path string) source.Source {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	src, err := source.NewStream(f)
	if err != nil {
		t.Fatal(err)
	}
	return src
}
