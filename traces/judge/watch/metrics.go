package watch

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// Metrics are the Prometheus metrics of a watch. Run's goroutine updates
// most of them (Update, Event), the decoding goroutine the decoder's;
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
	start                   time.Time
	build                   *prometheus.GaugeVec
	// counted holds the counts the counters were last brought to.
	counted map[string]int
}

// LatencyBuckets are the upper bounds of the release latency histogram:
// a log scale, 1 ms to about 35 min in doublings, so that a release within
// SGLang's 300 s bootstrap timeout and one far past it fall in buckets of
// their own.
var LatencyBuckets = prometheus.ExponentialBuckets(0.001, 2, 22)

// NewMetrics registers the metrics with reg. now is the wall clock the
// capture lag is measured on (time.Now if nil).
func NewMetrics(reg prometheus.Registerer, now func() time.Time) *Metrics {
	if now == nil {
		now = time.Now
	}
	m := &Metrics{now: now, start: now(), counted: map[string]int{}}
	f := prometheus.WrapRegistererWithPrefix("roomspec_", reg)
	m.build = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "build_info",
		Help: "1, labelled with the roomspec version, the spec variant rooms are judged against and the deadline (seconds)."},
		[]string{"version", "variant", "deadline"})
	m.judged = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rooms_judged_total",
		Help: "Rooms given their final verdict, by verdict (satisfied: the log showed the release; predicted-released: from the wire alone, every completion of the unseen steps releases it; violated, inconclusive, at-risk, invalid, not-aborted)."}, []string{"verdict"})
	m.pinned = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rooms_pinned",
		Help: "Aborted rooms past their deadline that the prefill event log shows still held (not released), among the rooms held in memory."})
	m.atRisk = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rooms_at_risk",
		Help: "Aborted rooms past their deadline, judged from the wire alone (no log), that some completion of the unseen steps pins."})
	m.held = prometheus.NewGauge(prometheus.GaugeOpts{Name: "rooms_held",
		Help: "Rooms held in memory (forgotten after -idle)."})
	m.latency = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "abort_release_latency_seconds",
		Help:    "How long after its ABORT an aborted room was released: one observation per release the log shows, as soon as it is seen.",
		Buckets: LatencyBuckets,
		// Where Prometheus scrapes native histograms, the same on a finer
		// log scale (buckets 10% apart).
		NativeHistogramBucketFactor: 1.1})
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
		Help: "Wall clock minus the capture time of the latest packet read; before the first, the time since the watch started. It grows while the capture shows nothing: a dead capture."},
		func() float64 {
			if t := m.lastPacket.Load(); t != 0 {
				return m.now().Sub(time.Unix(0, t)).Seconds()
			}
			return m.now().Sub(m.start).Seconds()
		})
	ct := &optionalGauge{desc: prometheus.NewDesc("roomspec_capture_time_seconds",
		"The capture time rooms are judged at (Unix seconds): every observation up to it has been judged. Absent before the first packet.", nil, nil),
		value: func() (float64, bool) {
			t := m.captureTime.Load()
			return float64(t) / 1e9, t != 0
		}}
	f.MustRegister(m.build, m.judged, m.pinned, m.atRisk, m.held, m.latency, m.alerts, m.obs, m.late,
		m.Messages, m.Gaps, m.Resyncs, m.Packets, m.Dropped, m.LogErrors, lag)
	reg.MustRegister(ct)
	for _, v := range judge.Verdicts {
		m.judged.WithLabelValues(string(v))
	}
	for _, k := range []judge.EventKind{judge.EventPinned, judge.EventAtRisk, judge.EventReleased} {
		m.alerts.WithLabelValues(k.String())
	}
	m.obs.WithLabelValues("wire")
	m.obs.WithLabelValues("log")
	return m
}

// SetBuild sets roomspec_build_info: the roomspec version, the variant
// rooms are judged against and their deadline.
func (m *Metrics) SetBuild(version, variant string, deadline time.Duration) {
	m.build.Reset()
	m.build.WithLabelValues(version, variant, strconv.FormatFloat(deadline.Seconds(), 'f', -1, 64)).Set(1)
}

// optionalGauge is a gauge that is exported only while it has a value.
type optionalGauge struct {
	desc  *prometheus.Desc
	value func() (float64, bool)
}

func (g *optionalGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

func (g *optionalGauge) Collect(ch chan<- prometheus.Metric) {
	if v, ok := g.value(); ok {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, v)
	}
}

// Packet records a packet of capture time t.
func (m *Metrics) Packet(t time.Time) {
	m.Packets.Inc()
	m.lastPacket.Store(t.UnixNano())
}

// Event records an event of the judge.
func (m *Metrics) Event(ev judge.Event) {
	switch ev.Kind {
	case judge.EventPinned, judge.EventAtRisk, judge.EventReleased:
		m.alerts.WithLabelValues(ev.Kind.String()).Inc()
	}
}

// Update records the state of the judge and of the merge feeding it,
// after they were fed or ticked: gauges, and the counters of verdicts and
// observations.
func (m *Metrics) Update(j *judge.Judge, l *observe.Live, wall time.Time) {
	s, ls := j.Stats(), l.Stats()
	m.pinned.Set(float64(s.Pinned))
	m.atRisk.Set(float64(s.AtRisk))
	m.held.Set(float64(s.Held))
	if t := l.Now(wall); !t.IsZero() {
		m.captureTime.Store(t.UnixNano())
	}
	for _, l := range j.Releases() {
		m.latency.Observe(l.Seconds())
	}
	for v, n := range j.Report().Verdicts {
		m.bring(m.judged.WithLabelValues(string(v)), "verdict "+string(v), n)
	}
	m.bring(m.obs.WithLabelValues("wire"), "wire", ls.Wire)
	m.bring(m.obs.WithLabelValues("log"), "log", ls.Log)
	m.bring(m.late, "late", ls.Late)
}

// bring brings counter c, which stands for the count named key, up to n.
func (m *Metrics) bring(c prometheus.Counter, key string, n int) {
	if d := n - m.counted[key]; d > 0 {
		c.Add(float64(d))
		m.counted[key] = n
	}
}
