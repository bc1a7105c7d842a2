package capture

import (
	"fmt"
	"testing"
	"time"
)

// TestPendingLinear: with many connections waiting for a missing byte at
// once, each event finds the oldest frame buffered out of order
// (Event.Pending) without visiting the others, and the frames it reports
// are right: the oldest still buffered.
func TestPendingLinear(t *testing.T) {
	const n = 20000
	var recs []Record
	add := func(s seg) {
		s.frame = len(recs) + 1
		s.at = time.Duration(len(recs)) * time.Microsecond
		recs = append(recs, tcpRecord(t, s))
	}
	addr := func(i int) string { return fmt.Sprintf("10.0.%d.%d:%d", i>>8&0xff, i&0xff, 1024+i>>16) }
	aheadFrame := make([]int, n)
	for i := range n {
		add(seg{src: addr(i), dst: "10.1.0.1:5555", seq: 100, syn: true})
		add(seg{src: addr(i), dst: "10.1.0.1:5555", seq: 102, payload: []byte("b")}) // 101 missing
		aheadFrame[i] = len(recs)
	}
	for i := range n {
		add(seg{src: addr(i), dst: "10.1.0.1:5555", seq: 101, payload: []byte("a")})
	}
	events, wrong, cur := 0, 0, 0
	filled := 0
	a := NewAssembler(Options{MaxPagesTotal: 1 << 20, FlushAfter: time.Hour}, func(e *Event) {
		events++
		if e.Kind == EventData && string(e.Data) == "b" {
			filled++ // no longer buffered
		}
		// Buffered now: the second bytes up to this frame not yet delivered.
		want := 0
		if filled < n && aheadFrame[filled] <= cur {
			want = aheadFrame[filled]
		}
		if e.Pending != want && wrong < 5 {
			wrong++
			t.Errorf("frame %d (%v): Pending %d, want %d", e.Frame, e.Kind, e.Pending, want)
		}
	})
	for _, r := range recs {
		cur = r.Frame
		a.Packet(r)
	}
	a.Close()
	if filled != n {
		t.Fatalf("%d of %d connections delivered their second byte", filled, n)
	}
	if looked := a.buffered.looked; looked > 3*events+n {
		t.Errorf("finding the oldest buffered frame looked at %d entries for %d events", looked, events)
	}
}
