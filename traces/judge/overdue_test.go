package judge

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// watch feeds obs to a Judge with Options.Overdue, telling it before
// each observation that capture time has reached the instant before it,
// and finishes at end. It returns the events and the capture times Tick
// was called with.
func (sc *scenario) watch(t *testing.T, opt Options, obs []Observation, end time.Time) (events []Event, ticks []time.Time) {
	t.Helper()
	opt.Overdue = true
	w := newRecorder(t, variantConfig(t, sc.Variant), opt)
	for _, o := range obs {
		at := o.Time.Add(-time.Nanosecond)
		w.Tick(at)
		ticks = append(ticks, at)
		w.Step(o)
	}
	w.Tick(end)
	ticks = append(ticks, end)
	if w.Overdue() != countOpen(w.events) {
		t.Errorf("Overdue() = %d, the events leave %d open", w.Overdue(), countOpen(w.events))
	}
	w.Finish(end)
	if w.Overdue() != 0 {
		t.Errorf("after Finish, Overdue() = %d", w.Overdue())
	}
	return w.events, ticks
}

// isOverdue reports whether ev reports a room overdue.
func isOverdue(ev Event) bool { return ev.Kind == EventPinned || ev.Kind == EventAtRisk }

// countOpen counts the overdue events no later event ended.
func countOpen(events []Event) int {
	open := map[uint64]bool{}
	for _, ev := range events {
		switch {
		case isOverdue(ev):
			open[ev.Alert] = true
		case ev.Alert != 0:
			delete(open, ev.Alert)
		}
	}
	return len(open)
}

func roomJSON(t *testing.T, rooms []*Room) []string {
	t.Helper()
	var out []string
	for _, room := range rooms {
		var b bytes.Buffer
		if err := WriteRoomJSON(&b, room); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return out
}

// TestWatcherScenarios watches each scenario as if live: the final
// verdicts are exactly replay's; with the log, the rooms reported overdue
// are the rooms the emulators left pinned past their deadline, each
// reported violated at the first capture time at or after its deadline;
// from the wire alone, overdue rooms are at-risk and are exactly the
// at-risk rooms whose deadline passed before the capture's end.
func TestOverdueScenarios(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			for _, log := range []bool{true, false} {
				obs := sc.wire
				if log {
					obs = Merge(sc.wire, sc.log)
				}
				want := sc.replay(t, log, obs, sc.end)
				events, ticks := sc.watch(t, Options{Deadline: sc.deadline, Log: log}, obs, sc.end)
				var judged []*Room
				reported := map[int64]Event{}
				for _, ev := range events {
					switch ev.Kind {
					case EventVerdict:
						if ev.Room.Aborted || ev.Room.Verdict == Invalid {
							judged = append(judged, ev.Room)
						}
					case EventPinned, EventAtRisk:
						if _, dup := reported[ev.Room.Room]; dup {
							t.Errorf("log %v: room %d reported overdue twice", log, ev.Room.Room)
						}
						if (ev.Kind == EventAtRisk) != (ev.Room.Verdict == AtRisk) {
							t.Errorf("log %v: room %d reported %s, %s", log, ev.Room.Room, ev.Kind, ev.Room.Verdict)
						}
						reported[ev.Room.Room] = ev
					case EventReleased:
						t.Errorf("log %v: room %d released after its deadline: %s", log, ev.Room.Room, ev.Room.Reason)
					}
				}
				if got, want := roomJSON(t, judged), roomJSON(t, want.Reported()); !slices.Equal(got, want) {
					t.Errorf("log %v: final verdicts differ from replay's:\n got %q\nwant %q", log, got, want)
				}
				for _, room := range want.Reported() {
					ev, ok := reported[room.Room]
					wantOverdue := room.Verdict == Violated || room.Verdict == AtRisk && sc.end.Sub(room.AbortTime) >= sc.deadline
					if log && wantOverdue != (sc.WithLog[strconv.FormatInt(room.Room, 10)] == "violated") {
						t.Errorf("room %d: %s at the end, expected %s", room.Room, room.Verdict, sc.WithLog[strconv.FormatInt(room.Room, 10)])
					}
					if ok != wantOverdue {
						t.Errorf("log %v: room %d (%s) reported overdue: %v, want %v", log, room.Room, room.Verdict, ok, wantOverdue)
						continue
					}
					if !ok {
						continue
					}
					if ev.Room.Verdict != room.Verdict {
						t.Errorf("log %v: room %d overdue as %s, finally %s", log, room.Room, ev.Room.Verdict, room.Verdict)
					}
					due := room.AbortTime.Add(sc.deadline)
					first := ticks[slices.IndexFunc(ticks, func(a time.Time) bool { return !a.Before(due) })]
					if !ev.At.Equal(first) {
						t.Errorf("log %v: room %d overdue at %v, want %v (abort %v + deadline)", log, room.Room, ev.At, first, room.AbortTime)
					}
				}
			}
		})
	}
}

// TestOverdueReleased: under the fixed variant every aborted room is let
// go, but later than a deadline of 50 ms: each is reported overdue at its
// deadline, then released with the latency its final verdict gives. (Rooms
// are kept for a minute: the default, twice the deadline, would forget them
// between their abort and their release.)
func TestOverdueReleased(t *testing.T) {
	var sc *scenario
	for _, s := range loadScenarios(t) {
		if s.Name == "storm-fixed" {
			sc = s
		}
	}
	if sc == nil {
		t.Fatal("no storm-fixed scenario")
	}
	const deadline = 50 * time.Millisecond
	events, _ := sc.watch(t, Options{Deadline: deadline, Idle: time.Minute, Log: true}, Merge(sc.wire, sc.log), sc.end)
	alerts := map[uint64]*Room{}
	released := map[int64]*Room{}
	judged := 0
	for _, ev := range events {
		switch ev.Kind {
		case EventAtRisk:
			t.Errorf("room %d at-risk with the log", ev.Room.Room)
		case EventPinned:
			if ev.Room.Verdict != Violated || ev.At.Sub(ev.Room.AbortTime) < deadline {
				t.Errorf("room %d overdue at %v: %s, aborted %v", ev.Room.Room, ev.At, ev.Room.Verdict, ev.Room.AbortTime)
			}
			alerts[ev.Alert] = ev.Room
		case EventReleased:
			o := alerts[ev.Alert]
			if o == nil || o.Room != ev.Room.Room {
				t.Fatalf("room %d released under alert %d, which is not its", ev.Room.Room, ev.Alert)
			}
			if ev.Room.Latency <= deadline || ev.Room.Verdict != Violated {
				t.Errorf("room %d released: %s, latency %v", ev.Room.Room, ev.Room.Verdict, ev.Room.Latency)
			}
			released[ev.Room.Room] = ev.Room
		case EventVerdict:
			if !ev.Room.Aborted {
				continue
			}
			judged++
			r := released[ev.Room.Room]
			if ev.Alert != 0 || r == nil {
				t.Errorf("room %d judged %s (%s) without a release (alert %d)", ev.Room.Room, ev.Room.Verdict, ev.Room.Reason, ev.Alert)
				continue
			}
			if r.Latency != ev.Room.Latency {
				t.Errorf("room %d: released with latency %v, judged with %v", ev.Room.Room, r.Latency, ev.Room.Latency)
			}
		}
	}
	if judged != len(sc.WithLog) || len(released) != judged {
		t.Errorf("%d aborted rooms judged, %d released; want %d", judged, len(released), len(sc.WithLog))
	}
}

// TestTickWithoutOverdue: without Options.Overdue, Tick reports nothing
// (replay), and a room's verdict is given when its observations are over.
func TestTickWithoutOverdue(t *testing.T) {
	var sc *scenario
	for _, s := range loadScenarios(t) {
		if s.Name == "storm-fork" {
			sc = s
		}
	}
	r := newRecorder(t, variantConfig(t, sc.Variant), Options{Deadline: sc.deadline})
	for _, o := range sc.wire {
		r.Tick(o.Time.Add(-time.Nanosecond))
		r.Step(o)
	}
	r.Tick(sc.end.Add(time.Hour))
	if len(r.events) != 0 {
		t.Fatalf("%d events before Finish, the first %s", len(r.events), r.events[0].Kind)
	}
	if rep := r.Finish(sc.end); len(rep.Rooms) != len(sc.WithLog) {
		t.Fatalf("%d verdicts, want %d", len(rep.Rooms), len(sc.WithLog))
	}
}

// With a log, a Judge reports no room before the log has been checked
// against the capture: under a 50 ms deadline storm-fixed's rooms are all
// overdue, but with another scenario's log, or one a day late, none is
// reported, and Err says why.
func TestOverdueHeldForTheLogCheck(t *testing.T) {
	scs := map[string]*scenario{}
	for _, sc := range loadScenarios(t) {
		scs[sc.Name] = sc
	}
	fixed, healthy := scs["storm-fixed"], scs["healthy"]
	late := slices.Clone(fixed.log)
	for i := range late {
		late[i].Time = late[i].Time.Add(24 * time.Hour)
	}
	opt := Options{Deadline: 50 * time.Millisecond, Idle: time.Minute, Log: true}
	for _, tc := range []struct {
		name string
		log  []Observation
		want string
	}{
		{"another scenario's", healthy.log, "none in common"},
		{"a day late", late, "apart, more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := opt
			o.Overdue = true
			w := newRecorder(t, variantConfig(t, fixed.Variant), o)
			for _, o := range Merge(fixed.wire, tc.log) {
				w.Tick(o.Time.Add(-time.Nanosecond))
				w.Step(o)
			}
			w.Tick(fixed.end)
			w.Finish(fixed.end)
			if events := w.events; len(events) != 0 {
				t.Errorf("%d events on a log that does not belong, the first %s room %d", len(events), events[0].Kind, events[0].Room.Room)
			}
			if err := w.Err(); !errors.Is(err, ErrLogMismatch) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Err = %v, want %q", err, tc.want)
			}
		})
	}
	// Its own log: every aborted room overdue.
	events, _ := fixed.watch(t, opt, Merge(fixed.wire, fixed.log), fixed.end)
	n := 0
	for _, ev := range events {
		if isOverdue(ev) {
			n++
		}
	}
	if n != len(fixed.WithLog) {
		t.Errorf("%d rooms overdue with the capture's own log, want %d", n, len(fixed.WithLog))
	}
}

// TestReleases: with Options.Overdue, each release of an aborted room is
// noted once, as it is seen, whatever the room is judged again from
// later (a blind or unknown start): as many releases as rooms whose
// verdict has a latency, on every scenario without room reuse.
func TestReleases(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		if strings.Contains(sc.Variant, "reuse") {
			continue // a room may be released once per incarnation
		}
		t.Run(sc.Name, func(t *testing.T) {
			r := newRecorder(t, variantConfig(t, sc.Variant), Options{Deadline: sc.deadline, Log: true, Overdue: true})
			var released []time.Duration
			for _, o := range Merge(sc.wire, sc.log) {
				r.Tick(o.Time.Add(-time.Nanosecond))
				r.Step(o)
				released = append(released, r.Releases()...)
			}
			rep := r.Finish(sc.end)
			released = append(released, r.Releases()...)
			var want []time.Duration
			for _, room := range rep.Rooms {
				if room.Latency >= 0 {
					want = append(want, room.Latency)
				}
			}
			slices.Sort(want)
			slices.Sort(released)
			if !slices.Equal(released, want) {
				t.Errorf("releases %v, the verdicts' latencies %v", released, want)
			}
		})
	}
	// Without Overdue (replay), none is kept.
	var sc *scenario
	for _, s := range loadScenarios(t) {
		if s.Name == "storm-fixed" {
			sc = s
		}
	}
	r := newRecorder(t, variantConfig(t, sc.Variant), Options{Deadline: sc.deadline, Log: true})
	for _, o := range Merge(sc.wire, sc.log) {
		r.Step(o)
	}
	r.Finish(sc.end)
	if n := len(r.Releases()); n != 0 {
		t.Errorf("%d releases kept without Options.Overdue", n)
	}
}
