package decode

import (
	"bytes"
	"os"
	"testing"
)

// FuzzDecode runs the whole pipeline on arbitrary bytes: no panic, no
// hang, messages in frame order, and every message with at least one part.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"captures/sll2.pcap", "captures/midstream.pcap", "captures/mooncake.pcap",
		// Damage (make_damaged.py).
		"damaged/fragments.pcap", "damaged/snaplen.pcap", "damaged/linktype.pcap", "damaged/retransmit.pcap", "damaged/timejump.pcap"} {
		b, err := os.ReadFile("../testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 16<<10)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		last := 0
		sum, _ := Run(bytes.NewReader(data), Options{}, func(m *Message) {
			if len(m.Parts) == 0 {
				t.Fatal("message without parts")
			}
			if m.Frame < last {
				t.Fatalf("frame %d after %d", m.Frame, last)
			}
			last = m.Frame
		}, nil)
		if sum.OutOfOrder != 0 {
			t.Fatalf("%d messages out of order", sum.OutOfOrder)
		}
	})
}
