package replay

import (
	"container/heap"
	"fmt"
	"strconv"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// Watcher judges the rooms of a capture that is still being taken. It is a
// Replayer (the same rooms, matching and verdicts) that is also told how
// far capture time has gone (Advance), so that it can say, while the
// capture goes on, what a Replayer says only at its end:
//
//   - Overdue: an aborted room was not let go within the deadline. It is
//     judged the moment its deadline passes, exactly as Finish would judge
//     it if the capture ended then: violated with a log (prefill never let
//     go), at-risk from the wire alone (some completion of the unseen steps
//     pins it). A room whose judgement then is neither is not reported
//     until its final verdict.
//   - Released: a room reported overdue was let go after all (the log
//     showed it), judged again: violated, with its latency.
//   - Judged: a room's final verdict, the one a Replayer hands to
//     Options.OnRoom (when it goes idle, or at Finish).
//
// A room's observations close into bursts (explain.Cuts) when capture
// time passes the last of them by more than the skew; Advance closes them
// then rather than at the room's next observation, which cuts them the
// same way. Rooms idle for Options.Idle are still judged at the next
// observation, as a Replayer does, so that the Judged events of a watched
// capture are the verdicts a replay of the same capture gives. With a log
// (Options.Log), no room is reported before the log has been checked
// against the capture (see Replayer.Err): the check is decided when the
// first room is due to be reported, Overdue or Judged.
type Watcher struct {
	r       *Replayer
	onEvent func(Event)
	// due holds the rooms to look at when capture time reaches a time:
	// an ABORT's deadline, or the end of an open burst.
	due dueQueue
	// alerts are the open Overdue alerts by room id; dirty those whose
	// room was observed since it was last looked at.
	alerts map[int64][]*alert
	nopen  int
	dirty  []*alert
	serial uint64
	// finishing: Finish is judging every room.
	finishing bool
	end       int64
}

// EventKind says what a Watcher event reports.
type EventKind int

// Watcher event kinds.
const (
	// Overdue: an aborted room's deadline passed and it was not let go.
	Overdue EventKind = iota + 1
	// Released: a room reported overdue was let go.
	Released
	// Judged: a room's final verdict.
	Judged
)

var eventNames = [...]string{Overdue: "overdue", Released: "released", Judged: "judged"}

func (k EventKind) String() string {
	if k > 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is what a Watcher reports about one room.
type Event struct {
	Kind EventKind
	// Room is the room as judged at At: for Overdue, its verdict had the
	// capture ended then.
	Room *Room
	// At is the capture time the event was decided at.
	At time.Time
	// Alert numbers the Overdue event this one raises (Overdue) or ends
	// (Released, and Judged for a room still overdue when it was judged);
	// 0 when there is none.
	Alert uint64
}

type alert struct {
	rm      *room
	serial  uint64
	episode int64
	dirty   bool
}

type dueEntry struct {
	at int64
	rm *room
}

type dueQueue []dueEntry

func (q dueQueue) Len() int           { return len(q) }
func (q dueQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q dueQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *dueQueue) Push(x any)        { *q = append(*q, x.(dueEntry)) }
func (q *dueQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// NewWatcher returns a Watcher for the variant c (see New); onEvent
// receives its events. opt.OnRoom must be nil: a watched room's final
// verdict is a Judged event.
func NewWatcher(c *model.Config, opt Options, onEvent func(Event)) (*Watcher, error) {
	if opt.OnRoom != nil {
		return nil, fmt.Errorf("%w: a Watcher reports rooms as Judged events, not through OnRoom", ErrConfig)
	}
	w := &Watcher{onEvent: onEvent, alerts: map[int64][]*alert{}}
	opt.OnRoom = w.judged
	r, err := New(c, opt)
	if err != nil {
		return nil, err
	}
	w.r = r
	return w, nil
}

// Observe feeds the next observation (in time order), as Replayer.Observe.
func (w *Watcher) Observe(o observe.Observation) {
	r := w.r
	rm := r.observe(o)
	if rm == nil {
		return
	}
	if o.Kind == observe.Abort {
		heap.Push(&w.due, dueEntry{at: o.Time.UnixNano() + int64(r.opt.Deadline), rm: rm})
	}
	if a := w.alertOf(rm); a != nil && !a.dirty {
		a.dirty = true
		w.dirty = append(w.dirty, a)
	}
}

// Advance tells the Watcher that capture time has reached t: every
// observation before t has been fed. Rooms let go since they were reported
// overdue are reported Released, then rooms whose deadline passed by t
// are reported Overdue.
func (w *Watcher) Advance(t time.Time) {
	now := t.UnixNano()
	r := w.r
	skew := int64(r.opt.Skew)
	keep := w.dirty[:0]
	for _, a := range w.dirty {
		rm := a.rm
		rs := &rm.Data
		if !rm.Live() {
			a.dirty = false // forgotten: its Judged event ends the alert
			continue
		}
		if w.burstOpen(rm, now) {
			keep = append(keep, a)
			continue
		}
		r.closeBurst(rm, len(rs.hist))
		a.dirty = false
		if rs.invalid != nil || rs.open && rs.episode == a.episode {
			continue // still waiting (or invalid: its Judged event ends it)
		}
		w.remove(a)
		w.emit(Event{Kind: Released, Room: r.judge(rm, now, false), At: t, Alert: a.serial})
	}
	clear(w.dirty[len(keep):])
	w.dirty = keep
	dl := int64(r.opt.Deadline)
	for len(w.due) > 0 && w.due[0].at <= now {
		rm := heap.Pop(&w.due).(dueEntry).rm
		rs := &rm.Data
		if !rm.Live() {
			continue // forgotten
		}
		if w.burstOpen(rm, now) {
			heap.Push(&w.due, dueEntry{at: rs.burstLast + skew + 1, rm: rm})
			continue
		}
		r.closeBurst(rm, len(rs.hist))
		if rs.invalid != nil || !rs.open || rs.episode == 0 {
			continue
		}
		if now-rs.episode < dl {
			heap.Push(&w.due, dueEntry{at: rs.episode + dl, rm: rm})
			continue
		}
		if a := w.alertOf(rm); a != nil {
			continue // reported already (a new episode first ends it)
		}
		if ok, decided := r.logChecked(); !ok {
			if !decided {
				// Not yet known whether the log is the capture's: look
				// again at the next Advance.
				heap.Push(&w.due, dueEntry{at: now + 1, rm: rm})
			}
			continue
		}
		room := r.judge(rm, now, false)
		if room.Verdict != Violated && room.Verdict != AtRisk {
			continue
		}
		w.serial++
		a := &alert{rm: rm, serial: w.serial, episode: rs.episode}
		w.alerts[rm.ID] = append(w.alerts[rm.ID], a)
		w.nopen++
		w.emit(Event{Kind: Overdue, Room: room, At: t, Alert: a.serial})
	}
}

// burstOpen reports whether room rm has observations in a burst that an
// observation at capture time now could still join.
func (w *Watcher) burstOpen(rm *room, now int64) bool {
	rs := &rm.Data
	return len(rs.hist) > rs.burst && rs.invalid == nil && now-rs.burstLast <= int64(w.r.opt.Skew)
}

// Finish judges every room still held at the capture's end time end (each
// a Judged event) and returns the report, as Replayer.Finish.
func (w *Watcher) Finish(end time.Time) *Report {
	w.finishing, w.end = true, end.UnixNano()
	rep := w.r.Finish(end)
	w.alerts, w.dirty, w.due, w.nopen = map[int64][]*alert{}, nil, nil, 0
	return rep
}

// Err returns why the Watcher reports no room: the event log does not
// belong to the capture (see Replayer.Err).
func (w *Watcher) Err() error { return w.r.Err() }

// Live returns how many rooms the Watcher holds.
func (w *Watcher) Live() int { return w.r.Live() }

// Overdue returns how many rooms are reported overdue and neither let go
// nor judged yet.
func (w *Watcher) Overdue() int { return w.nopen }

// Deadline returns the deadline rooms are judged by.
func (w *Watcher) Deadline() time.Duration { return w.r.opt.Deadline }

func (w *Watcher) alertOf(rm *room) *alert {
	for _, a := range w.alerts[rm.ID] {
		if a.rm == rm {
			return a
		}
	}
	return nil
}

func (w *Watcher) remove(a *alert) {
	list := w.alerts[a.rm.ID]
	for i, b := range list {
		if b == a {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(w.alerts, a.rm.ID)
	} else {
		w.alerts[a.rm.ID] = list
	}
	w.nopen--
}

// judged receives the Replayer's final verdicts (Options.OnRoom).
func (w *Watcher) judged(room *Room) {
	ev := Event{Kind: Judged, Room: room, At: stamp64(w.r.now())}
	if w.finishing {
		ev.At = stamp64(w.end)
	}
	// The room judged is one that was just forgotten (or, in Finish, any
	// room), on the room's prefill endpoint.
	for _, a := range w.alerts[room.Room] {
		if (w.finishing || !a.rm.Live()) && w.r.rooms.Endpoint(a.rm) == room.Prefill {
			ev.Alert = a.serial
			w.remove(a)
			break
		}
	}
	w.emit(ev)
}

func (w *Watcher) emit(ev Event) {
	if w.onEvent != nil {
		w.onEvent(ev)
	}
}

// Counts returns how many rooms have been judged with each verdict so far
// (never-aborted rooms included).
func (w *Watcher) Counts() map[Verdict]int {
	out := make(map[Verdict]int, len(w.r.report.Verdicts))
	for v, n := range w.r.report.Verdicts {
		out[v] = n
	}
	return out
}
