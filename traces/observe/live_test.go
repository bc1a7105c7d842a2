package observe

import (
	"slices"
	"testing"
	"time"
)

// TestLiveStop: a watch stopped while the log is ahead of the capture
// hands on the wire's observations and the log's up to the capture time
// decoded, and drops (counts) the log's lines past it; at the end of its
// sources (Flush) it hands on everything.
func TestLiveStop(t *testing.T) {
	status := func(ms int, room int64) Observation {
		return Observation{Kind: Status, Time: t0.Add(time.Duration(ms) * time.Millisecond), Room: room, Log: Log{Line: ms}}
	}
	wall := t0.Add(time.Hour)
	feed := func() *Live {
		l := NewLive(LiveOptions{Log: true, Hold: time.Minute})
		l.Record(t0.Add(10*time.Millisecond), wall)
		l.Wire(ti(10, 1, d1, d1, p1), wall)
		l.Record(t0.Add(20*time.Millisecond), wall) // the message of 10 ms is decoded
		for _, ms := range []int{5, 12, 15, 30, 40} {
			l.Log(status(ms, int64(ms)), wall)
		}
		l.LogAtEnd(wall)
		return l
	}
	l := feed()
	l.Stop(wall)
	var got []int
	for _, in := range l.Ready() {
		if !in.Tick {
			got = append(got, int(in.Obs.Time.Sub(t0)/time.Millisecond))
		}
	}
	// The capture is decoded through 10 ms (the record of 20 ms may
	// complete messages yet to come): the log's 12 ms and later are past.
	if !slices.Equal(got, []int{5, 10}) || l.Stats().Beyond != 4 {
		t.Errorf("stopped: handed on %v (ms), %d beyond; want [5 10] and 4", got, l.Stats().Beyond)
	}
	l = feed()
	l.Flush()
	if n := len(l.Ready()); l.Stats().Wire+l.Stats().Log != 6 || l.Stats().Beyond != 0 {
		t.Errorf("flushed: %+v (%d inputs), want all 6 observations handed on", l.Stats(), n)
	}
}
