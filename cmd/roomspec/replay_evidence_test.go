package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A capture damaged after its header (a real capture's first packets,
// then garbage) is reported as decode reports it, and the run is not a
// clean exit 0, whatever the rooms before the damage say.
func TestReplayDamagedCapture(t *testing.T) {
	data, err := os.ReadFile("../../traces/testdata/scenarios/storm-fixed.pcap")
	if err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte(nil), data[:len(data)/2]...)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4096 {
		damaged = append(damaged, byte(rng.IntN(256)))
	}
	path := filepath.Join(t.TempDir(), "damaged.pcap")
	if err := os.WriteFile(path, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"replay", "-variant", "fixed", "-deadline", "2s", path},
		{"replay", "-variant", "fixed", "-deadline", "2s", "-format", "json", path},
	} {
		var out, errb bytes.Buffer
		code := run(&env{stdout: &out, stderr: &errb}, args)
		assert.Equal(t, exitBadInput, code, "%v", args)
		assert.Regexp(t, `damaged\.pcap: damaged-file: frame \d+: `, errb.String())
		assert.Contains(t, errb.String(), "damaged.pcap: pcap: ")
		assert.Contains(t, errb.String(), "file damaged")
	}
}

// A log written without a field replay needs is said once, up front, with
// the field and its first line; the rooms are judged as with the field.
func TestReplayLogWithoutQueue(t *testing.T) {
	dir := "../../traces/testdata/scenarios"
	log, err := os.ReadFile(filepath.Join(dir, "storm-fork.events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	stripped := strings.NewReplacer(`,"queue":"bootstrap"`, "", `,"queue":"inflight"`, "").Replace(string(log))
	if stripped == string(log) {
		t.Fatal("the log has no queue fields to strip")
	}
	path := filepath.Join(t.TempDir(), "noqueue.jsonl")
	if err := os.WriteFile(path, []byte(stripped), 0o644); err != nil {
		t.Fatal(err)
	}
	replayWith := func(logPath string) (string, string, int) {
		var out, errb bytes.Buffer
		code := run(&env{stdout: &out, stderr: &errb}, []string{"replay", "-variant", "fork-90a52f44a", "-deadline", "2s",
			"-log", logPath, filepath.Join(dir, "storm-fork.pcap")})
		return out.String(), errb.String(), code
	}
	want, _, wantCode := replayWith(filepath.Join(dir, "storm-fork.events.jsonl"))
	got, stderr, code := replayWith(path)
	assert.Equal(t, wantCode, code)
	assert.Equal(t, want, got)
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one notice: %s", stderr)
	assert.Regexp(t, `noqueue\.jsonl: \d+ poll events without "queue": each poll's queue is inferred from its room's state \(first at line \d+\)`, stderr)
}
