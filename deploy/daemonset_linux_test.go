package deploy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"golang.org/x/sys/unix"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/roomspec/roomspec/internal/scenarios"
)

// The scenario whose traffic the DaemonSet test captures: real libzmq
// decode and prefill emulators (traces/testdata/scenarios), under the
// variant the manifest names.
const (
	podScenario   = "healthy"
	scenarioDir   = "../traces/testdata/scenarios"
	makeScenarios = scenarioDir + "/make_scenarios.py"
	// timeScale: the test scrapes every second where Prometheus scrapes
	// every 15 s (the PodMonitor's interval).
	timeScale      = 15
	scrapeInterval = time.Second
)

// needPods skips unless the DaemonSet's containers can be run here: root
// (namespaces, mounts, setpriv), setpriv, tcpdump, and Debian's python3
// with python3-zmq for the traffic (.ci/run installs them).
func needPods(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the DaemonSet's containers: skipped with -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("runs the DaemonSet's containers: needs root (network and mount namespaces, setpriv)")
	}
	for _, tool := range []string{"setpriv", "tcpdump"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s (apt-get install util-linux tcpdump; .ci/run does)", tool)
		}
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import zmq").Run(); err != nil {
		t.Skip("no /usr/bin/python3 with python3-zmq (apt-get install python3-zmq; .ci/run does)")
	}
}

// imageOf returns what the Dockerfile's image ref brings to a container:
// its stage's ENTRYPOINT, CMD and USER, and the files it copies from the
// build stage (the roomspec binary, built as the Dockerfile builds it).
// Packages a stage installs with apt-get are the host's (Debian's, the
// stages' base), bound from the host's /usr.
func imageOf(t *testing.T, d *dockerfile, ref string) image {
	t.Helper()
	name, _, _ := strings.Cut(ref, ":")
	target, ok := d.images[name]
	if !ok {
		t.Fatalf("image %s: not one the Dockerfile builds", ref)
	}
	st := d.stages[target]
	_, buildArgs := goBuild(d.stages["build"])
	out := ""
	for i, a := range buildArgs {
		if a == "-o" && i+1 < len(buildArgs) {
			out = buildArgs[i+1]
		}
	}
	img := image{Files: map[string]string{}}
	for _, c := range st.Commands {
		switch c := c.(type) {
		case *instructions.EntrypointCommand:
			if c.PrependShell {
				t.Fatalf("image %s: ENTRYPOINT in shell form", ref)
			}
			img.Entrypoint = c.CmdLine
		case *instructions.CmdCommand:
			img.Cmd = c.CmdLine
		case *instructions.UserCommand:
			img.User = c.User
		case *instructions.CopyCommand:
			if c.From == "build" && slices.Contains(c.SourcePaths, out) {
				img.Files[c.DestPath] = build(t, buildArgs[len(buildArgs)-1])
			}
		}
	}
	return img
}

// podSample is a scrape of the watcher's metrics.
type podSample struct {
	wall                    time.Time
	ok                      bool
	packets, lag, messages  float64
	logObs                  float64
	buildInfo, captureTimed bool
}

// podRun is the DaemonSet's pod run on a node of its own (see
// pod_linux_test.go), with the test playing Prometheus.
type podRun struct {
	t       *testing.T
	n       *node
	pod     corev1.PodSpec
	d       *dockerfile
	rule    *monitoringv1.PrometheusRule
	volumes map[string]string
	fields  map[string]string
	td, rs  corev1.Container
	client  *http.Client
	base    string

	mu      sync.Mutex
	samples []podSample
	stop    chan struct{}
	stopped chan struct{}
}

const podIP = "127.0.0.1" // hostNetwork: the node's address

func newPodRun(t *testing.T) *podRun {
	t.Helper()
	needPods(t)
	p := &podRun{t: t, d: parseDockerfile(t), volumes: map[string]string{}, fields: map[string]string{"status.podIP": podIP}}
	var ds *appsv1.DaemonSet
	for _, o := range manifests(t) {
		switch o := o.(type) {
		case *appsv1.DaemonSet:
			ds = o
		case *monitoringv1.PrometheusRule:
			p.rule = o
		}
	}
	p.pod = ds.Spec.Template.Spec
	// The pod's volumes: an emptyDir is a world-writable directory, a
	// hostPath DirectoryOrCreate one the kubelet creates as root.
	for _, v := range p.pod.Volumes {
		dir := filepath.Join(t.TempDir(), v.Name)
		mode := os.FileMode(0o755)
		if v.EmptyDir != nil {
			mode = 0o777
		}
		if err := os.Mkdir(dir, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, mode)
		p.volumes[v.Name] = dir
	}
	for _, c := range p.pod.Containers {
		switch c.Name {
		case "tcpdump":
			p.td = c
		case "roomspec":
			p.rs = c
		}
	}
	p.n = newNode(t)
	p.client = p.n.httpClient()
	return p
}

// startTcpdump starts the tcpdump container c (the manifest's, or one
// changed by the test); exited receives its end.
func (p *podRun) startTcpdump(c corev1.Container) (cmd *exec.Cmd, stderr *lockedBuffer, listening <-chan struct{}, exited <-chan error) {
	t := p.t
	t.Helper()
	cmd = p.n.container(t, p.pod, c, imageOf(t, p.d, c.Image), p.volumes, p.fields)
	stderr = &lockedBuffer{}
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ex := make(chan error, 1)
	ls := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pipe)
		once := sync.Once{}
		for sc.Scan() {
			stderr.add(sc.Text())
			if strings.Contains(sc.Text(), "listening on") {
				once.Do(func() { close(ls) })
			}
		}
		ex <- cmd.Wait()
	}()
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd, stderr, ls, ex
}

// startWatcher starts the roomspec container and waits for its /healthz;
// events receives its output lines once it has ended.
func (p *podRun) startWatcher() (cmd *exec.Cmd, stderr *lockedBuffer, events <-chan []string) {
	t := p.t
	t.Helper()
	cmd = p.n.container(t, p.pod, p.rs, imageOf(t, p.d, p.rs.Image), p.volumes, p.fields)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr = &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	ev := make(chan []string, 1)
	go func() {
		var ls []string
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			ls = append(ls, sc.Text())
		}
		ev <- ls
	}()
	var metricsPort int32
	for _, port := range p.rs.Ports {
		if port.Name == "metrics" {
			metricsPort = port.ContainerPort
		}
	}
	p.base = fmt.Sprintf("http://%s:%d", podIP, metricsPort)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := p.client.Get(p.base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not serve /healthz in 15 s:\n%s", stderr)
		}
	}
	return cmd, stderr, ev
}

// scrape plays Prometheus: a scrape of the watcher every scrapeInterval,
// until stopScraping.
func (p *podRun) scrape() {
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.stopped)
		tick := time.NewTicker(scrapeInterval)
		defer tick.Stop()
		for {
			s := scrapeWatcher(p.client, p.base+"/metrics")
			p.mu.Lock()
			p.samples = append(p.samples, s)
			p.mu.Unlock()
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
		}
	}()
}

func (p *podRun) stopScraping() []podSample {
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.samples)
}

func (p *podRun) last() podSample {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.samples[len(p.samples)-1]
}

func (p *podRun) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.samples)
}

// TestDaemonSetCaptures runs the DaemonSet's two containers as the
// manifest says (the images' entrypoints with the manifest's args, each
// under its securityContext: user, capabilities, read-only root; the
// pod's volumes at their paths) on a node of their own (a network
// namespace, loopback only), with real libzmq emulators making traffic and
// writing the prefill's event log into the log volume, while the test
// scrapes /metrics as Prometheus would. It checks that tcpdump keeps
// running, as an unprivileged user, and writes the files the watcher
// reads, that the watcher judges every room of the traffic as roomspec
// replay judges the same files and log (and as the emulators expect), and
// that Prometheus's scrapes alone keep packets coming on an idle node.
// Then it kills tcpdump: the dead-capture alert of the PrometheusRule must
// fire on the series the scrapes recorded (promtool test rules, the
// series' time stretched from the test's 1 s scrapes to Prometheus's
// 15 s), and on none before.
func TestDaemonSetCaptures(t *testing.T) {
	p := newPodRun(t)
	td, rs := p.td, p.rs
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	captures := p.volumes[mountedVolume(t, td, flagValues(td.Args)["-w"])]
	logPath := flagValues(rs.Args[1:])["-log"]
	logDir := p.volumes[mountedVolume(t, rs, logPath)]

	tcpdump, tdStderr, listening, tdExited := p.startTcpdump(td)
	select {
	case <-listening:
	case err := <-tdExited:
		t.Fatalf("tcpdump, run as the manifest says, exited at once (%v):\n%s", err, tdStderr)
	case <-time.After(15 * time.Second):
		t.Fatalf("tcpdump did not start listening in 15 s:\n%s", tdStderr)
	}
	// Capturing, tcpdump holds no privilege: Debian's becomes its own user
	// with no capability left.
	if status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tcpdump.Process.Pid)); err == nil {
		uid := regexp.MustCompile(`(?m)^Uid:\s+(\d+)`).FindSubmatch(status)
		eff := regexp.MustCompile(`(?m)^CapEff:\s+(\w+)`).FindSubmatch(status)
		if uid == nil || string(uid[1]) == "0" || eff == nil || strings.Trim(string(eff[1]), "0") != "" {
			t.Errorf("tcpdump captures as uid %s with capabilities %s, want an unprivileged user with none", uid, eff)
		}
	}
	watch, wErr, events := p.startWatcher()
	p.scrape()

	// The traffic: decode and prefill emulators on the node, the prefill's
	// event log in the log volume (a link at the manifest's -log path).
	if err := os.Symlink(podScenario+".events.jsonl", filepath.Join(logDir, filepath.Base(logPath))); err != nil {
		t.Fatal(err)
	}
	port := 32768 + rand.IntN(60999-32768) // an ephemeral port, as ZeroMQ's
	py := p.n.command("/usr/bin/python3", makeScenarios, "--live", logDir, "--port", strconv.Itoa(port), podScenario)
	py.Dir = "."
	out, err := runWithin(ctx, py, 90*time.Second)
	if err != nil {
		t.Fatalf("emulators: %v\n%s", err, out)
	}
	// Idle: Prometheus's scrapes are the only traffic.
	idleFrom := p.last()
	time.Sleep(6 * scrapeInterval)
	idle := p.last()

	files, _ := filepath.Glob(filepath.Join(captures, filepath.Base(flagValues(td.Args)["-w"])+"*"))
	if len(files) == 0 {
		t.Fatalf("tcpdump wrote no file into the captures volume:\n%s", tdStderr)
	}
	select {
	case err := <-tdExited:
		t.Fatalf("tcpdump exited (%v):\n%s", err, tdStderr)
	default:
	}
	t.Logf("tcpdump wrote %v; watcher at %d packets, %v messages, %v log observations", baseNames(files), int(idle.packets), idle.messages, idle.logObs)
	if !idle.ok || idle.messages == 0 || idle.logObs == 0 || !idle.buildInfo || !idle.captureTimed {
		t.Errorf("the watcher's metrics after the traffic: %+v", idle)
	}
	if idle.packets <= idleFrom.packets {
		t.Errorf("no packet while idle (%v then %v): Prometheus's scrapes are not captured", idleFrom.packets, idle.packets)
	}

	// tcpdump dies.
	killedAt := p.count()
	if err := syscall.Kill(tcpdump.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-tdExited
	time.Sleep(25 * scrapeInterval)
	samples := p.stopScraping()
	// (What tcpdump wrote as it died is read within a scrape or two.)
	if dead, settled := samples[len(samples)-1], samples[killedAt+2]; dead.packets != settled.packets {
		t.Errorf("packets read after tcpdump died: %v, then %v", settled.packets, dead.packets)
	}

	// The watcher is stopped as the kubelet stops it: it judges the rooms
	// it holds.
	watch.Process.Signal(syscall.SIGTERM)
	lines := <-events
	werr := watch.Wait()
	var verdicts []string
	for _, l := range lines {
		var ev struct {
			Event string          `json:"event"`
			Room  json.RawMessage `json:"room"`
		}
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("watcher output %q: %v", l, err)
		}
		if ev.Event == "verdict" {
			verdicts = append(verdicts, string(ev.Room))
		}
	}
	exp, err := scenarios.Read(logDir, podScenario)
	if err != nil {
		t.Fatal(err)
	}
	if werr != nil || len(verdicts) != len(exp.WithLog) {
		t.Fatalf("watcher: %v; %d verdicts, the emulators' %d rooms\n%s", werr, len(verdicts), len(exp.WithLog), wErr)
	}
	for _, v := range verdicts {
		var r struct {
			Room    int64  `json:"room"`
			Verdict string `json:"verdict"`
		}
		json.Unmarshal([]byte(v), &r)
		if want := exp.WithLog[strconv.FormatInt(r.Room, 10)]; want != r.Verdict {
			t.Errorf("room %d: %s, the emulators expect %s", r.Room, r.Verdict, want)
		}
	}
	// The same files and log replayed, with the watcher's flags.
	rsFlags := flagValues(rs.Args[1:])
	slices.Sort(files)
	replay := exec.CommandContext(ctx, build(t, "./cmd/roomspec"), append([]string{"replay", "-format", "json",
		"-variant", rsFlags["-variant"], "-deadline", rsFlags["-deadline"], "-log", filepath.Join(logDir, podScenario+".events.jsonl")}, files...)...)
	replayed, err := replay.Output()
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(replayed)), "\n") {
		if !strings.HasPrefix(l, `{"summary":`) { // the last line: the counts, not a room
			want = append(want, l)
		}
	}
	slices.Sort(want)
	slices.Sort(verdicts)
	if !slices.Equal(verdicts, want) {
		t.Errorf("the watcher's verdicts differ from replay's on the files tcpdump wrote:\nwatch:  %s\nreplay: %s",
			strings.Join(verdicts, "\n        "), strings.Join(want, "\n        "))
	}

	promtoolDeadCapture(t, p.rule, samples, killedAt)
}

// TestDaemonSetCaptureNeverStarts: the failure of issue 22, tcpdump run
// with the capabilities the manifest used to give it (NET_RAW and
// NET_ADMIN: Debian's tcpdump cannot then become its own user and exits
// at once) while the watcher serves on. The dead-capture alert must fire
// on what Prometheus scrapes (the lag counts from the watcher's start,
// before any packet).
func TestDaemonSetCaptureNeverStarts(t *testing.T) {
	p := newPodRun(t)
	td := *p.td.DeepCopy()
	td.SecurityContext.Capabilities.Add = []corev1.Capability{"NET_RAW", "NET_ADMIN"}
	_, tdStderr, _, tdExited := p.startTcpdump(td)
	select {
	case <-tdExited:
		t.Logf("tcpdump exited at once, as in issue 22: %s", strings.TrimSpace(tdStderr.String()))
	case <-time.After(15 * time.Second):
		t.Fatalf("tcpdump with NET_RAW and NET_ADMIN only did not fail (the test no longer shows the failure):\n%s", tdStderr)
	}
	watch, _, _ := p.startWatcher()
	p.scrape()
	time.Sleep(20 * scrapeInterval)
	samples := p.stopScraping()
	watch.Process.Signal(syscall.SIGTERM)
	watch.Wait()
	if s := samples[len(samples)-1]; !s.ok || s.packets != 0 || s.captureTimed {
		t.Errorf("no capture, yet the watcher reports %+v", s)
	}
	promtoolDeadCapture(t, p.rule, samples, 0)
}

// promtoolDeadCapture runs promtool's rule unit test on the series the
// scrapes recorded: RoomspecCaptureDead fires by the end, and neither
// while tcpdump ran nor a minute after it died.
func promtoolDeadCapture(t *testing.T, rule *monitoringv1.PrometheusRule, samples []podSample, killedAt int) {
	t.Helper()
	promtool := os.Getenv("ROOMSPEC_PROMTOOL")
	if promtool == "" {
		var err error
		if promtool, err = exec.LookPath("promtool"); err != nil {
			t.Skip("no promtool ($ROOMSPEC_PROMTOOL or PATH; .ci/run extracts Debian's): the alert is not evaluated")
		}
	}
	const alert, node = "RoomspecCaptureDead", "node-1"
	var dead *monitoringv1.Rule
	for _, g := range rule.Spec.Groups {
		for i, r := range g.Rules {
			if r.Alert == alert {
				dead = &g.Rules[i]
			}
		}
	}
	if dead == nil {
		t.Fatalf("the PrometheusRule has no %s", alert)
	}
	dir := t.TempDir()
	rulesYAML, err := yaml.Marshal(map[string]any{"groups": rule.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), rulesYAML, 0o644); err != nil {
		t.Fatal(err)
	}
	// Each scrape is a step of 15 s; the lag, a duration, stretches with it.
	var packets, lag []string
	for _, s := range samples {
		if !s.ok {
			packets, lag = append(packets, "_"), append(lag, "_")
			continue
		}
		packets = append(packets, strconv.FormatFloat(s.packets, 'f', -1, 64))
		lag = append(lag, strconv.FormatFloat(s.lag*timeScale, 'f', 3, 64))
	}
	annotations := map[string]string{}
	for k, v := range dead.Annotations {
		v = strings.ReplaceAll(v, "{{ $labels.node }}", node)
		if strings.Contains(v, "{{") {
			t.Fatalf("%s: annotation %s has a template this test does not expand: %q", alert, k, v)
		}
		annotations[k] = v
	}
	step := func(i int) string { return fmt.Sprintf("%ds", i*timeScale*int(scrapeInterval/time.Second)) }
	type alertTest struct {
		EvalTime  string           `json:"eval_time"`
		Alertname string           `json:"alertname"`
		ExpAlerts []map[string]any `json:"exp_alerts"`
	}
	var tests []alertTest
	for i := range killedAt {
		tests = append(tests, alertTest{step(i), alert, []map[string]any{}})
	}
	// A minute after tcpdump died: not yet.
	tests = append(tests, alertTest{step(killedAt + 60/timeScale), alert, []map[string]any{}})
	labels := map[string]string{"alertname": alert, "node": node}
	for k, v := range dead.Labels {
		labels[k] = v
	}
	delete(labels, "alertname")
	firing := []map[string]any{{"exp_labels": labels, "exp_annotations": annotations}}
	run := func(tests []alertTest) ([]byte, []byte, error) {
		unit := map[string]any{
			"rule_files":          []string{"rules.yaml"},
			"evaluation_interval": step(1),
			"tests": []map[string]any{{
				"interval": step(1),
				"input_series": []map[string]string{
					{"series": fmt.Sprintf(`roomspec_packets_total{node=%q}`, node), "values": strings.Join(packets, " ")},
					{"series": fmt.Sprintf(`roomspec_capture_lag_seconds{node=%q}`, node), "values": strings.Join(lag, " ")},
				},
				"alert_rule_test": tests,
			}},
		}
		unitYAML, err := yaml.Marshal(unit)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "dead-capture.test.yaml"), unitYAML, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(promtool, "test", "rules", "dead-capture.test.yaml")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		return out, unitYAML, err
	}
	tests = append(tests, alertTest{step(len(samples) - 1), alert, firing})
	if out, unitYAML, err := run(tests); err != nil {
		t.Fatalf("promtool test rules: %v\n%s\n%s", err, out, unitYAML)
	}
	// When it starts firing (for the README).
	for i := killedAt + 1; i < len(samples); i++ {
		if _, _, err := run([]alertTest{{step(i), alert, firing}}); err == nil {
			t.Logf("promtool test rules: %s fires %v after tcpdump died (Prometheus time: %d scrapes 1 s apart stand for 15 s), on none of the %d evaluations before",
				alert, time.Duration(i-killedAt)*timeScale*scrapeInterval, len(samples), killedAt+1)
			break
		}
	}
}

// scrapeWatcher reads the watcher's metrics.
func scrapeWatcher(client *http.Client, url string) podSample {
	s := podSample{wall: time.Now()}
	resp, err := client.Get(url)
	if err != nil {
		return s
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return s
	}
	value := func(name string, labels ...string) (float64, bool) {
		f, ok := fams[name]
		if !ok {
			return 0, false
		}
	metrics:
		for _, m := range f.Metric {
			for i := 0; i+1 < len(labels); i += 2 {
				found := false
				for _, l := range m.Label {
					found = found || l.GetName() == labels[i] && l.GetValue() == labels[i+1]
				}
				if !found {
					continue metrics
				}
			}
			switch {
			case m.Counter != nil:
				return m.Counter.GetValue(), true
			case m.Gauge != nil:
				return m.Gauge.GetValue(), true
			}
		}
		return 0, false
	}
	var ok1, ok2 bool
	s.packets, ok1 = value("roomspec_packets_total")
	s.lag, ok2 = value("roomspec_capture_lag_seconds")
	s.messages, _ = value("roomspec_messages_decoded_total")
	s.logObs, _ = value("roomspec_observations_total", "source", "log")
	_, s.buildInfo = value("roomspec_build_info")
	_, s.captureTimed = value("roomspec_capture_time_seconds")
	s.ok = ok1 && ok2
	return s
}

// httpClient returns a client whose connections are made in the node's
// network namespace.
func (n *node) httpClient() *http.Client {
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DialContext: n.dial}}
}

func (n *node) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: the thread, in the node's namespace, ends with
		// the goroutine.
		runtime.LockOSThread()
		f, err := os.Open(n.NetNS)
		if err != nil {
			ch <- result{nil, err}
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			ch <- result{nil, err}
			return
		}
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		ch <- result{c, err}
	}()
	r := <-ch
	return r.c, r.err
}

// runWithin runs cmd, killing its process group after limit or when ctx
// ends, and returns its combined output.
func runWithin(ctx context.Context, cmd *exec.Cmd, limit time.Duration) ([]byte, error) {
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return []byte(out.String()), err
	case <-ctx.Done():
	case <-time.After(limit):
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	return []byte(out.String()), errors.New("killed after " + limit.String())
}

// mountedVolume returns the volume of container c that path is in.
func mountedVolume(t *testing.T, c corev1.Container, path string) string {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if path == m.MountPath || strings.HasPrefix(path, m.MountPath+"/") {
			return m.Name
		}
	}
	t.Fatalf("container %s: %s is on no volume", c.Name, path)
	return ""
}

func baseNames(files []string) []string {
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = filepath.Base(f)
	}
	return out
}

// lockedBuffer collects a process's output from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() < 1<<20 {
		b.b.Write(p)
	}
	return len(p), nil
}

func (b *lockedBuffer) add(line string) { io.WriteString(b, line+"\n") }

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
