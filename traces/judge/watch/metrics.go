package watch

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/roomspec/roomspec/traces/decode"
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
	// The log's fit to the capture (judge.LogFit), as Update last saw it.
	logOffset                  *prometheus.GaugeVec
	logOffsetRooms, logDoubted prometheus.Gauge
	logFirst, logLast          prometheus.Gauge
	logFirstLine, logLastLine  prometheus.Gauge
	logEnded, logRefused       prometheus.Gauge
	damage                     *prometheus.CounterVec
	// Messages, Gaps and Resyncs count the decoder's messages (of every
	// kind), stream gaps and ZMTP resynchronizations; Packets the records
	// read, Dropped the packets the kernel dropped; LogErrors the
	// malformed log lines.
	Messages, Gaps, Resyncs prometheus.Counter
	Packets, Dropped        prometheus.Counter
	LogErrors               prometheus.Counter
	lastPacket, captureTime atomic.Int64 // unix nanoseconds
	// stalled says how long the source has been stalled (a Staller's
	// Stalled), if it can tell.
	stalled atomic.Pointer[func() time.Duration]
	now     func() time.Time
	start   time.Time
	build   *prometheus.GaugeVec
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
	m.logOffset = prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "log_offset_seconds",
		Help: "The event log's clock offset to the capture (the log's time minus the capture's, from the rooms whose completing TransferInfo and WaitingForInput line both show): the median and the range over those rooms. 0 while no room gives one (see roomspec_log_offset_rooms)."}, []string{"stat"})
	m.logOffsetRooms = prometheus.NewGauge(prometheus.GaugeOpts{Name: "log_offset_rooms",
		Help: "Rooms the log's clock offset was measured on (0: unknown)."})
	m.logFirst = prometheus.NewGauge(prometheus.GaugeOpts{Name: "log_first_line_time_seconds",
		Help: "Time (Unix seconds) of the event log's first line of prefill: with roomspec_log_last_line_time_seconds, the log's coverage against roomspec_capture_time_seconds. 0 before it."})
	m.logLast = prometheus.NewGauge(prometheus.GaugeOpts{Name: "log_last_line_time_seconds",
		Help: "Time (Unix seconds) of the event log's last line of prefill read so far. 0 before the first."})
	m.logFirstLine = prometheus.NewGauge(prometheus.GaugeOpts{Name: "log_first_line", Help: "Line number of the event log's first line of prefill."})
	m.logLastLine = prometheus.NewGauge(prometheus.GaugeOpts{Name: "log_last_line", Help: "Line number of the event log's last line of prefill read so far."})
	m.logEnded = prometheus.NewGauge(prometheus.GaugeOpts{Name: "log_ended_before_capture",
		Help: "1 when the capture shows, after the log's last line, a message of a room that prefill logs its handling of and the log does not show: the log ended (or stalled) before the capture."})
	m.logDoubted = prometheus.NewGauge(prometheus.GaugeOpts{Name: "log_inconclusive_rooms",
		Help: "Rooms held inconclusive because their verdict depends on a part of the log that does not fit the capture (a line out of time order, an offset unlike the others, a log that ended or began within the room's life)."})
	m.logRefused = prometheus.NewGauge(prometheus.GaugeOpts{Name: "log_refused",
		Help: "1 when the event log was refused: it does not belong to the capture, or its prefill endpoint is ambiguous (-log-endpoint). No room is judged on it."})
	m.damage = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "capture_damage_total",
		Help: "Damage of the capture itself, by kind (snaplen: packets cut by the snap length; link-type: packets of a link type not decoded; ip-fragment: IP fragments not reassembled; retransmission-conflict: retransmissions that differ from the first copy; time-jump: capture time stepping back or forward by an hour; malformed-packet; evicted: connections closed because too many were open; damaged-file)."}, []string{"kind"})
	lag := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "capture_lag_seconds",
		Help: "Wall clock minus the capture time of the latest packet read; before the first, the time since the watch started. It grows while the capture shows nothing: a dead capture."},
		func() float64 {
			if t := m.lastPacket.Load(); t != 0 {
				return m.now().Sub(time.Unix(0, t)).Seconds()
			}
			return m.now().Sub(m.start).Seconds()
		})
	stall := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "capture_stalled_seconds",
		Help: "How long the capture source has been stalled: a directory of rotating files (watch DIR) in which files are written but no packet is read (a file truncated or replaced while read, a writer's clock ahead). 0 when it is not; each stall and its end are also said on stderr."},
		func() float64 {
			if f := m.stalled.Load(); f != nil {
				return (*f)().Seconds()
			}
			return 0
		})
	ct := &optionalGauge{desc: prometheus.NewDesc("roomspec_capture_time_seconds",
		"The capture time rooms are judged at (Unix seconds): every observation up to it has been judged. Absent before the first packet.", nil, nil),
		value: func() (float64, bool) {
			t := m.captureTime.Load()
			return float64(t) / 1e9, t != 0
		}}
	f.MustRegister(m.build, m.judged, m.pinned, m.atRisk, m.held, m.latency, m.alerts, m.obs, m.late,
		m.Messages, m.Gaps, m.Resyncs, m.Packets, m.Dropped, m.LogErrors, lag, stall,
		m.logOffset, m.logOffsetRooms, m.logFirst, m.logLast, m.logFirstLine, m.logLastLine, m.logEnded, m.logDoubted, m.logRefused, m.damage)
	for _, k := range damageKinds {
		m.damage.WithLabelValues(string(k))
	}
	for _, s := range []string{"median", "min", "max"} {
		m.logOffset.WithLabelValues(s)
	}
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

// damageKinds are the kinds of capture damage (decode.Kind.Damage) the
// damage counter starts at 0.
var damageKinds = []decode.Kind{decode.KindSnaplen, decode.KindLinkType, decode.KindFragment, decode.KindRetransmission,
	decode.KindTimeJump, decode.KindMalformedPacket, decode.KindEvicted, decode.KindDamagedFile}

// Diagnostic counts a decoder diagnostic of kind k as it is counted
// (decode.Options.Count): the capture's damage, stream gaps and resyncs.
func (m *Metrics) Diagnostic(k decode.Kind) {
	switch {
	case k == decode.KindGap:
		m.Gaps.Inc()
	case k == decode.KindResynced:
		m.Resyncs.Inc()
	case k.Damage():
		m.damage.WithLabelValues(string(k)).Inc()
	}
}

// Staller is a source that can tell how long it has been stalled
// (source.Dir).
type Staller interface {
	Stalled() time.Duration
}

// WatchStall has roomspec_capture_stalled_seconds read s.
func (m *Metrics) WatchStall(s Staller) {
	f := s.Stalled
	m.stalled.Store(&f)
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
	if f := j.LogFit(); f != nil {
		m.logFit(f)
	}
}

// logFit sets the gauges of the log's fit to the capture.
func (m *Metrics) logFit(f *judge.LogFit) {
	m.logOffsetRooms.Set(float64(f.Rooms))
	if f.Rooms > 0 {
		m.logOffset.WithLabelValues("median").Set(f.Offset.Seconds())
		m.logOffset.WithLabelValues("min").Set(f.MinOffset.Seconds())
		m.logOffset.WithLabelValues("max").Set(f.MaxOffset.Seconds())
	}
	if f.LastLine > 0 {
		m.logFirst.Set(float64(f.LogFirst.UnixNano()) / 1e9)
		m.logLast.Set(float64(f.LogLast.UnixNano()) / 1e9)
		m.logFirstLine.Set(float64(f.FirstLine))
		m.logLastLine.Set(float64(f.LastLine))
	}
	m.logEnded.Set(b2f(f.Ended))
	m.logRefused.Set(b2f(f.Refused != ""))
	m.logDoubted.Set(float64(f.Doubted))
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// bring brings counter c, which stands for the count named key, up to n.
func (m *Metrics) bring(c prometheus.Counter, key string, n int) {
	if d := n - m.counted[key]; d > 0 {
		c.Add(float64(d))
		m.counted[key] = n
	}
}
