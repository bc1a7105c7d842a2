package watch

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// TestMetricsBeforeCapture: before the first packet, the capture time is
// absent (not the zero time's -6.8e9) and the capture lag is the time
// since the watch started, so that a capture that never starts shows as
// one whose lag grows; build_info carries its labels.
func TestMetricsBeforeCapture(t *testing.T) {
	wall := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	reg := prometheus.NewPedanticRegistry()
	m := NewMetrics(reg, func() time.Time { return wall })
	m.SetBuild("v1.2.3", "sglang-35360", 330*time.Second)
	sc := findScenario(t, "healthy")
	e := newEngine(t, sc.cfg, judge.Options{Deadline: sc.deadline}, observe.LiveOptions{}, nil)
	m.Update(e.judge, e.live, wall)
	wall = wall.Add(90 * time.Second)
	const want = `
# HELP roomspec_build_info 1, labelled with the roomspec version, the spec variant rooms are judged against and the deadline (seconds).
# TYPE roomspec_build_info gauge
roomspec_build_info{deadline="330",variant="sglang-35360",version="v1.2.3"} 1
# HELP roomspec_capture_lag_seconds Wall clock minus the capture time of the latest packet read; before the first, the time since the watch started. It grows while the capture shows nothing: a dead capture.
# TYPE roomspec_capture_lag_seconds gauge
roomspec_capture_lag_seconds 90
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "roomspec_build_info", "roomspec_capture_lag_seconds", "roomspec_capture_time_seconds"); err != nil {
		t.Error(err)
	}

	// The first packet: capture time and lag from it.
	t0 := sc.records[0].t
	m.Packet(t0)
	e.Record(t0, wall)
	m.Update(e.judge, e.live, wall)
	e.Tick(wall.Add(time.Second))
	m.Update(e.judge, e.live, wall.Add(time.Second))
	if v, ok := gauge(t, reg, "roomspec_capture_time_seconds"); !ok || v < float64(t0.Unix()) {
		t.Errorf("capture_time_seconds after the first packet at %v: %v (present %v)", t0, v, ok)
	}
	if got, _ := gauge(t, reg, "roomspec_capture_lag_seconds"); got != wall.Sub(t0).Seconds() {
		t.Errorf("capture_lag_seconds %v, want %v", got, wall.Sub(t0).Seconds())
	}
}

// gauge returns the value of the gauge name gathered from reg, and
// whether it was there.
func gauge(t *testing.T, reg prometheus.Gatherer, name string) (float64, bool) {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name && len(f.Metric) == 1 {
			return f.Metric[0].GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// TestLatencyAtRelease: the release latency histogram gets one
// observation per release as the release is seen, before any room's
// final verdict (none at the verdicts), with the latencies the verdicts
// then give; its buckets are on a log scale.
func TestLatencyAtRelease(t *testing.T) {
	for i := 1; i < len(LatencyBuckets); i++ {
		if r := LatencyBuckets[i] / LatencyBuckets[i-1]; r < 1.99 || r > 2.01 {
			t.Fatalf("buckets %v: not a log scale", LatencyBuckets)
		}
	}
	if LatencyBuckets[0] > 0.001 || LatencyBuckets[len(LatencyBuckets)-1] < 1800 {
		t.Errorf("buckets from %v to %v: want 1 ms to 30 min at least", LatencyBuckets[0], LatencyBuckets[len(LatencyBuckets)-1])
	}

	sc := findScenario(t, "storm-fork")
	var verdicts []time.Duration
	e := newEngine(t, sc.cfg, judge.Options{Deadline: sc.deadline, Log: true}, observe.LiveOptions{}, func(ev judge.Event) {
		if ev.Kind == judge.EventVerdict {
			verdicts = append(verdicts, ev.Room.Latency)
		}
	})
	m := NewMetrics(prometheus.NewRegistry(), nil)
	var wall time.Time
	sc.live(e, rand.New(rand.NewSource(1)), time.Millisecond, 100*time.Millisecond, 0, &wall)
	if verdicts != nil {
		t.Fatalf("%d verdicts before the end (the scenario is shorter than -idle)", len(verdicts))
	}
	m.Update(e.judge, e.live, wall)
	var d dto.Metric
	if err := m.latency.Write(&d); err != nil {
		t.Fatal(err)
	}
	e.Finish(e.Last())
	m.Update(e.judge, e.live, wall)
	var want []float64
	for _, l := range verdicts {
		if l >= 0 {
			want = append(want, l.Seconds())
		}
	}
	if len(want) == 0 {
		t.Fatal("no room of the scenario was released")
	}
	h := d.GetHistogram()
	sum := 0.0
	for _, l := range want {
		sum += l
	}
	if err := m.latency.Write(&d); err != nil || d.GetHistogram().GetSampleCount() != h.GetSampleCount() {
		t.Errorf("observations at the final verdicts: %v (%v)", d.GetHistogram().GetSampleCount()-h.GetSampleCount(), err)
	}
	if h.GetSampleCount() != uint64(len(want)) || !near(h.GetSampleSum(), sum) {
		t.Errorf("histogram: %d observations summing to %v; the verdicts' latencies: %v", h.GetSampleCount(), h.GetSampleSum(), want)
	}
	// Each observation is in the bucket of its latency.
	slices.Sort(want)
	for _, b := range h.GetBucket() {
		n := 0
		for _, l := range want {
			if l <= b.GetUpperBound() {
				n++
			}
		}
		if b.GetCumulativeCount() != uint64(n) {
			t.Errorf("bucket le=%v: %d, want %d (latencies %v)", b.GetUpperBound(), b.GetCumulativeCount(), n, want)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestPredictedReleasedCounted: rooms judged from the wire alone are
// counted as predicted-released, never as satisfied (issue 22: a release
// the capture cannot show is not reported as seen).
func TestPredictedReleasedCounted(t *testing.T) {
	sc := findScenario(t, "storm-fixed")
	e := newEngine(t, sc.cfg, judge.Options{Deadline: sc.deadline}, observe.LiveOptions{}, nil)
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg, nil)
	var wall time.Time
	sc.live(e, rand.New(rand.NewSource(1)), time.Millisecond, 100*time.Millisecond, 0, &wall)
	e.Finish(e.Last())
	m.Update(e.judge, e.live, wall)
	rep := e.judge.Report()
	if rep.Aborted == 0 {
		t.Fatal("no aborted room")
	}
	for v, want := range map[judge.Verdict]int{judge.Satisfied: 0, judge.PredictedReleased: rep.Aborted} {
		if got := testutil.ToFloat64(m.judged.WithLabelValues(string(v))); got != float64(want) {
			t.Errorf("rooms_judged_total{verdict=%q} = %v, want %d (%s)", v, got, want, rep.Summary())
		}
	}
}
