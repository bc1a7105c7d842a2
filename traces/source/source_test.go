package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/decode"
)

func captures(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"*.pcap", "*.pcapng"} {
		m, err := filepath.Glob(filepath.Join("..", "testdata", "captures", pat))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatal("no committed captures")
	}
	return out
}

// messages decodes a capture and prints its messages with their
// provenance.
func messages(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	_, err := decode.Run(r, decode.Options{}, func(m *decode.Message) {
		out = append(out, fmt.Sprintf("%d %s %d %v %v %T", m.Frame, m.Time.Format(time.RFC3339Nano), m.Stream, m.Src, m.Dst, m.Wire))
	}, func(decode.Diagnostic) {})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d messages, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: message %d is\n  %s\nwant\n  %s", what, i, got[i], want[i])
		}
	}
}

// TestPcapReader: the pcap stream of a Stream decodes to exactly the
// messages of the capture itself (pcap and pcapng, Ethernet, IPv6, Linux
// cooked v1 and v2), and OnRecord sees each record, numbered, before any
// message it completes is decoded.
func TestPcapReader(t *testing.T) {
	for _, path := range captures(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := messages(t, bytes.NewReader(data))
		s, err := NewStream(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		p := NewPcapReader(s)
		seen := 0
		got := []string{}
		p.OnRecord = func(rec *capture.Record) {
			seen++
			if rec.Frame != seen {
				t.Fatalf("%s: record %d has frame %d", path, seen, rec.Frame)
			}
		}
		_, err = decode.Run(p, decode.Options{}, func(m *decode.Message) {
			got = append(got, fmt.Sprintf("%d %s %d %v %v %T", m.Frame, m.Time.Format(time.RFC3339Nano), m.Stream, m.Src, m.Dst, m.Wire))
			// (decode may hold a message back for a while, to put it in
			// capture order, but never emits one before its frame.)
			if m.Frame > seen {
				t.Errorf("%s: message of frame %d decoded before the record was read (%d)", path, m.Frame, seen)
			}
		}, func(decode.Diagnostic) {})
		if err != nil || p.Err() != nil {
			t.Fatalf("%s: %v, %v", path, err, p.Err())
		}
		equalLines(t, filepath.Base(path), got, want)
		if seen == 0 {
			t.Fatalf("%s: no record", path)
		}
	}
}

// TestPcapReaderEmpty: a source with no record is a capture with none.
func TestPcapReaderEmpty(t *testing.T) {
	data, err := os.ReadFile(captures(t)[0])
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStream(bytes.NewReader(data[:24])) // the pcap header alone
	if err != nil {
		t.Fatal(err)
	}
	if got := messages(t, NewPcapReader(s)); len(got) != 0 {
		t.Fatalf("messages from an empty stream: %v", got)
	}
}

// slowWriter writes data to path in pieces, with a pause between them,
// as a capture tool writes a file (pieces end anywhere, also inside a
// record).
func slowWriter(t *testing.T, path string, data []byte, pieces int, pause time.Duration) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	step := len(data)/pieces + 1
	for off := 0; off < len(data); off += step {
		if _, err := f.Write(data[off:min(off+step, len(data))]); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(pause)
	}
}

// TestFileGrowing: a capture file read while it is written gives every
// record, in order, then io.EOF once the context ends.
func TestFileGrowing(t *testing.T) {
	src := captures(t)[0]
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	want := messages(t, bytes.NewReader(data))
	path := filepath.Join(t.TempDir(), "live.pcap")
	if err := os.WriteFile(path, data[:24], 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f, err := OpenFile(ctx, path, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Error(err)
			return
		}
		rest := data[24:]
		for off := 0; off < len(rest); off += 777 {
			w.Write(rest[off:min(off+777, len(rest))])
			time.Sleep(time.Millisecond)
		}
		w.Close()
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	got := messages(t, NewPcapReader(f))
	wg.Wait()
	equalLines(t, "growing file", got, want)
}

// TestDirRotation: capture files written one after another into a
// directory (a real capture cut into files at record boundaries, as
// "tcpdump -C" cuts) are read in order as they are written, with frames
// numbered over all of them; a file that is not a capture is reported and
// skipped; the files already there at the start but the newest are not
// read.
func TestDirRotation(t *testing.T) {
	data := pcapFile(t)
	want := messages(t, bytes.NewReader(data))
	files := splitPcap(t, data, 4)
	dir := t.TempDir()
	// An old file that must not be read, then the first part as the
	// newest file at the start.
	if err := os.WriteFile(filepath.Join(dir, "cap.pcap9"), files[len(files)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, "cap.pcap9"), old, old)
	if err := os.WriteFile(filepath.Join(dir, "cap.pcap0"), files[0], 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := OpenDir(ctx, dir, "cap.pcap*", 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var problems []error
	d.Problem = func(err error) { problems = append(problems, err) }
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i, f := range files[1:] {
			time.Sleep(20 * time.Millisecond)
			if i == 1 {
				// Not a capture: reported, skipped.
				os.WriteFile(filepath.Join(dir, "cap.pcapx"), []byte("garbage, not a capture at all"), 0o644)
				time.Sleep(20 * time.Millisecond)
			}
			slowWriter(t, filepath.Join(dir, fmt.Sprintf("cap.pcap%d", i+1)), f, 3, 2*time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	frames := 0
	onRecord := func(rec *capture.Record) {
		frames++
		if rec.Frame != frames {
			t.Errorf("record %d has frame %d", frames, rec.Frame)
		}
	}
	p := NewPcapReader(d)
	p.OnRecord = onRecord
	got := messages(t, p)
	wg.Wait()
	equalLines(t, "rotating directory", got, want)
	if d.Files != len(files)+1 || len(problems) != 1 || !errors.Is(problems[0], capture.ErrNotCapture) {
		t.Errorf("%d files opened (want %d), problems %v", d.Files, len(files)+1, problems)
	}
}

// pcapFile returns the first committed capture in pcap format (which
// splitPcap can cut).
func pcapFile(t *testing.T) []byte {
	t.Helper()
	for _, p := range captures(t) {
		if filepath.Ext(p) == ".pcap" {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			return data
		}
	}
	t.Fatal("no pcap capture")
	return nil
}

// splitPcap cuts a pcap file into n files at record boundaries, each with
// the file's header.
func splitPcap(t *testing.T, data []byte, n int) [][]byte {
	t.Helper()
	hdr := data[:24]
	var bounds []int
	for off := 24; off+16 <= len(data); {
		bounds = append(bounds, off)
		off += 16 + int(uint32(data[off+8])|uint32(data[off+9])<<8|uint32(data[off+10])<<16|uint32(data[off+11])<<24)
	}
	bounds = append(bounds, len(data))
	per := (len(bounds) - 1 + n - 1) / n
	var out [][]byte
	for i := 0; i < len(bounds)-1; i += per {
		j := min(i+per, len(bounds)-1)
		out = append(out, append(append([]byte(nil), hdr...), data[bounds[i]:bounds[j]]...))
	}
	return out
}

// TestDirOverwritten: a file that shrinks while read (the rotation came
// round to it) is reported, and reading goes on with the newest file.
func TestDirOverwritten(t *testing.T) {
	data := pcapFile(t)
	files := splitPcap(t, data, 2)
	dir := t.TempDir()
	name := filepath.Join(dir, "cap.pcap0")
	if err := os.WriteFile(name, files[0], 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d, err := OpenDir(ctx, dir, "", 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var problems []error
	d.Problem = func(err error) { problems = append(problems, err) }
	n := 0
	for {
		if _, err := d.Next(); err != nil {
			t.Fatal(err)
		}
		n++
		if n == 3 {
			// Started over with a shorter file in place.
			if err := os.WriteFile(name, files[1][:24], 0o644); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	for {
		if _, err := d.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if len(problems) == 0 || !errors.Is(problems[0], ErrOverwritten) {
		t.Fatalf("problems %v, want an overwrite", problems)
	}
}
