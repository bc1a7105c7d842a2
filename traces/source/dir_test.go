package source

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/roomspec/roomspec/traces/capture"
)

// readDir reads d until its context ends, and returns how many records it
// gave and the problems it reported.
func readDir(t *testing.T, d *Dir) (int, []error) {
	t.Helper()
	var mu sync.Mutex
	var problems []error
	d.Problem = func(err error) {
		mu.Lock()
		problems = append(problems, err)
		mu.Unlock()
	}
	n := 0
	for {
		_, err := d.Next()
		if err == io.EOF {
			return n, problems
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
}

func recordsIn(t *testing.T, data []byte) int {
	t.Helper()
	rd, err := capture.NewReader(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, err := rd.Next(); err != nil {
			return n
		}
		n++
	}
}

// TestDirStartedOver: the file being read is started over by its writer
// (a "tcpdump -C -W" ring that came round to it) and written past where
// the reader was: the reader notices (its first bytes changed), says so,
// reads it again from its start, then the newer file.
func TestDirStartedOver(t *testing.T) {
	parts := splitPcap(t, pcapFile(t), 3)
	dir := t.TempDir()
	name := filepath.Join(dir, "cap.pcap0")
	if err := os.WriteFile(name, parts[0], 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := OpenDir(ctx, dir, "", 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rewritten := append(append([]byte(nil), parts[1]...), parts[1][24:]...)
	go func() {
		time.Sleep(100 * time.Millisecond)
		os.WriteFile(name, rewritten, 0o644) // truncates, then writes past the reader
		time.Sleep(100 * time.Millisecond)
		os.WriteFile(filepath.Join(dir, "cap.pcap1"), parts[2], 0o644)
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	n, problems := readDir(t, d)
	want := recordsIn(t, parts[0]) + recordsIn(t, rewritten) + recordsIn(t, parts[2])
	if n != want || len(problems) != 1 || !errors.Is(problems[0], ErrOverwritten) {
		t.Errorf("%d records (want %d), problems %v (want one overwrite)", n, want, problems)
	}
}

// TestDirTruncated: the file being read is truncated to nothing and left
// so; the reader says so and reads the newer file when it comes.
func TestDirTruncated(t *testing.T) {
	parts := splitPcap(t, pcapFile(t), 2)
	dir := t.TempDir()
	name := filepath.Join(dir, "cap.pcap0")
	if err := os.WriteFile(name, parts[0], 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := OpenDir(ctx, dir, "", 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	go func() {
		time.Sleep(100 * time.Millisecond)
		os.Truncate(name, 0)
		time.Sleep(100 * time.Millisecond)
		os.WriteFile(filepath.Join(dir, "cap.pcap1"), parts[1], 0o644)
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	n, problems := readDir(t, d)
	want := recordsIn(t, parts[0]) + recordsIn(t, parts[1])
	if n != want || len(problems) == 0 || !errors.Is(problems[0], ErrOverwritten) {
		t.Errorf("%d records (want %d), problems %v (want an overwrite first)", n, want, problems)
	}
}

// TestDirStall: files written in the directory that the reader does not
// read (here the one it reads has a modification time in the future, so
// the new file looks older than it: the writer's clock is ahead) make a
// stall, said once with ErrStalled, and Stalled reports it.
func TestDirStall(t *testing.T) {
	parts := splitPcap(t, pcapFile(t), 2)
	dir := t.TempDir()
	name := filepath.Join(dir, "cap.pcap0")
	if err := os.WriteFile(name, parts[0], 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	os.Chtimes(name, future, future)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := OpenDir(ctx, dir, "", 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	d.StallAfter = 100 * time.Millisecond
	var stalled time.Duration
	go func() {
		time.Sleep(50 * time.Millisecond)
		os.WriteFile(filepath.Join(dir, "cap.pcap1"), parts[1], 0o644)
		time.Sleep(300 * time.Millisecond)
		stalled = d.Stalled()
		cancel()
	}()
	_, problems := readDir(t, d)
	if len(problems) != 1 || !errors.Is(problems[0], ErrStalled) || stalled < 100*time.Millisecond {
		t.Errorf("problems %v, stalled %v; want one stall of at least 100ms", problems, stalled)
	}
}

// TestDirSkipsCompressed: a rotation compressed after it was read
// ("tcpdump -z gzip") is not read again.
func TestDirSkipsCompressed(t *testing.T) {
	parts := splitPcap(t, pcapFile(t), 2)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cap.pcap0"), parts[0], 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := OpenDir(ctx, dir, "", 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	go func() {
		time.Sleep(50 * time.Millisecond)
		os.WriteFile(filepath.Join(dir, "cap.pcap0.gz"), gzipped(t, parts[0]), 0o644)
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	n, problems := readDir(t, d)
	if n != recordsIn(t, parts[0]) || len(problems) != 0 {
		t.Errorf("%d records, want %d; problems %v", n, recordsIn(t, parts[0]), problems)
	}
}

func gzipped(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
