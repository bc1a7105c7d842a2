package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/roomspec/roomspec/internal/scenarios"
)

// The live tests run the roomspec binary as operators do: built once per
// test run.
var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

func roomspecBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "roomspec-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "roomspec")
		cmd := exec.Command("go", "build", "-o", builtBin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// line is a line a process wrote, with the wall time it was read at.
type line struct {
	wall time.Time
	text string
}

// lines reads r line by line into the returned channel's slice.
func readLines(r io.Reader) <-chan []line {
	out := make(chan []line, 1)
	go func() {
		var ls []line
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
		for sc.Scan() {
			ls = append(ls, line{time.Now(), sc.Text()})
		}
		out <- ls
	}()
	return out
}

// needLive skips unless the live tests can run: root (tcpdump captures),
// tcpdump, and Debian's python3 with python3-zmq (.ci/run installs both).
func needLive(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("live test: skipped with -short")
	}
	if os.Geteuid() != 0 {
		t.Skip("live test: not root, so tcpdump cannot capture (run as root)")
	}
	if _, err := exec.LookPath("tcpdump"); err != nil {
		t.Skip("live test: no tcpdump (apt-get install tcpdump; .ci/run does)")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import zmq").Run(); err != nil {
		t.Skip("live test: no /usr/bin/python3 with python3-zmq (apt-get install python3-zmq; .ci/run does)")
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// sample is a scrape of roomspec_rooms_pinned.
type sample struct {
	wall   time.Time
	pinned float64
}

var pinnedRe = regexp.MustCompile(`(?m)^roomspec_rooms_pinned (\S+)$`)

// scrape reads /metrics every 50 ms until stop is closed.
func scrape(addr string, stop <-chan struct{}) <-chan []sample {
	out := make(chan []sample, 1)
	go func() {
		var ss []sample
		client := &http.Client{Timeout: time.Second}
		for {
			select {
			case <-stop:
				out <- ss
				return
			case <-time.After(50 * time.Millisecond):
			}
			resp, err := client.Get("http://" + addr + "/metrics")
			if err != nil {
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if m := pinnedRe.FindSubmatch(b); m != nil {
				v, _ := strconv.ParseFloat(string(m[1]), 64)
				ss = append(ss, sample{time.Now(), v})
			}
		}
	}()
	return out
}

// event is a line of roomspec watch's output.
type event struct {
	Event string          `json:"event"`
	Time  time.Time       `json:"time"`
	Room  json.RawMessage `json:"room"`
	room  struct {
		Room      int64     `json:"room"`
		Verdict   string    `json:"verdict"`
		AbortTime time.Time `json:"abort_time"`
	}
	wall time.Time
}

// TestWatchLive runs the scenario makers' real libzmq decode and prefill
// emulators on loopback, captures their traffic with tcpdump -U -w - into
// roomspec watch - (and, in the -i lo run, lets roomspec watch capture it
// itself), scrapes /metrics while they run, and checks that the pinned
// gauge rises to the scenario's pinned rooms within the deadline plus one
// second of their ABORTs' capture time (and stays 0 under the fix), that
// each pinned room is reported as its deadline passes, and that the final
// verdicts are the emulators' expectations and, line for line, roomspec
// replay's on the same capture and log.
func TestWatchLive(t *testing.T) {
	needLive(t)
	bin := roomspecBinary(t)
	for _, tc := range []struct {
		name, scenario, variant string
		mode                    liveMode
	}{
		{"fork-pipe", "storm-fork", "fork-90a52f44a", modePipe},
		{"fixed-pipe", "storm-fixed", "fixed", modePipe},
		{"fork-iface", "storm-fork", "fork-90a52f44a", modeIface},
		{"fork-dir", "storm-fork", "fork-90a52f44a", modeDir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			liveScenario(t, bin, tc.scenario, tc.variant, tc.mode)
		})
	}
}

// liveMode is how the watch gets the traffic.
type liveMode int

const (
	modePipe  liveMode = iota // tcpdump -w - | roomspec watch -
	modeIface                 // roomspec watch -i lo (tcpdump writes the file replay reads)
	modeDir                   // tcpdump -G 1 rotates files into a directory roomspec watches
)

func liveScenario(t *testing.T, bin, scenario, variant string, mode liveMode) {
	iface := mode == modeIface
	const deadline = 2 * time.Second // make_scenarios.py's DEADLINE
	dir := t.TempDir()
	port := freePort(t)
	logPath := filepath.Join(dir, scenario+".events.jsonl")
	pcapPath := filepath.Join(dir, "capture.pcap")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// tcpdump first, so that the capture sees every connection start.
	rotated := filepath.Join(dir, "rotated")
	if err := os.Mkdir(rotated, 0o777); err != nil {
		t.Fatal(err)
	}
	out := []string{"-w", "-"}
	if mode == modeDir {
		// A new file each second (when a packet comes), named by the time.
		out = []string{"-G", "1", "-w", filepath.Join(rotated, "cap-%s.pcap")}
	}
	tcpdump := exec.CommandContext(ctx, "tcpdump", append(append([]string{"-i", "lo", "--immediate-mode", "-U", "-n", "-B", "65536", "-s", "262144", "-Z", "root"},
		out...), fmt.Sprintf("tcp port %d", port))...)
	tcpdump.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	tdOut, err := tcpdump.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	tdErr, err := tcpdump.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tcpdump.Start(); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-tcpdump.Process.Pid, syscall.SIGKILL)
	tdLines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(tdErr)
		for sc.Scan() {
			tdLines <- sc.Text()
		}
		close(tdLines)
	}()
	var tdStderr []string
	for l := range tdLines {
		tdStderr = append(tdStderr, l)
		if strings.Contains(l, "listening on") {
			break
		}
	}

	args := []string{"watch", "-variant", variant, "-deadline", deadline.String(), "-idle", "1m", "-log", logPath, "-listen", "127.0.0.1:0"}
	switch mode {
	case modeIface:
		args = append(args, "-i", "lo", "-ports", strconv.Itoa(port))
	case modeDir:
		args = append(args, "-pattern", "cap-*.pcap", rotated)
	default:
		args = append(args, "-")
	}
	watch := exec.CommandContext(ctx, bin, args...)
	watchIn, err := watch.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	watchOut, err := watch.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	watchErr, err := watch.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer watch.Process.Kill()
	outLines := readLines(watchOut)
	errSc := bufio.NewScanner(watchErr)
	var addr string
	var watchStderr []string
	for errSc.Scan() {
		watchStderr = append(watchStderr, errSc.Text())
		if _, a, ok := strings.Cut(errSc.Text(), "on http://"); ok {
			addr = a
			break
		}
	}
	if addr == "" {
		t.Fatalf("roomspec watch did not say where it serves metrics: %q", watchStderr)
	}
	errLines := readLines(watchErr)
	stopScrape := make(chan struct{})
	samples := scrape(addr, stopScrape)

	// tcpdump's stream into a file (for replay) and into the watch.
	copied := make(chan error, 1)
	go func() {
		f, err := os.Create(pcapPath)
		if err != nil {
			copied <- err
			return
		}
		defer f.Close()
		w := io.Writer(f)
		if mode == modePipe {
			w = io.MultiWriter(f, watchIn)
		}
		_, err = io.Copy(w, tdOut)
		copied <- err
	}()

	// The emulators: real libzmq sockets, prefill's event log written as
	// they run.
	py := exec.CommandContext(ctx, "/usr/bin/python3", filepath.Join("..", "..", "traces", "testdata", "scenarios", "make_scenarios.py"),
		"--live", dir, "--port", strconv.Itoa(port), scenario)
	py.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	py.WaitDelay = 5 * time.Second
	if out, err := py.CombinedOutput(); err != nil {
		syscall.Kill(-py.Process.Pid, syscall.SIGKILL)
		t.Fatalf("emulators: %v\n%s", err, out)
	}
	// Let the last packets reach the capture, then stop it: the watch's
	// standard input ends, and it judges what it holds.
	time.Sleep(300 * time.Millisecond)
	syscall.Kill(tcpdump.Process.Pid, syscall.SIGINT)
	for l := range tdLines {
		tdStderr = append(tdStderr, l)
	}
	if err := <-copied; err != nil {
		t.Fatalf("copying the capture: %v", err)
	}
	tcpdump.Wait()
	if !slices.ContainsFunc(tdStderr, func(l string) bool { return strings.HasPrefix(l, "0 packets dropped by kernel") }) {
		t.Fatalf("tcpdump dropped packets: %q", tdStderr)
	}
	if mode != modePipe {
		// Not fed by standard input: stop it as Kubernetes would, once it
		// has read the last files' ends.
		if mode == modeDir {
			time.Sleep(300 * time.Millisecond)
		}
		watch.Process.Signal(syscall.SIGTERM)
	}
	watchIn.Close()
	events := <-outLines
	watchStderr = append(watchStderr, linesText(<-errLines)...)
	werr := watch.Wait()
	close(stopScrape)
	ss := <-samples

	exp, err := scenarios.Read(dir, scenario)
	if err != nil {
		t.Fatal(err)
	}
	wantCode := 0
	for _, v := range exp.WithLog {
		if v == "violated" {
			wantCode = 1
		}
	}
	var ee *exec.ExitError
	code := 0
	if werr != nil {
		if !errors.As(werr, &ee) {
			t.Fatal(werr)
		}
		code = ee.ExitCode()
	}
	if code != wantCode {
		t.Fatalf("roomspec watch: exit %d, want %d\nstderr: %s", code, wantCode, strings.Join(watchStderr, "\n"))
	}
	t.Logf("%s", watchStderr[len(watchStderr)-1])

	// The events.
	var verdicts []string
	pinned := map[int64]event{}
	for _, l := range events {
		var ev event
		if err := json.Unmarshal([]byte(l.text), &ev); err != nil {
			t.Fatalf("output line %q: %v", l.text, err)
		}
		if err := json.Unmarshal(ev.Room, &ev.room); err != nil {
			t.Fatalf("room of %q: %v", l.text, err)
		}
		ev.wall = l.wall
		switch ev.Event {
		case "verdict":
			verdicts = append(verdicts, compact(t, ev.Room, iface))
			if want := exp.WithLog[strconv.FormatInt(ev.room.Room, 10)]; want != ev.room.Verdict {
				t.Errorf("room %d: %s, the emulators expect %s", ev.room.Room, ev.room.Verdict, want)
			}
		case "pinned":
			pinned[ev.room.Room] = ev
		default:
			t.Errorf("unexpected event: %s", l.text)
		}
	}
	if len(verdicts) != len(exp.WithLog) {
		t.Errorf("%d verdicts, the emulators expect %d", len(verdicts), len(exp.WithLog))
	}

	if mode == modeDir {
		files, _ := filepath.Glob(filepath.Join(rotated, "cap-*.pcap"))
		t.Logf("tcpdump rotated %d files", len(files))
		if len(files) < 3 {
			t.Errorf("tcpdump rotated only %d files", len(files))
		}
	}
	// The same capture and log replayed (not for the rotated files: replay
	// decodes each file on its own, while the watch reads them as one
	// stream).
	if mode == modeDir {
		pinnedChecks(t, pinned, exp, ss, deadline)
		return
	}
	rep := exec.CommandContext(ctx, bin, "replay", "-format", "json", "-variant", variant, "-deadline", deadline.String(), "-idle", "1m",
		"-log", logPath, pcapPath)
	replayed, err := rep.Output()
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	var want []string
	for _, l := range strings.Split(strings.TrimSpace(string(replayed)), "\n") {
		if isSummaryLine([]byte(l)) {
			continue
		}
		want = append(want, compact(t, json.RawMessage(l), iface))
	}
	slices.Sort(want)
	slices.Sort(verdicts)
	if !slices.Equal(verdicts, want) {
		t.Errorf("watch's final verdicts differ from replay's on the same traffic:\nwatch:  %s\nreplay: %s", strings.Join(verdicts, "\n        "), strings.Join(want, "\n        "))
	}

	pinnedChecks(t, pinned, exp, ss, deadline)
}

// pinnedChecks: the rooms reported pinned are exactly the scenario's
// pinned rooms, each reported as its deadline passed; the gauge reads
// their number within the deadline plus one second of the last one's
// ABORT.
func pinnedChecks(t *testing.T, pinned map[int64]event, exp scenarios.Scenario, ss []sample, deadline time.Duration) {
	t.Helper()
	var rooms []int64
	var lastDue time.Time
	for room, ev := range pinned {
		rooms = append(rooms, room)
		due := ev.room.AbortTime.Add(deadline)
		if due.After(lastDue) {
			lastDue = due
		}
		t.Logf("room %d pinned: decided at capture time abort+%v, written %v after the deadline (wall clock)",
			room, ev.Time.Sub(ev.room.AbortTime).Round(time.Millisecond), ev.wall.Sub(due).Round(time.Millisecond))
		if late := ev.wall.Sub(due); late < 0 || late > time.Second {
			t.Errorf("room %d reported pinned %v after its deadline", room, late)
		}
	}
	slices.Sort(rooms)
	if !slices.Equal(rooms, exp.Pinned) {
		t.Errorf("rooms reported pinned %v, the emulators left pinned %v", rooms, exp.Pinned)
	}
	if len(ss) < 20 {
		t.Fatalf("only %d scrapes of /metrics", len(ss))
	}
	reached := time.Time{}
	most := 0.0
	for _, s := range ss {
		most = max(most, s.pinned)
		if reached.IsZero() && int(s.pinned) == len(exp.Pinned) && len(exp.Pinned) > 0 {
			reached = s.wall
		}
	}
	if int(most) != len(exp.Pinned) {
		t.Errorf("roomspec_rooms_pinned reached %v, want %d", most, len(exp.Pinned))
	}
	if len(exp.Pinned) > 0 {
		if reached.IsZero() || reached.After(lastDue.Add(time.Second)) {
			t.Errorf("roomspec_rooms_pinned reached %d at %v, the last deadline passed at %v", len(exp.Pinned), reached, lastDue)
		} else {
			t.Logf("roomspec_rooms_pinned reached %d %v after the last pinned room's deadline (%d scrapes)", len(exp.Pinned), reached.Sub(lastDue).Round(time.Millisecond), len(ss))
		}
	}
}

func linesText(ls []line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
	}
	return out
}

// compact returns the JSON object j in one canonical form. For a watch
// that captured on its own socket (iface), what only the packets'
// timestamps decide is left out: its socket stamps packets a few
// microseconds apart from tcpdump's, and a watch stopped by a signal
// judges the rooms it holds at the capture time reached, not at the last
// packet (an unreleased room's reason says how long it waited).
func compact(t *testing.T, j json.RawMessage, iface bool) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(j, &v); err != nil {
		t.Fatalf("%s: %v", j, err)
	}
	if iface {
		for _, k := range []string{"reason", "abort_time", "first_seen", "last_seen", "terminal_time", "latency_s"} {
			delete(v, k)
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
