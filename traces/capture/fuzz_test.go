package capture

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// FuzzRun feeds arbitrary bytes through the reader and the reassembly. It
// must never panic or hang, frames must count up by one, and each
// direction's events must be well formed (one Start first, nothing after
// End, data only on started directions).
func FuzzRun(f *testing.F) {
	// Seeds: real captures of every format and link type, whole or cut.
	for _, s := range []struct {
		name string
		max  int
	}{
		{"sll.pcap", 0}, {"sll2.pcap", 0}, {"mooncake.pcap", 8 << 10},
		{"many_conns.pcapng", 8 << 10}, {"midstream.pcap", 8 << 10}, {"nixl_ranks.pcap", 4 << 10},
		{"../conns/conns.pcap", 0},
		// Damage (make_damaged.py): fragments, cut packets, an unknown
		// link type, conflicting retransmissions, time jumps.
		{"../damaged/fragments.pcap", 6 << 10}, {"../damaged/snaplen.pcap", 4 << 10},
		{"../damaged/linktype.pcap", 2 << 10}, {"../damaged/retransmit.pcap", 6 << 10},
		{"../damaged/timejump.pcap", 0},
	} {
		b, err := os.ReadFile("../testdata/captures/" + s.name)
		if err != nil {
			f.Fatal(err)
		}
		if s.max > 0 && len(b) > s.max {
			b = b[:s.max]
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rd, err := NewReader(bytes.NewReader(data))
		if err == nil {
			for want := 1; ; want++ {
				rec, err := rd.Next()
				if err != nil {
					break
				}
				if rec.Frame != want {
					t.Fatalf("frame %d, want %d", rec.Frame, want)
				}
				if len(rec.Data) > MaxRecord {
					t.Fatalf("record of %d bytes", len(rec.Data))
				}
			}
		}
		type st struct{ started, ended bool }
		// By ID: a *Half is reused once its connection is released.
		halves := map[int]*st{}
		_, err = Run(bytes.NewReader(data), Options{}, func(e *Event) {
			s := halves[e.Half.ID]
			if s == nil {
				s = &st{}
				halves[e.Half.ID] = s
			}
			switch {
			case e.Kind == EventStart && s.started:
				t.Fatalf("%v: second start", e.Half)
			case e.Kind != EventStart && !s.started:
				t.Fatalf("%v: %v before start", e.Half, e.Kind)
			case s.ended:
				t.Fatalf("%v: %v after end", e.Half, e.Kind)
			case e.Kind == EventData && len(e.Data) == 0:
				t.Fatalf("%v: empty data event", e.Half)
			case e.Kind == EventGap && e.Lost <= 0:
				t.Fatalf("%v: gap of %d bytes", e.Half, e.Lost)
			}
			s.started = true
			s.ended = e.Kind == EventEnd
		})
		if err != nil && len(data) >= 24 && bytes.HasPrefix(data, []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0}) {
			t.Fatalf("a pcap header was refused: %v", err)
		}
	})
}

// FuzzFiles reads arbitrary bytes cut in two as the files of one capture,
// in either order: it never panics or hangs, frames count up by one
// across the files (a damaged record keeps its number), and every frame's
// Position is in a file read.
func FuzzFiles(f *testing.F) {
	for _, name := range []string{"captures/sll2.pcap", "captures/many_conns.pcapng", "damaged/fragments.pcap", "damaged/retransmit.pcap"} {
		b, err := os.ReadFile("../testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		b = b[:min(len(b), 6<<10)]
		f.Add(b, uint16(len(b)/2), false)
	}
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, swap bool) {
		at := int(cut) % (len(data) + 1)
		parts := [][]byte{data[:at], data[at:]}
		if swap {
			parts[0], parts[1] = parts[1], parts[0]
		}
		in := make([]Input, 2)
		for i, p := range parts {
			in[i] = Input{Name: string(rune('a' + i)), Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(p)), nil }, Once: i == 1}
		}
		fs, err := OpenFiles(in)
		if err != nil {
			return
		}
		defer fs.Close()
		last := 0
		for {
			rec, err := fs.Next()
			if err == io.EOF {
				break
			}
			var re *RecordError
			if errors.As(err, &re) {
				if re.Frame != last+1 {
					t.Fatalf("damaged frame %d after %d", re.Frame, last)
				}
				last = re.Frame
				continue
			}
			if err != nil {
				t.Fatalf("%v", err)
			}
			if rec.Frame != last+1 {
				t.Fatalf("frame %d after %d", rec.Frame, last)
			}
			last = rec.Frame
			if pos := fs.Position(rec.Frame); pos.File != "a" && pos.File != "b" || pos.Frame < 1 {
				t.Fatalf("frame %d at %v", rec.Frame, pos)
			}
		}
	})
}
