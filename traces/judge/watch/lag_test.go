package watch

import (
	"testing"
	"time"

	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// liveLagged plays sc into e as live sources deliver it when the log is
// written lag behind what it records (a buffered writer, a slow shipper):
// records 1 ms after capture, each log line lag after its time; the
// follower finds the log's end 20 ms after each line, as live does; the
// wall clock runs on for the lag and a deadline after the last line.
func (sc *scenario) liveLagged(e *engine, lag time.Duration, cur *time.Time) {
	var as []arrival
	for i := range sc.records {
		as = append(as, arrival{wall: sc.records[i].t.Add(time.Millisecond), rec: &sc.records[i]})
	}
	for i := range sc.log {
		as = append(as, arrival{wall: sc.log[i].Time.Add(lag), log: &sc.log[i]})
	}
	start, last := as[0].wall, as[0].wall
	for _, a := range as {
		if a.wall.Before(start) {
			start = a.wall
		}
		if a.wall.After(last) {
			last = a.wall
		}
	}
	// The watch starts before the log's first line: its follower is at the
	// (empty) log's end. It goes on after the last line (the wall clock
	// runs on).
	e.LogAtEnd(start)
	e.play(as, last.Add(lag+sc.deadline), cur)
}

// TestLaggingLogHoldsVerdicts is issue 25's watch with a live log 3 s
// behind the stream: capture time waits for the log (observe.Live learns
// how far behind its lines come), so no room is reported pinned and then
// released; exactly the rooms a replay finds violated are reported
// pinned, and the final verdicts are replay's.
func TestLaggingLogHoldsVerdicts(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			opt := judge.Options{Deadline: sc.deadline, Log: true}
			var events []judge.Event
			var wall time.Time
			e := newEngine(t, sc.cfg, opt, observe.LiveOptions{}, func(ev judge.Event) { events = append(events, ev) })
			sc.liveLagged(e, 3*time.Second, &wall)
			e.Finish(e.Last())
			pinned := map[int64]bool{}
			for _, ev := range events {
				switch ev.Kind {
				case judge.EventPinned:
					pinned[ev.Room.Room] = true
				case judge.EventReleased:
					t.Errorf("room %d reported pinned, then released (%s)", ev.Room.Room, ev.Room.Reason)
				}
			}
			truth := map[int64]bool{}
			for _, r := range sc.Pinned {
				truth[r] = true
			}
			for room, v := range sc.WithLog {
				id := parseInt(room)
				// Every room replay finds violated is reported pinned, and no
				// room that was released (the capture's truth) is: a capture
				// cut before a deadline goes on, live, with the wall clock.
				if v == "violated" && !pinned[id] || pinned[id] && !truth[id] {
					t.Errorf("room %s (%s; pinned in truth: %v) reported pinned: %v", room, v, truth[id], pinned[id])
				}
			}
			if testing.Verbose() {
				for _, ev := range events {
					t.Logf("%v %s room %d %s: %s", ev.At, ev.Kind, ev.Room.Room, ev.Room.Verdict, ev.Room.Reason)
				}
			}
		})
	}
}
