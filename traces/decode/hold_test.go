package decode

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/source"
)

// TestMaxHold: in a capture that joined its connections mid-stream, where
// one direction carries only heartbeats and never resynchronizes, the
// messages of the other streams wait for it until the capture ends
// (capture order); with MaxHold they go out at most MaxHold (and one
// packet) after their own time, the same messages, some counted out of
// order.
func TestMaxHold(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "scenarios", "midstream-fork.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(hold time.Duration) (msgs map[int]int, worst time.Duration, sum Summary) {
		s, err := source.NewStream(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		p := source.NewPcapReader(s)
		var now time.Time
		p.OnRecord = func(rec *capture.Record) { now = rec.Time }
		msgs = map[int]int{}
		sum, err = Run(p, Options{MaxHold: hold}, func(m *Message) {
			msgs[m.Frame]++
			if d := now.Sub(m.Time); d > worst {
				worst = d
			}
		}, func(Diagnostic) {})
		if err != nil {
			t.Fatal(err)
		}
		return msgs, worst, sum
	}
	all, unbounded, sum := run(0)
	if unbounded < 2*time.Second || sum.OutOfOrder != 0 {
		t.Fatalf("without MaxHold: messages held up to %v, %d out of order; the scenario no longer shows the hold", unbounded, sum.OutOfOrder)
	}
	const hold = 300 * time.Millisecond
	got, worst, sum := run(hold)
	// Packets come at least every 200 ms (heartbeats).
	if worst > hold+250*time.Millisecond {
		t.Errorf("with MaxHold %v: a message went out %v after its time", hold, worst)
	}
	if sum.OutOfOrder == 0 {
		t.Errorf("with MaxHold: no message counted out of order")
	}
	if len(got) != len(all) {
		t.Fatalf("with MaxHold: messages of %d frames, want %d", len(got), len(all))
	}
	for f, n := range all {
		if got[f] != n {
			t.Errorf("frame %d: %d messages with MaxHold, %d without", f, got[f], n)
		}
	}
	t.Logf("held up to %v without MaxHold, %v with %v (%d out of order)", unbounded, worst, hold, sum.OutOfOrder)
}
