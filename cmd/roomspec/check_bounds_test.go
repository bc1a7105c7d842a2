package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/roomspec/roomspec/tla/check"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upSpec writes a spec with no end (x' = x + 1) and returns its path.
func upSpec(t *testing.T) string {
	dir := t.TempDir()
	tla := filepath.Join(dir, "Up.tla")
	require.NoError(t, os.WriteFile(tla, []byte("---- MODULE Up ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x + 1\n====\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Up.cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	return tla
}

// TestCheckBounds: a bound stops the search with exit status 3 and a report
// of what was explored; a non-positive bound is a usage error.
func TestCheckBounds(t *testing.T) {
	tla := upSpec(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-max-states", "50"}, "-max-states 50 reached"},
		{[]string{"-max-depth", "9"}, "-max-depth 9 reached"},
		{[]string{"-max-memory", "1"}, "-max-memory 1 MiB reached"},
	} {
		var out, errOut bytes.Buffer
		code := run(&env{stdout: &out, stderr: &errOut}, append(append([]string{"check"}, tc.args...), tla))
		assert.Equal(t, exitIncomplete, code, "%v: %s%s", tc.args, out.String(), errOut.String())
		assert.Contains(t, out.String(), "stopped before it was complete: "+tc.want)
		assert.Contains(t, out.String(), "states left on queue")
	}
	var out, errOut bytes.Buffer
	code := run(&env{stdout: &out, stderr: &errOut}, []string{"check", "-max-states", "50", "-format", "json", tla})
	assert.Equal(t, exitIncomplete, code)
	assert.Contains(t, out.String(), `"result":"incomplete"`)
	assert.Contains(t, out.String(), `"distinctStates":50`)
	for _, bad := range []string{"-max-states", "-max-depth", "-max-memory", "-workers"} {
		errOut.Reset()
		code := run(&env{stdout: &out, stderr: &errOut}, []string{"check", bad, "0", tla})
		assert.Equal(t, exitBadInput, code, bad)
		assert.Contains(t, errOut.String(), "roomspec check: "+bad+` "0": must be positive`)
	}
}

// TestCheckInterrupt: SIGINT stops an endless search, which reports the
// states, depth and queue it reached and exits with status 3.
func TestCheckInterrupt(t *testing.T) {
	tla := upSpec(t)
	var out, errOut bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run(&env{stdout: &out, stderr: &errOut}, []string{"check", "-max-memory", "400", tla})
	}()
	time.Sleep(time.Second)
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGINT))
	select {
	case code := <-done:
		assert.Equal(t, exitIncomplete, code, "%s%s", out.String(), errOut.String())
		assert.Contains(t, out.String(), "stopped before it was complete: interrupted")
		assert.Regexp(t, `\d+ states generated, \d+ distinct states found, \d+ states left on queue`, out.String())
		assert.Contains(t, out.String(), "The depth of the complete state graph search is")
	case <-time.After(30 * time.Second):
		t.Fatal("check did not stop on SIGINT")
	}
}

// longSpec writes a spec whose Init is issue 25's long expression (2^22
// subsets built and filtered: seconds, over a gigabyte), printing "start"
// just before it, and returns its path.
func longSpec(t *testing.T) string {
	dir := t.TempDir()
	tla := filepath.Join(dir, "Long.tla")
	src := "---- MODULE Long ----\nEXTENDS Naturals, FiniteSets, TLC\nVARIABLE x\n" +
		"Init == PrintT(\"start\") /\\ x = Cardinality({s \\in SUBSET (1..22) : 1 \\in s})\nNext == x' = x\n====\n"
	require.NoError(t, os.WriteFile(tla, []byte(src), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Long.cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	return tla
}

// signalOnWrite sends sig to this process at its first write: the spec's
// PrintT, just before the long expression.
type signalOnWrite struct {
	bytes.Buffer
	sig  syscall.Signal
	sent bool
}

func (w *signalOnWrite) Write(p []byte) (int, error) {
	if !w.sent {
		w.sent = true
		if err := syscall.Kill(os.Getpid(), w.sig); err != nil {
			panic(err)
		}
	}
	return w.Buffer.Write(p)
}

// TestCheckStopsInsideExpression: SIGINT, SIGTERM and -max-memory stop
// check while it evaluates one long expression (issue 25: it used to run
// it to its end), with exit status 3 and the report of what was explored:
// no state, since the expression is Init's.
func TestCheckStopsInsideExpression(t *testing.T) {
	tla := longSpec(t)
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		args []string
		want string
	}{
		{"SIGINT", syscall.SIGINT, nil, "interrupted"},
		{"SIGTERM", syscall.SIGTERM, nil, "interrupted"},
		{"max-memory", 0, []string{"-max-memory", "400"}, "-max-memory 400 MiB reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			errOut := &signalOnWrite{sig: tc.sig, sent: tc.sig == 0}
			done := make(chan int)
			go func() {
				done <- run(&env{stdout: &out, stderr: errOut}, append(append([]string{"check"}, tc.args...), tla))
			}()
			select {
			case code := <-done:
				assert.Equal(t, exitIncomplete, code, "%s%s", out.String(), errOut.String())
				assert.Contains(t, out.String(), "stopped before it was complete: "+tc.want)
				assert.Contains(t, out.String(), "0 states generated, 0 distinct states found, 0 states left on queue")
			case <-time.After(5 * time.Minute):
				t.Fatal("check did not stop")
			}
		})
	}
}

// TestCheckLongChain: Init == x = 1 + 1 + ... + 1 with 1.3M terms is an
// error at its file:line:col (exit 2), not an overflow of the stack.
func TestCheckLongChain(t *testing.T) {
	dir := t.TempDir()
	tla := filepath.Join(dir, "Chain.tla")
	src := "---- MODULE Chain ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 1" + strings.Repeat(" + 1", 1_300_000) + "\nNext == x' = x\n====\n"
	require.NoError(t, os.WriteFile(tla, []byte(src), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Chain.cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	var out, errOut bytes.Buffer
	code := run(&env{stdout: &out, stderr: &errOut}, []string{"check", tla})
	assert.Equal(t, exitBadInput, code)
	assert.Regexp(t, `Chain.tla:4:\d+: expression nested too deeply`, errOut.String())
}

// boundedLoad returns what load returns, or stops it when the heap
// exceeds the budget or the context is done (issue 25: a spec of 1.5M
// conjuncts took 800 MB to load, -max-memory notwithstanding).
func TestBoundedLoad(t *testing.T) {
	block := func() (*check.Model, error) { select {} }
	m := &check.Model{}
	for _, tc := range []struct {
		name    string
		load    func() (*check.Model, error)
		limit   uint64
		heap    uint64
		cancel  bool
		stopped string
	}{
		{"loaded", func() (*check.Model, error) { return m, nil }, 1 << 30, 0, false, ""},
		{"no bound", func() (*check.Model, error) { return m, nil }, 0, 1 << 40, false, ""},
		{"over the budget", block, 400 << 20, 401 << 20, false, "-max-memory 400 MiB reached while loading the spec"},
		{"interrupted", block, 0, 0, true, "interrupted while loading the spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			got, stopped, err := boundedLoad(ctx, tc.load, tc.limit, func() uint64 { return tc.heap })
			require.NoError(t, err)
			assert.Equal(t, tc.stopped, stopped)
			if tc.stopped == "" {
				assert.Same(t, m, got)
			}
		})
	}
}

// A spec that takes a while to load (100,000 conjuncts) under a budget
// the heap already exceeds: check stops while it reads the spec, exit 3,
// and says so (before, it loaded the whole spec first).
func TestCheckStopsWhileLoading(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("---- MODULE Big ----\nEXTENDS Naturals\nVARIABLE x\nInit == x = 0\nNext == x' = x\nBig ==\n")
	for i := range 100000 {
		fmt.Fprintf(&b, "  /\\ x # %d\n", i+1)
	}
	b.WriteString("====\n")
	tla := filepath.Join(dir, "Big.tla")
	require.NoError(t, os.WriteFile(tla, []byte(b.String()), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Big.cfg"), []byte("INIT Init\nNEXT Next\n"), 0o644))
	var out, errOut bytes.Buffer
	code := run(&env{stdout: &out, stderr: &errOut}, []string{"check", "-max-memory", "1", tla})
	assert.Equal(t, exitIncomplete, code, "%s%s", out.String(), errOut.String())
	assert.Contains(t, out.String(), "stopped before it was complete: -max-memory 1 MiB reached while loading the spec")
}
