package judge

import (
	"container/heap"
	"time"

	"github.com/roomspec/roomspec/traces/observe"
)

// Overdue rooms (Options.Overdue): what a Judge says while the capture
// goes on, which a replay says only at its end. An aborted room not let
// go within the deadline is judged the moment Tick passes its deadline,
// exactly as Finish would judge it if the capture ended then; a room
// reported so and let go later is judged again (Released). No room is
// reported before the log has been checked against the capture (see
// logcheck.go): the check is decided when the first room is due to be
// reported, overdue or final.
type overdue struct {
	// due holds the rooms to look at when capture time reaches a time:
	// an ABORT's deadline, or the end of an open burst.
	due dueQueue
	// alerts are the open alerts by room id; dirty those whose room was
	// observed since it was last looked at.
	alerts map[int64][]*alert
	dirty  []*alert
	serial uint64
	// stats counts the open alerts (Pinned, AtRisk) and the events.
	stats Stats
}

type alert struct {
	rm      *room
	serial  uint64
	episode int64
	kind    EventKind
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

// observed notes that room rm was just observed (o): an ABORT sets a
// deadline to look at, and an open alert is looked at again at the next
// Tick.
func (j *Judge) observed(rm *room, o *observe.Observation) {
	od := &j.overdue
	if o.Kind == observe.Abort {
		heap.Push(&od.due, dueEntry{at: o.Time.UnixNano() + int64(j.opt.Deadline), rm: rm})
	}
	if a := od.of(rm); a != nil && !a.dirty {
		a.dirty = true
		od.dirty = append(od.dirty, a)
	}
}

// tick is Tick: rooms let go since they were reported overdue are
// reported Released, then rooms whose deadline passed by t are reported
// Pinned or AtRisk.
func (j *Judge) tick(t time.Time) {
	now := t.UnixNano()
	j.fit.ticked = max(j.fit.ticked, now)
	od := &j.overdue
	skew := int64(j.opt.Skew)
	keep := od.dirty[:0]
	for _, a := range od.dirty {
		rm := a.rm
		rs := &rm.Data
		if !rm.Live() {
			a.dirty = false // forgotten: its Verdict event ends the alert
			continue
		}
		if j.burstOpen(rm, now) {
			keep = append(keep, a)
			continue
		}
		j.closeBurst(rm, len(rs.hist))
		a.dirty = false
		if rs.invalid != nil || rs.open && rs.episode == a.episode {
			continue // still waiting (or invalid: its Verdict event ends it)
		}
		od.remove(a)
		j.push(Event{Kind: EventReleased, Room: j.judge(rm, now, false), At: t, Alert: a.serial})
	}
	clear(od.dirty[len(keep):])
	od.dirty = keep
	dl := int64(j.opt.Deadline)
	for len(od.due) > 0 && od.due[0].at <= now {
		rm := heap.Pop(&od.due).(dueEntry).rm
		rs := &rm.Data
		if !rm.Live() {
			continue // forgotten
		}
		if j.burstOpen(rm, now) {
			heap.Push(&od.due, dueEntry{at: rs.burstLast + skew + 1, rm: rm})
			continue
		}
		j.closeBurst(rm, len(rs.hist))
		if rs.invalid != nil || !rs.open || rs.episode == 0 {
			continue
		}
		if now-rs.episode < dl {
			heap.Push(&od.due, dueEntry{at: rs.episode + dl, rm: rm})
			continue
		}
		if a := od.of(rm); a != nil {
			continue // reported already (a new episode first ends it)
		}
		if ok, decided := j.logChecked(); !ok {
			if !decided {
				// Not yet known whether the log is the capture's: look
				// again at the next Tick.
				heap.Push(&od.due, dueEntry{at: now + 1, rm: rm})
			}
			continue
		}
		room := j.judge(rm, now, false)
		kind := EventPinned
		switch room.Verdict {
		case Violated:
		case AtRisk:
			kind = EventAtRisk
		default:
			if rs.fit.waitLog {
				// Held until the log reaches its deadline (logfit.go).
				heap.Push(&od.due, dueEntry{at: now + 1, rm: rm})
			}
			continue
		}
		od.serial++
		a := &alert{rm: rm, serial: od.serial, episode: rs.episode, kind: kind}
		od.alerts[rm.ID] = append(od.alerts[rm.ID], a)
		if kind == EventAtRisk {
			od.stats.AtRisk++
		} else {
			od.stats.Pinned++
		}
		j.push(Event{Kind: kind, Room: room, At: t, Alert: a.serial})
	}
}

// burstOpen reports whether room rm has observations in a burst that an
// observation at capture time now could still join.
func (j *Judge) burstOpen(rm *room, now int64) bool {
	rs := &rm.Data
	return len(rs.hist) > rs.burst && rs.invalid == nil && now-rs.burstLast <= int64(j.opt.Skew)
}

// Overdue returns how many rooms are reported overdue and neither let go
// nor judged yet.
func (j *Judge) Overdue() int { return j.overdue.stats.Pinned + j.overdue.stats.AtRisk }

// of returns rm's open alert, or nil.
func (od *overdue) of(rm *room) *alert {
	for _, a := range od.alerts[rm.ID] {
		if a.rm == rm {
			return a
		}
	}
	return nil
}

// remove closes alert a.
func (od *overdue) remove(a *alert) {
	list := od.alerts[a.rm.ID]
	for i, b := range list {
		if b == a {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(od.alerts, a.rm.ID)
	} else {
		od.alerts[a.rm.ID] = list
	}
	if a.kind == EventAtRisk {
		od.stats.AtRisk--
	} else {
		od.stats.Pinned--
	}
}
