package watch

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roomspec/roomspec/traces/judge/replay"
)

// Metrics are the Prometheus metrics of a watch. The Engine's goroutine
// updates most of them (Observe*), the decoding goroutine the decoder's;
// all are safe to scrape at any time.
type Metrics struct {
	judged  *prometheus.CounterVec
	pinned  prometheus.Gauge
	atRisk  prometheus.Gauge
	held    prometheus.Gauge
	latency prometheus.Histogram
	alerts  *prometheus.CounterVec
	obs     *prometheus.CounterVec
	late    prometheus.Counter
	// Messages, Gaps and Resyncs count the decoder's messages (of every
	// kind), stream gaps and ZMTP resynchronizations; Packets the records
	// read, Dropped the packets the kernel dropped; LogErrors the
	// malformed log lines.
	Messages, Gaps, Resyncs prometheus.Counter
	Packets, Dropped        prometheus.Counter
	LogErrors               prometheus.Counter
	lastPacket, captureTime atomic.Int64 // unix nanoseconds
	now                     func() time.Time
	// counted holds the Engine counts the counters were last brought to.
	counted map[string]int
}

// NewMetrics registers the metrics with reg. now is the wall clock the
// capture lag is measured on (time.Now if nil).
func NewMetrics(reg prometheus.Registerer, now func() time.Time) *Metrics {
	if now == nil {
		now = time.Now
	}
	m := &Metrics{now: now, counted: map[string]int{}}
	f := prometheus.WrapRegistererWithPrefix("roomspec_", reg)
	m.judged = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rooms_judged_total",
		Help: "Rooms given their final verdict, by verdict (satisfied, violated, inconclusive, at-risk, invalid, not-aborted)."}, []string{"verdict"})
	m.pinned = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rooms_pinned",
		Help: "Aborted rooms past their deadline that the prefill event log shows still held (not released), among the rooms held in memory."})
	m.atRisk = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rooms_at_risk",
		Help: "Aborted rooms past their deadline, judged from the wire alone (no log), that some completion of the unseen steps pins."})
	m.held = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rooms_held",
		Help: "Rooms held in memory (forgotten after -idle)."})
	m.latency = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "abort_release_latency_seconds",
		Help:    "How long after its first ABORT an aborted room was released (rooms whose release the log shows), at its final verdict.",
		Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800}})
	m.alerts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "alerts_total",
		Help: "Rooms reported pinned or at-risk the moment their deadline passed, and pinned rooms reported released later."}, []string{"event"})
	m.obs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "observations_total",
		Help: "Room observations judged, by source (wire: decoded messages about rooms; log: event-log lines)."}, []string{"source"})
	m.late = prometheus.NewCounter(prometheus.CounterOpts{Name: "late_observations_total",
		Help: "Observations that came after capture time had passed them (a source slower than -hold): judged out of order."})
	m.Messages = prometheus.NewCounter(prometheus.CounterOpts{Name: "messages_decoded_total", Help: "ZeroMQ messages decoded from the capture."})
	m.Gaps = prometheus.NewCounter(prometheus.CounterOpts{Name: "stream_gaps_total", Help: "Gaps (lost bytes) in the captured TCP streams."})
	m.Resyncs = prometheus.NewCounter(prometheus.CounterOpts{Name: "zmtp_resyncs_total", Help: "ZMTP streams resynchronized (joined mid-stream or after a gap)."})
	m.Packets = prometheus.NewCounter(prometheus.CounterOpts{Name: "packets_total", Help: "Packet records read from the capture source."})
	m.Dropped = prometheus.NewCounter(prometheus.CounterOpts{Name: "packets_dropped_total", Help: "Packets the kernel dropped before the capture read them (-i only)."})
	m.LogErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "log_errors_total", Help: "Malformed event-log lines skipped."})
	lag := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "capture_lag_seconds",
		Help: "Wall clock minus the capture time of the latest packet read (0 before the first)."}, func() float64 {
		t := m.lastPacket.Load()
		if t == 0 {
			return 0
		}
		return m.now().Sub(time.Unix(0, t)).Seconds()
	})
	ct := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "capture_time_seconds",
		Help: "The capture time rooms are judged at (Unix seconds): every observation up to it has been judged."}, func() float64 {
		return float64(m.captureTime.Load()) / 1e9
	})
	f.MustRegister(m.judged, m.pinned, m.atRisk, m.held, m.latency, m.alerts, m.obs, m.late,
		m.Messages, m.Gaps, m.Resyncs, m.Packets, m.Dropped, m.LogErrors, lag, ct)
	for _, v := range []replay.Verdict{replay.Satisfied, replay.Violated, replay.Inconclusive, replay.AtRisk, replay.Invalid, replay.NotAborted} {
		m.judged.WithLabelValues(string(v))
	}
	for _, k := range []Kind{Pinned, AtRisk, Released} {
		m.alerts.WithLabelValues(k.String())
	}
	m.obs.WithLabelValues("wire")
	m.obs.WithLabelValues("log")
	return m
}

// Packet records a packet of capture time t.
func (m *Metrics) Packet(t time.Time) {
	m.Packets.Inc()
	m.lastPacket.Store(t.UnixNano())
}

// Event records an event of the Engine.
func (m *Metrics) Event(ev Event) {
	switch ev.Kind {
	case Pinned, AtRisk, Released:
		m.alerts.WithLabelValues(ev.Kind.String()).Inc()
	case Verdict:
		if ev.Room.Latency >= 0 {
			m.latency.Observe(ev.Room.Latency.Seconds())
		}
	}
}

// Engine records the Engine's state after it was fed or ticked: gauges,
// and the counters of verdicts and observations.
func (m *Metrics) Engine(e *Engine, wall time.Time) {
	s := e.Stats()
	m.pinned.Set(float64(s.Pinned))
	m.atRisk.Set(float64(s.AtRisk))
	m.held.Set(float64(s.Held))
	m.captureTime.Store(e.Now(wall).UnixNano())
	for v, n := range e.Counts() {
		m.bring(m.judged.WithLabelValues(string(v)), "verdict "+string(v), n)
	}
	m.bring(m.obs.WithLabelValues("wire"), "wire", s.Wire)
	m.bring(m.obs.WithLabelValues("log"), "log", s.Log)
	m.bring(m.late, "late", s.Late)
}

// bring brings counter c, which stands for the count named key, up to n.
func (m *Metrics) bring(c prometheus.Counter, key string, n int) {
	if d := n - m.counted[key]; d > 0 {
		c.Add(float64(d))
		m.counted[key] = n
	}
}
