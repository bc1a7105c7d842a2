package main

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWatchSignal runs roomspec watch on a capture file, which it follows
// as if it were still being written: while it runs, /healthz answers and
// /metrics shows the scenario's pinned rooms; SIGTERM then makes it judge
// the rooms it holds, write their verdicts and exit (1: violations).
func TestWatchSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := roomspecBinary(t)
	scen := filepath.Join("..", "..", "traces", "testdata", "scenarios")
	cmd := exec.Command(bin, "watch", "-variant", "fork-90a52f44a", "-deadline", "2s", "-idle", "1m",
		"-log", filepath.Join(scen, "storm-fork.events.jsonl"), "-listen", "127.0.0.1:0", filepath.Join(scen, "storm-fork.pcap"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	errSc := bufio.NewScanner(stderr)
	var addr string
	for errSc.Scan() {
		if _, a, ok := strings.Cut(errSc.Text(), "on http://"); ok {
			addr = a
			break
		}
	}
	if addr == "" {
		t.Fatal("no metrics address on stderr")
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(stderr)
		rest <- string(b)
	}()
	out := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(stdout)
		out <- string(b)
	}()
	get := func(path string) string {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s", path, resp.Status)
		}
		return string(b)
	}
	if got := get("/healthz"); got != "ok\n" {
		t.Errorf("/healthz: %q", got)
	}
	// The file is read at once; its pinned rooms show, and the rooms
	// released in time are observed at their release. Each gauge is set
	// as the watcher gets to it: wait for all of them.
	wants := []string{
		"\nroomspec_rooms_pinned 4\n",
		`roomspec_alerts_total{event="pinned"} 4`,
		`roomspec_rooms_held 12`,
		`roomspec_observations_total{source="log"} 68`,
		"process_resident_memory_bytes ",
		"roomspec_capture_lag_seconds ",
		// The four rooms released in time, observed at their release
		// (before any verdict).
		`roomspec_abort_release_latency_seconds_count 4`,
		`roomspec_build_info{deadline="2",variant="fork-90a52f44a",version="`,
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		metrics := get("/metrics")
		var missing []string
		for _, want := range wants {
			if !strings.Contains(metrics, want) {
				missing = append(missing, want)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics never had %q:\n%s", missing, metrics)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	lines := <-out
	werr := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v, want 1", werr)
	}
	if n := strings.Count(lines, `{"event":"verdict",`); n != 8 {
		t.Errorf("%d verdicts after SIGTERM, want 8:\n%s", n, lines)
	}
	if s := <-rest; !strings.Contains(s, "roomspec watch: stopped: 12 rooms, 8 aborted: 4 satisfied, 0 predicted-released, 4 violated") {
		t.Errorf("stderr: %s", s)
	}
}
