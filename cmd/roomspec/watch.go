package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/judge/replay"
	"github.com/roomspec/roomspec/traces/judge/watch"
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
	fs := newFlagSet(e, "watch", "SOURCE | -i IFACE",
		`Watch the SGLang control traffic of a live prefill node and judge every
aborted room against the room-lifecycle spec as roomspec replay does, while
the capture goes on: a room is reported the moment its deadline passes
without its release (pinned, with -log: the prefill event log shows it held;
at-risk, from the wire alone: some completion of the unseen steps pins it),
again if it is released later, and with its final verdict when it goes idle
(-idle) or the watch ends. Verdicts are judged on capture time. A log is
held against the capture as roomspec replay holds it: no room is reported
before that check, and a log that does not belong to the capture stops the
watch (exit 2).

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

Exit status: 0, 1 when a room is violated or invalid, 2 on bad input (a log
that does not belong to the capture).`)
	iface := fs.String("i", "", "capture from network `interface` IFACE (Linux AF_PACKET) instead of SOURCE")
	var ports portRanges
	fs.Var(&ports, "ports", "with -i: only TCP packets to or from these `ports` (PORT or LO-HI, comma-separated)")
	pattern := fs.String("pattern", "", "with a directory SOURCE: the capture files' name `glob` (default every file not starting with a dot)")
	logFile := fs.String("log", "", "prefill event log (JSON lines, see traces/eventlog), followed as it is written")
	variant := fs.String("variant", "upstream", "bundled spec variant (see roomspec check -list)")
	deadline := fs.Duration("deadline", 300*time.Second, "how long after its abort a room must be released")
	skew := fs.Duration("skew", time.Millisecond, "how far apart observations of different connections (or the log) may be and still have happened in the other order (0: keep the capture's order)")
	idle := fs.Duration("idle", 0, "judge and forget a room unobserved for this long (default twice -deadline)")
	hold := fs.Duration("hold", 250*time.Millisecond, "how long a silent source (capture or log) is waited for before capture time goes on without it")
	logEndpoint := fs.String("log-endpoint", "", "the prefill `ADDR:PORT` (decode's destination) whose rooms the log belongs to (default: the first one seen)")
	var zmqPorts portList
	fs.Var(&zmqPorts, "port", "treat TCP `port` as ZeroMQ even without a captured greeting (repeatable)")
	listen := fs.String("listen", "", "serve /metrics and /healthz on `ADDR` (HOST:PORT; a loopback HOST unless -listen-public)")
	public := fs.Bool("listen-public", false, "allow -listen on an address that is not loopback (e.g. the pod's, for Prometheus)")
	maxHidden := fs.Int("max-unseen", 24, "search bound: unseen spec steps between two observations of a room")
	maxStates := fs.Int("max-states", 50000, "search bound: states one search visits")
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
	case *hold <= 0 || *deadline <= 0:
		return bad("-hold and -deadline must be positive")
	}
	c, err := conformance.LoadVariant(*variant)
	if err != nil {
		return bad("unknown variant %q (see roomspec check -list)", *variant)
	}
	var logAt netip.AddrPort
	if *logEndpoint != "" {
		if logAt, err = netip.ParseAddrPort(*logEndpoint); err != nil {
			return bad("-log-endpoint: %v", err)
		}
	}
	var ln net.Listener
	if *listen != "" {
		if ln, err = listenMetrics(*listen, *public); err != nil {
			return bad("-listen: %v", err)
		}
		defer ln.Close()
	}

	// Metrics first: opening the source may wait (for tcpdump's header,
	// for a capture file to appear).
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := watch.NewMetrics(reg, nil)
	if ln != nil {
		srv := metricsServer(reg)
		go srv.Serve(ln)
		defer srv.Close()
		fmt.Fprintf(e.stderr, "roomspec watch: serving /metrics and /healthz on http://%s\n", ln.Addr())
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	// Sources that wait for files to grow stop with the watch.
	srcCtx, srcStop := context.WithCancel(context.Background())
	defer srcStop()
	warn := func(err error) { fmt.Fprintf(e.stderr, "roomspec watch: %v\n", err) }
	var src source.Source
	switch name := fs.Arg(0); {
	case *iface != "":
		src, err = source.OpenInterface(*iface, ports)
	case name == "-":
		src, err = source.NewStream(e.stdin)
	default:
		var fi os.FileInfo
		if fi, err = os.Stat(name); err != nil {
			break
		}
		if fi.IsDir() {
			var d *source.Dir
			if d, err = source.OpenDir(srcCtx, name, *pattern, 0); err == nil {
				d.Problem = warn
				src = d
			}
		} else {
			src, err = source.OpenFile(srcCtx, name, 0)
		}
	}
	if err != nil {
		return bad("%v", err)
	}
	defer src.Close()
	var follower *eventlog.Follower
	if *logFile != "" {
		follower = eventlog.NewFollower(*logFile)
		defer follower.Close()
		if _, err := os.Stat(*logFile); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(e.stderr, "roomspec watch: %s does not exist yet; waiting for it\n", *logFile)
		}
	}

	out := bufio.NewWriter(e.stdout)
	var writeErr error
	if *skew == 0 {
		*skew = -1 // none (the Options' zero value is the default)
	}
	cfg := watch.Config{
		Variant: c,
		Source:  src,
		Log:     follower,
		Decode:  decode.Options{Ports: zmqPorts},
		Engine: watch.Options{Hold: *hold, Replay: replay.Options{Deadline: *deadline, Log: *logFile != "", LogEndpoint: logAt,
			Skew: *skew, Idle: *idle, MaxHidden: *maxHidden, MaxStates: *maxStates}},
		Metrics: metrics,
		Warn:    warn,
		OnEvent: func(ev watch.Event) {
			if writeErr == nil {
				writeErr = watch.WriteJSON(out, ev)
			}
			if writeErr == nil {
				// A line as soon as it is decided: alerts are read live.
				writeErr = out.Flush()
			}
		},
	}
	res, err := watch.Run(ctx, cfg)
	srcStop()
	if flushErr := out.Flush(); writeErr == nil {
		writeErr = flushErr
	}
	if res != nil && !errors.Is(err, replay.ErrLogMismatch) {
		how := "the capture ended"
		if res.Stopped {
			how = "stopped"
		}
		fmt.Fprintf(e.stderr, "roomspec watch: %s: %s\n", how, res.Report.Summary())
	}
	switch {
	case err != nil:
		return bad("%v", err)
	case writeErr != nil:
		return bad("writing verdicts: %v", writeErr)
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
