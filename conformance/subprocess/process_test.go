package subprocess

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec/model"
)

// echoOK is a child that answers every request {"ok":true}.
const echoOK = `while read -r l; do echo '{"ok":true}'; done`

// pidFile returns a path for a child to write a pid into, and a reader of it.
func pidFile(t *testing.T) (string, func() int) {
	path := filepath.Join(t.TempDir(), "pid")
	return path, func() int {
		t.Helper()
		for range 100 {
			if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
				pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
				if err != nil {
					t.Fatal(err)
				}
				return pid
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("the child wrote no pid to %s", path)
		return 0
	}
}

// gone waits until process pid has ended (or is a zombie: ended, not yet
// reaped by its new parent).
func gone(t *testing.T, pid int) {
	t.Helper()
	for range 200 {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return
		}
		if f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("process %d still runs", pid)
}

func upstream(t *testing.T) *model.Config { return loadConfig(t, "upstream") }

// A child that never replies: the first request times out after
// StartTimeout, the error says so, and its process group is killed.
func TestNoReplyTimesOut(t *testing.T) {
	path, pid := pidFile(t)
	p := New("echo $$ > "+path+"; exec sleep 100000", Options{StartTimeout: 300 * time.Millisecond})
	start := time.Now()
	err := p.Reset(upstream(t))
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("reset: %v; want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	if msg := err.Error(); !strings.Contains(msg, "reset: no reply within 300ms") || !strings.Contains(msg, "signal: killed") {
		t.Errorf("error %q does not say which request timed out, after how long, and that the child was killed", msg)
	}
	gone(t, pid())
	// Dead for good: later requests fail at once with the same error.
	if err2 := p.Reset(upstream(t)); err2 != err {
		t.Errorf("second reset: %v", err2)
	}
	if err := p.Close(); err != nil {
		t.Errorf("close after a failure: %v", err)
	}
}

// A child that exits: its stderr and exit status are in the error.
func TestExitShowsStderrAndStatus(t *testing.T) {
	p := New("echo oops >&2; exit 3", Options{})
	err := p.Reset(upstream(t))
	if !errors.Is(err, ErrExited) {
		t.Fatalf("reset: %v; want ErrExited", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Status != "exit status 3" || e.Stderr != "oops\n" || e.Request != "reset" {
		t.Fatalf("error %#v; want status 3, stderr oops, on reset", err)
	}
	if !strings.Contains(err.Error(), "oops") || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("message %q lacks the stderr or the status", err)
	}
}

// Only the end of a flood of stderr is kept.
func TestStderrIsBounded(t *testing.T) {
	p := New(`head -c 20000000 /dev/zero | tr '\0' x >&2; echo END >&2; exit 1`, Options{})
	err := p.Reset(upstream(t))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("reset: %v", err)
	}
	if len(e.Stderr) > StderrKeep+100 || !strings.HasSuffix(e.Stderr, "xxxEND\n") || !strings.HasPrefix(e.Stderr, fmt.Sprintf("[%d earlier bytes not kept]", 20000004-StderrKeep)) {
		t.Errorf("kept %d bytes of stderr, starting %.60q", len(e.Stderr), e.Stderr)
	}
}

// A reply line over MaxReplyLine is an error, not read whole.
func TestHugeReplyLine(t *testing.T) {
	p := New(`head -c 3000000 /dev/zero | tr '\0' x; echo; sleep 100`, Options{})
	start := time.Now()
	err := p.Reset(upstream(t))
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("reset: %v; want ErrLineTooLong", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v: the child was not killed at once", d)
	}
}

// A reply that is not the protocol's names what came, and the child is
// killed at once.
func TestGarbageReply(t *testing.T) {
	for _, reply := range []string{"garbage", "[1,2]", `{"ok":1}`, `{"error":"x"}`} {
		p := New("echo '"+reply+"'; sleep 100", Options{})
		start := time.Now()
		err := p.Reset(upstream(t))
		if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), strconv.Quote(reply)) {
			t.Errorf("%s: %v; want a protocol error quoting the reply", reply, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: took %v", reply, d)
		}
	}
}

// An observed state that does not fit the configuration is out of
// protocol: the child is killed, and the error names the part of the
// state that does not fit and shows the child's stderr.
func TestBadStateIsProtocolError(t *testing.T) {
	for _, tt := range []struct{ state, want string }{
		{`{"request_status":[]}`, `state: no field "transfer_infos"`},
		{strings.Replace(stateSeed, `"request_status":["Absent"]`, `"request_status":[]`, 1), "state.request_status: want 1 elements, got 0"},
		{strings.Replace(stateSeed, `"left":1`, `"left":"one"`, 1), "state.wqueue[0].left: want an integer"},
	} {
		p := New(`echo starting >&2; read -r l; echo '{"ok":true}'; read -r l; echo '{"ok":true,"state":`+tt.state+`}'; sleep 100`, Options{})
		if err := p.Reset(loadConfig(t, "upstream-reuse")); err != nil {
			t.Fatal(err)
		}
		_, err := p.Observe()
		if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "starting") {
			t.Errorf("observe %s: %v; want a protocol error saying %q", tt.state, err, tt.want)
		}
	}
}

// The state conformance/python/prefill.py writes reads as the spec's.
func TestStateSeedReads(t *testing.T) {
	c := loadConfig(t, "upstream-reuse")
	s, err := c.ReadState([]byte(stateSeed))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Wqueue) != 1 || s.Wqueue[0].Left != 1 || !s.Aborted[0] || len(s.Chan[1]) != 1 {
		t.Errorf("read %s", c.Format(&s))
	}
}

// A refusal is an answer, not a failure: the process stays usable.
func TestRefusalKeepsTheProcess(t *testing.T) {
	p := New(`while read -r l; do case "$l" in *apply*) echo '{"ok":false,"error":"not now"}';; *) echo '{"ok":true}';; esac; done`, Options{})
	defer p.Close()
	c := upstream(t)
	if err := p.Reset(c); err != nil {
		t.Fatal(err)
	}
	err := p.Apply(model.Action{ID: 0})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not now") {
		t.Fatalf("apply: %v", err)
	}
	if err := p.Reset(c); err != nil {
		t.Fatalf("reset after a refusal: %v", err)
	}
}

// Idle passes are sent only to a child whose reply to reset offered them,
// and a refused one wraps ErrRefused.
func TestIdleOnlyWhereOffered(t *testing.T) {
	c := upstream(t)
	p := New(echoOK, Options{})
	defer p.Close()
	if err := p.Reset(c); err != nil {
		t.Fatal(err)
	}
	if err := p.Idle(model.Action{ID: model.ActSchedulerPollBootstrap}); !errors.Is(err, ErrNoIdle) {
		t.Fatalf("idle on a child that offers none: %v", err)
	}
	q := New(`while read -r l; do case "$l" in *reset*) echo '{"ok":true,"idle":true}';; *idle*) echo '{"ok":false,"error":"moved"}';; *) echo '{"ok":true}';; esac; done`, Options{})
	defer q.Close()
	if err := q.Reset(c); err != nil {
		t.Fatal(err)
	}
	if err := q.Idle(model.Action{ID: model.ActSchedulerPollBootstrap}); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "moved") {
		t.Fatalf("idle: %v", err)
	}
}

// The first reply may take StartTimeout (an interpreter importing its
// modules); later ones only Timeout.
func TestSlowStart(t *testing.T) {
	p := New("sleep 0.5; "+echoOK, Options{Timeout: 100 * time.Millisecond, StartTimeout: 5 * time.Second})
	defer p.Close()
	c := upstream(t)
	if err := p.Reset(c); err != nil {
		t.Fatalf("first reset: %v", err)
	}
	if err := p.Reset(c); err != nil {
		t.Fatalf("second reset: %v", err)
	}
	q := New(`read -r l; echo '{"ok":true}'; sleep 100`, Options{Timeout: 100 * time.Millisecond})
	defer q.Close()
	if err := q.Reset(c); err != nil {
		t.Fatal(err)
	}
	if err := q.Reset(c); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "100ms") {
		t.Errorf("second reset of a child that stopped answering: %v", err)
	}
}

// Close ends the child's background processes too (the child's process
// group is killed on exit).
func TestCloseKillsBackgroundProcesses(t *testing.T) {
	path, pid := pidFile(t)
	p := New("sleep 4321 & echo $! > "+path+"; "+echoOK, Options{})
	if err := p.Reset(upstream(t)); err != nil {
		t.Fatal(err)
	}
	bg := pid()
	if err := p.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	gone(t, bg)
}

// A child that ignores quit and its closed stdin is killed after Grace,
// and Close says so.
func TestCloseKillsAStubbornChild(t *testing.T) {
	p := New(`trap '' TERM; read -r l; echo '{"ok":true}'; exec sleep 100`, Options{Grace: 200 * time.Millisecond})
	if err := p.Reset(upstream(t)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := p.Close()
	if err == nil || !strings.Contains(err.Error(), "signal: killed") {
		t.Errorf("close: %v; want the child reported killed", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("close took %v", d)
	}
}

// KillAll (what roomspec runs on SIGINT and SIGTERM) kills every child's
// group.
func TestKillAll(t *testing.T) {
	path, pid := pidFile(t)
	p := New("sleep 4321 & echo $! > "+path+"; "+echoOK, Options{})
	if err := p.Reset(upstream(t)); err != nil {
		t.Fatal(err)
	}
	bg := pid()
	KillAll()
	gone(t, bg)
	if err := p.Reset(upstream(t)); !errors.Is(err, ErrExited) && !errors.Is(err, ErrTimeout) {
		t.Errorf("reset after KillAll: %v", err)
	}
	p.Close()
}

func TestRing(t *testing.T) {
	var r ring
	chunk := strings.Repeat("y", 1000)
	for range 1000 {
		r.Write([]byte(chunk))
		if len(r.buf) > 2*StderrKeep {
			t.Fatalf("ring holds %d bytes", len(r.buf))
		}
	}
	r.Write([]byte("END"))
	s := r.String()
	want := fmt.Sprintf("[%d earlier bytes not kept]\n", 1000*1000+3-StderrKeep)
	if !strings.HasPrefix(s, want) || len(s) != len(want)+StderrKeep || !strings.HasSuffix(s, "yEND") {
		t.Errorf("ring gives %d bytes starting %.50q", len(s), s)
	}
}

// A child that exits while a process it started keeps its stdout open
// fails as an exit, at once, not after the timeout; and the background
// process is killed.
func TestExitWithBackgroundHoldingStdout(t *testing.T) {
	path, pid := pidFile(t)
	p := New("sleep 4321 & echo $! > "+path+"; echo oops >&2; exit 3", Options{StartTimeout: 10 * time.Second})
	start := time.Now()
	err := p.Reset(upstream(t))
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "oops") {
		t.Errorf("reset: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	gone(t, pid())
}

// escaper is a child that starts a grandchild which leaves the child's
// process group and session (setsid, in a subshell that exits at once,
// so that the grandchild is an orphan too), writes its pid to path and
// sleeps; then the child answers every request.
func escaper(path string) string {
	return `(setsid sh -c 'echo $$ > ` + path + `; exec sleep 4321' &); ` + echoOK
}

// inOtherSession checks that pid leads a session of its own (it called
// setsid): it really left the child's process group and session.
func inOtherSession(t *testing.T, pid int) {
	t.Helper()
	session := func(pid int) string {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// pid (comm) state ppid pgrp session ...
		return strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))[3]
	}
	if sid := session(pid); sid != strconv.Itoa(pid) || sid == session(os.Getpid()) {
		t.Fatalf("the grandchild %d is in session %s: it did not call setsid", pid, sid)
	}
}

// A grandchild that calls setsid does not outlive the run (issue 25),
// whether the run passes (Close), the child dies (a failure) or roomspec
// is stopped (KillAll); and nothing is left after any of them.
func TestSetsidGrandchildDoesNotEscape(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the tree of a child is found through /proc: Linux only")
	}
	for _, end := range []string{"close", "failure", "KillAll"} {
		t.Run(end, func(t *testing.T) {
			path, pid := pidFile(t)
			cmd := escaper(path)
			if end == "failure" {
				// The child fails only once its grandchild is running (under
				// load, the failure's kill could come before the setsid).
				cmd = `(setsid sh -c 'echo $$ > ` + path + `; exec sleep 4321' &); while [ ! -s ` + path + ` ]; do sleep 0.01; done; read -r l; echo garbage`
			}
			p := New(cmd, Options{})
			err := p.Reset(upstream(t))
			grandchild := pid()
			switch end {
			case "close":
				if err != nil {
					t.Fatal(err)
				}
				inOtherSession(t, grandchild)
				if err := p.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			case "failure":
				if !errors.Is(err, ErrProtocol) {
					t.Fatalf("reset: %v; want a reply out of protocol", err)
				}
			case "KillAll":
				if err != nil {
					t.Fatal(err)
				}
				inOtherSession(t, grandchild)
				KillAll()
				p.Close()
			}
			gone(t, grandchild)
			if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", grandchild)); err == nil {
				t.Errorf("the grandchild was killed but not reaped: %s", st)
			}
		})
	}
}

// Output's one-shot commands leave nothing behind either.
func TestOutputKillsSetsidGrandchild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux only")
	}
	path, pid := pidFile(t)
	out, err := Output(context.Background(), []string{"sh", "-c", `(setsid sh -c 'echo $$ > ` + path + `; exec sleep 4321' &); echo done`}, OutputOptions{})
	if err != nil || string(out) != "done\n" {
		t.Fatalf("output %q, %v", out, err)
	}
	gone(t, pid())
}

// NewArgv runs argv without a shell: words with spaces, quotes and $ reach
// the child as they are, and env is its whole environment.
func TestNewArgv(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "args")
	script := `printf '%s\n' "$@" "$ROOMSPEC_ARGV" > "$0"; while read -r l; do echo '{"ok":true}'; done`
	p := NewArgv([]string{"sh", "-c", script, out, "a b", `it's "$HOME"`, ""},
		[]string{"ROOMSPEC_ARGV=set", "PATH=" + os.Getenv("PATH")}, Options{})
	if err := p.Reset(loadConfig(t, "upstream")); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a b\nit's \"$HOME\"\n\nset\n"; string(b) != want {
		t.Errorf("the child got %q, want %q", b, want)
	}
	if !strings.Contains(p.Command(), "a b") {
		t.Errorf("Command() = %q", p.Command())
	}
}
