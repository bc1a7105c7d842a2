package source

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestGzip: a gzip capture reads as the capture it holds, on standard
// input, as a file of a capture, and as a stream.
func TestGzip(t *testing.T) {
	data := pcapFile(t)
	want := messages(t, bytes.NewReader(data))
	zipped := gzipped(t, data)

	s, err := NewStream(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	equalLines(t, "gzip stream", messages(t, NewPcapReader(s)), want)

	dir := t.TempDir()
	parts := splitPcap(t, data, 2)
	name := filepath.Join(dir, "b.pcap.gz")
	if err := os.WriteFile(name, gzipped(t, parts[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	// The first part on standard input, the second in a .gz file.
	fs, err := OpenCapture([]string{name, "-"}, bytes.NewReader(gzipped(t, parts[0])))
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	n := 0
	for {
		if _, err := fs.Next(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if got := fs.Names(); n != recordsIn(t, data) || got[0] != "-" || got[1] != name {
		t.Errorf("%d records (want %d), files read in the order %v", n, recordsIn(t, data), got)
	}
	if _, err := OpenCapture([]string{"-", "-"}, bytes.NewReader(data)); err == nil {
		t.Error("standard input given twice was accepted")
	}
}
