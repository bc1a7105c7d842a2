package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/watch"
	"github.com/roomspec/roomspec/traces/observe"
	"github.com/roomspec/roomspec/traces/source"
)

func init() {
	register(&command{
		name:    "watch",
		summary: "judge rooms continuously on a live prefill node (pinned rooms the moment their deadline passes), with Prometheus metrics",
		run:     runWatch,
	})
}

// portRanges is the -ports flag: LO-HI or PORT, comma-separated.
type portRanges []source.PortRange

func (p *portRanges) String() string {
	s := make([]string, len(*p))
	for i, r := range *p {
		s[i] = fmt.Sprintf("%d-%d", r.Lo, r.Hi)
	}
	return strings.Join(s, ",")
}

func (p *portRanges) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.ParseUint(lo, 10, 16)
		b, err2 := strconv.ParseUint(hi, 10, 16)
		if err1 != nil || err2 != nil || a == 0 || a > b {
			return fmt.Errorf("not a TCP port or range LO-HI: %q", part)
		}
		*p = append(*p, source.PortRange{Lo: uint16(a), Hi: uint16(b)})
	}
	return nil
}

func runWatch(e *env, args []string) int {
	fs := newFlagSet(e, "watch", "SOURCE | -i IFACE", watchHelp)
	jf := addJudgeFlags(fs)
	iface := fs.String("i", "", "capture from network `interface` IFACE (Linux AF_PACKET) instead of SOURCE")
	var ports portRanges
	fs.Var(&ports, "ports", "with -i: only TCP packets to or from these `ports` (PORT or LO-HI, comma-separated)")
	pattern := fs.String("pattern", "", "with a directory SOURCE: the capture files' name `glob` (default every file not starting with a dot)")
	hold := fs.PositiveDuration("hold", 250*time.Millisecond, "how long a silent source (capture or log) is waited for before capture time goes on without it")
	listen := fs.String("listen", "", "serve /metrics and /healthz on `ADDR` (HOST:PORT; a loopback HOST unless -listen-public)")
	public := fs.Bool("listen-public", false, "allow -listen on an address that is not loopback (e.g. the pod's, for Prometheus)")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	bad := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "roomspec watch: "+format+"\n", a...)
		return exitBadInput
	}
	switch {
	case *iface == "" && fs.NArg() != 1:
		fs.Usage()
		return bad("give one SOURCE (-, a capture file or a directory), or -i IFACE")
	case *iface != "" && fs.NArg() != 0:
		return bad("-i %s and SOURCE %q: give one of them", *iface, fs.Arg(0))
	case len(ports) > 0 && *iface == "":
		return bad("-ports filters -i only; filter a tcpdump pipe with its own expression")
	}
	ch, opt, err := jf.load(context.Background(), warnTo(e.stderr, "roomspec watch"))
	if err != nil {
		return bad("%v", err)
	}
	if *jf.log != "" {
		if err := sniffLog(*jf.log); err != nil {
			return bad("%v", err)
		}
	}
	writeWhy(e.stderr, "roomspec watch: ", ch)
	metrics, stopMetrics, err := serveMetrics(e, *listen, *public, ch.Name, opt.Deadline)
	if err != nil {
		return bad("-listen: %v", err)
	}
	defer stopMetrics()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// Sources that wait for files to grow stop with the watch.
	srcCtx, srcStop := context.WithCancel(context.Background())
	defer srcStop()
	warn := func(err error) { fmt.Fprintf(e.stderr, "roomspec watch: %v\n", err) }
	src, err := openSource(e, srcCtx, fs.Arg(0), *iface, ports, *pattern, warn)
	if err != nil {
		return bad("%v", err)
	}
	defer src.Close()
	follower := followLog(e, *jf.log)
	if follower != nil {
		defer follower.Close()
	}
	out := &eventWriter{w: bufio.NewWriter(e.stdout)}
	res, err := watch.Run(ctx, watch.Config{Variant: ch.Config, Source: src, Log: follower, Decode: decode.Options{Ports: jf.ports},
		Judge: opt, Live: observe.LiveOptions{Hold: *hold}, Metrics: metrics, Warn: warn, OnEvent: out.event})
	srcStop()
	return watchEnded(e, res, err, out.close())
}

// watchHelp is roomspec watch -help's description.
const watchHelp = `Watch the SGLang control traffic of a live prefill node and judge every
aborted room against the room-lifecycle spec as roomspec replay does, while
the capture goes on: a room is reported the moment its deadline passes
without its release (pinned, with -log: the prefill event log shows it held;
at-risk, from the wire alone: some completion of the unseen steps pins it),
again if it is released later, and with its final verdict when it goes idle
(-idle) or the watch ends. Verdicts are judged on capture time. A log is
held against the capture as roomspec replay holds it: no room is reported
before that check, and a log that does not belong to the capture stops the
watch (exit 2). The log is followed as it is written.

SOURCE is one of
  -        a pcap or pcapng stream on standard input, e.g.
           tcpdump -i any --immediate-mode -U -s 0 -w - 'tcp portrange 49152-65535' | roomspec watch -
  FILE     a capture file still being written (tcpdump -U -w FILE), read as it grows
  DIR      a directory of rotating capture files (tcpdump -C SIZE -W COUNT -w DIR/NAME),
           from the newest file on, each read as it grows
or -i IFACE captures from a network interface itself (Linux AF_PACKET, needs
CAP_NET_RAW; -ports restricts it as a BPF port filter would).

Output: one JSON object per line on stdout,
  {"event":"pinned"|"at-risk"|"released"|"verdict","time":CAPTURE_TIME,"alert":N,"room":{...}}
where room is the object roomspec replay -format json writes. With -listen,
Prometheus metrics on /metrics (roomspec_rooms_pinned, roomspec_rooms_judged_total,
...) and /healthz. SIGTERM or SIGINT judges the rooms held and exits.

Exit status: 0, 1 when a room is violated, invalid or at-risk, 2 on bad input (a log
that does not belong to the capture).`

// serveMetrics registers the watch's metrics (build_info naming the
// variant and deadline) and, with -listen, serves them; stop ends the
// server.
func serveMetrics(e *env, listen string, public bool, variant string, deadline time.Duration) (m *watch.Metrics, stop func(), err error) {
	// Metrics first: opening the source may wait (for tcpdump's header,
	// for a capture file to appear).
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m = watch.NewMetrics(reg, nil)
	m.SetBuild(buildVersion(), variant, deadline)
	if listen == "" {
		return m, func() {}, nil
	}
	ln, err := listenMetrics(listen, public)
	if err != nil {
		return nil, nil, err
	}
	srv := metricsServer(reg)
	go srv.Serve(ln)
	fmt.Fprintf(e.stderr, "roomspec watch: serving /metrics and /healthz on http://%s\n", ln.Addr())
	return m, func() { srv.Close(); ln.Close() }, nil
}

// openSource opens what the watch reads: an interface, standard input, a
// growing capture file or a directory of rotating ones.
func openSource(e *env, ctx context.Context, name, iface string, ports portRanges, pattern string, warn func(error)) (source.Source, error) {
	switch {
	case iface != "":
		return source.OpenInterface(iface, ports)
	case name == "-":
		return source.NewStream(e.stdin)
	}
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return source.OpenFile(ctx, name, 0)
	}
	d, err := source.OpenDir(ctx, name, pattern, 0)
	if err != nil {
		return nil, err
	}
	d.Problem = warn
	return d, nil
}

// followLog follows the event log, if one is given (it may not exist
// yet).
func followLog(e *env, name string) *eventlog.Follower {
	if name == "" {
		return nil
	}
	if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(e.stderr, "roomspec watch: %s does not exist yet; waiting for it\n", name)
	}
	return eventlog.NewFollower(name)
}

// eventWriter writes the watch's events, a line each as soon as it is
// decided (alerts are read live); the first error stops it.
type eventWriter struct {
	w   *bufio.Writer
	err error
}

func (o *eventWriter) event(ev judge.Event) {
	if o.err == nil {
		o.err = judge.WriteEventJSON(o.w, ev)
	}
	if o.err == nil {
		o.err = o.w.Flush()
	}
}

func (o *eventWriter) close() error {
	if err := o.w.Flush(); o.err == nil {
		o.err = err
	}
	return o.err
}

// watchEnded says how the watch ended and returns its exit status.
func watchEnded(e *env, res *watch.Result, err, writeErr error) int {
	if res != nil && !errors.Is(err, judge.ErrLogMismatch) {
		how := "the capture ended"
		if res.Stopped {
			how = "stopped"
		}
		fmt.Fprintf(e.stderr, "roomspec watch: %s: %s\n", how, res.Report.Summary())
		if n := res.Stats.Beyond; n > 0 {
			fmt.Fprintf(e.stderr, "roomspec watch: %d log lines past the capture time reached were not judged (the log is ahead of the capture)\n", n)
		}
	}
	switch {
	case err != nil:
		fmt.Fprintf(e.stderr, "roomspec watch: %v\n", err)
		return exitBadInput
	case writeErr != nil:
		fmt.Fprintf(e.stderr, "roomspec watch: writing verdicts: %v\n", writeErr)
		return exitBadInput
	case res.Report.Failed():
		return exitViolation
	}
	return exitOK
}

// listenMetrics listens on addr, a loopback address unless public.
func listenMetrics(addr string, public bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if !public {
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("%s is not a loopback address: the metrics would be served to the network; add -listen-public if that is meant", addr)
		}
	}
	return net.Listen("tcp", addr)
}

// metricsServer serves the registry on /metrics and a health check on
// /healthz (200 while the watch runs).
func metricsServer(reg *prometheus.Registry) *http.Server {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
}
