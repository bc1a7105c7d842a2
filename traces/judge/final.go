package judge

import (
	"strconv"
	"time"
)

// EventKind says what an Event reports.
type EventKind int

// Event kinds.
const (
	// EventPinned: an aborted room's deadline passed and the log shows prefill
	// still holding it (the room as judged then: violated).
	EventPinned EventKind = iota + 1
	// EventAtRisk: an aborted room's deadline passed, judged from the
	// wire alone: some completion of the unseen steps pins it (at-risk).
	EventAtRisk
	// EventReleased: a room reported pinned was let go after its
	// deadline (violated, with its latency).
	EventReleased
	// EventVerdict: a room's final verdict.
	EventVerdict
)

var eventNames = [...]string{EventPinned: "pinned", EventAtRisk: "at-risk", EventReleased: "released", EventVerdict: "verdict"}

// String names k as watch's JSON lines do.
func (k EventKind) String() string {
	if k > 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is what a Judge decided about one room.
type Event struct {
	Kind EventKind
	// Room is the room as judged at At: for Pinned and AtRisk, its
	// verdict had the capture ended then.
	Room *Room
	// At is the capture time the event was decided at.
	At time.Time
	// Alert numbers the Pinned or AtRisk event this one raises (Pinned,
	// AtRisk) or ends (Released, and Verdict for a room still overdue when
	// it was judged); 0 when there is none.
	Alert uint64
}

// The one place where a verdict becomes final: a room's observations are
// over when the Grouper forgets it (idle for Options.Idle, found at the
// next observation, so that replay and watch judge it at the same point
// of the capture) or when Finish drains every room. It is then judged
// once the log has been held against the capture (logcheck.go), counted,
// and reported with a Verdict event if it is aborted or invalid, or only
// the log shows it (every room with Options.AllRooms).

// forgotten judges a room the Grouper no longer holds, at time end.
func (j *Judge) forgotten(rm *room, end int64) {
	if j.err != nil || j.hold(rm, end, false) {
		return
	}
	j.final(rm, end)
}

// final gives rm its final verdict at time end.
func (j *Judge) final(rm *room, end int64) {
	rs := &rm.Data
	if !j.opt.AllRooms && !rs.aborted && rs.invalid == nil {
		// Not reported: only counted (unless its last burst is invalid).
		j.closeBurst(rm, len(rs.hist))
		if rs.invalid == nil {
			j.count(NotAborted, false)
			return
		}
	}
	out := j.judge(rm, end, true)
	if j.opt.Overdue && !rs.noted && out.Latency >= 0 {
		// Released, but only an explanation from another start (or from
		// the wire alone) sees it: noted now.
		j.noteRelease(out.Latency)
	}
	if !j.opt.AllRooms && !out.Aborted && out.Verdict != Invalid && !out.LogOnly {
		// Judged again from its start (see verdictFromStart), it is
		// valid after all: counted, not reported.
		j.count(out.Verdict, out.Aborted)
		return
	}
	if j.opt.Witness {
		out.Witness = j.witness(rm, out)
	}
	j.count(out.Verdict, out.Aborted)
	ev := Event{Kind: EventVerdict, Room: out, At: stamp64(j.lastTime)}
	if j.finished {
		ev.At = stamp64(j.end)
	}
	if a := j.overdue.of(rm); a != nil {
		// Its verdict ends the alert.
		ev.Alert = a.serial
		j.overdue.remove(a)
	}
	j.push(ev)
}

func (j *Judge) count(v Verdict, aborted bool) {
	r := &j.report
	if r.Verdicts == nil {
		r.Verdicts = map[Verdict]int{}
	}
	r.Total++
	if aborted {
		r.Aborted++
	}
	r.Verdicts[v]++
}
