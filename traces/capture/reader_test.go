package capture

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

func TestNotCapture(t *testing.T) {
	for name, data := range map[string][]byte{
		"empty":           nil,
		"short":           {0xd4, 0xc3},
		"text":            []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		"pcap version 3":  {0xd4, 0xc3, 0xb2, 0xa1, 3, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 0, 0, 0},
		"pcapng bad BOM":  {0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 1, 2, 3, 4},
		"pcap header cut": {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0},
	} {
		_, err := NewReader(bytes.NewReader(data))
		if !errors.Is(err, ErrNotCapture) {
			t.Errorf("%s: err = %v, want ErrNotCapture", name, err)
		}
	}
}

// TestPcapngTruncations cuts the real pcapng capture at every 97th byte:
// each cut must read the complete records before it, then stop with
// ErrTruncated naming the next frame (or io.EOF at a block boundary).
func TestPcapngTruncations(t *testing.T) {
	data, err := os.ReadFile("../testdata/captures/many_conns.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	// Frame count and end offset of each record of the whole file.
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var ends []int64
	for {
		_, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, rd.Offset())
	}
	for cut := 40; cut < len(data); cut += 97 {
		rd, err := NewReader(bytes.NewReader(data[:cut]))
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		n := 0
		for {
			_, err = rd.Next()
			if err != nil {
				break
			}
			n++
		}
		complete := 0
		for complete < len(ends) && ends[complete] <= int64(cut) {
			complete++
		}
		if n != complete {
			t.Fatalf("cut %d: read %d records, want %d", cut, n, complete)
		}
		var re *RecordError
		if err != io.EOF && (!errors.As(err, &re) || !errors.Is(err, ErrTruncated) || re.Frame != n+1) {
			t.Fatalf("cut %d: err = %v, want ErrTruncated at frame %d", cut, err, n+1)
		}
	}
}

// A directory given as a capture is reported as what it is.
func TestDirectoryIsNotRead(t *testing.T) {
	f, err := os.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = NewReader(f)
	if err == nil || errors.Is(err, ErrNotCapture) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("got %v; want an error saying it is a directory", err)
	}
}
