package judge

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/roomspec/roomspec/traces/observe"
)

// ErrLogMismatch is wrapped by Err when the event log given with
// Options.Log does not belong to the capture.
var ErrLogMismatch = errors.New("the event log does not belong to the capture")

// A log that belongs to another capture (or to none) would judge every
// room on evidence that is not its own: rooms "never released" because
// the log never shows them, or released a day late. So before the first
// room is judged the Judge checks, on what it has seen by then, that
// the log and the capture describe the same rooms on the same clock:
//
//   - the log shows some event of prefill, and some room the capture
//     shows on the log's prefill endpoint;
//   - no room's WaitingForInput is logged more than the skew before the
//     capture saw the TransferInfos that complete it (the log's clock is
//     not behind the capture's);
//   - the log's events and the capture's messages overlap in time, give
//     or take the deadline (a log offset by more would judge rooms on
//     the wrong time).
//
// The check waits until both the log and the capture have shown a room
// (rooms due to be judged before that are held), or until Finish. A
// failed check is Err, and no room is judged.
type logCheck struct {
	decided bool
	events  int
	// first times (unix nanoseconds) of the rooms each source showed, and
	// the first log line of each room.
	logRooms, wireRooms map[int64]int64
	logLines            map[int64]int
	// the spans of the log's events and of the capture's messages.
	logFirst, logLast, wireFirst, wireLast int64
	// behind is the worst room whose WaitingForInput the log shows before
	// the capture saw its TransferInfos.
	behind struct {
		lag         int64
		room        int64
		line, frame int
	}
	held []heldRoom
}

type heldRoom struct {
	rm  *room
	end int64
}

// observeLog records o (of room rm) for the check.
func (j *Judge) observeLog(rm *room, o *observe.Observation, now int64) {
	lc := &j.logCheck
	if lc.decided || !rm.OnLogEndpoint() {
		return
	}
	if lc.logRooms == nil {
		lc.logRooms, lc.wireRooms, lc.logLines = map[int64]int64{}, map[int64]int64{}, map[int64]int{}
	}
	rs := &rm.Data
	if !o.Kind.Wire() {
		if lc.events == 0 {
			lc.logFirst = now
		}
		lc.logLast = now
		lc.events++
		if _, ok := lc.logRooms[rm.ID]; !ok {
			lc.logRooms[rm.ID], lc.logLines[rm.ID] = now, o.Line
		}
		if o.Kind == observe.Status && o.To == "WaitingForInput" && rs.wfiLog == 0 && o.Doubt == "" {
			rs.wfiLog, rs.wfiLine = now, o.Line
		}
	} else {
		if len(lc.wireRooms) == 0 {
			lc.wireFirst = now
		}
		lc.wireLast = now
		if _, ok := lc.wireRooms[rm.ID]; !ok {
			lc.wireRooms[rm.ID] = now
		}
	}
	if o.Kind == observe.TransferInfo {
		rs.tis++
		if rs.tis == o.Required {
			rs.tiDone, rs.tiFrame = now, o.Frame
		}
	}
	if rs.wfiLog != 0 && rs.tiDone != 0 {
		if lag := rs.wfiLog - rs.tiDone; lag < lc.behind.lag {
			lc.behind.lag, lc.behind.room, lc.behind.line, lc.behind.frame = lag, rm.ID, rs.wfiLine, rs.tiFrame
		}
	}
}

// hold reports whether rm, due to be judged at end, must wait for the
// log check; it judges the rooms held so far once the check is decided.
func (j *Judge) hold(rm *room, end int64, finishing bool) bool {
	lc := &j.logCheck
	if !j.opt.Log || lc.decided {
		return false
	}
	if !finishing && (lc.events == 0 || len(lc.wireRooms) == 0 || !j.fitReady(len(lc.held))) {
		lc.held = append(lc.held, heldRoom{rm, end})
		return true
	}
	lc.decided = true
	j.err = j.checkLog()
	held := lc.held
	*lc = logCheck{decided: true}
	if j.err != nil {
		return true
	}
	for _, h := range held {
		j.forgotten(h.rm, h.end)
	}
	return false
}

// logChecked reports whether rooms may be reported now (ok): there is no
// log, or it was checked against the capture and belongs to it. It
// decides the check as soon as both the log and the capture have shown a
// room, judging the rooms held so far; decided is false while it cannot.
func (j *Judge) logChecked() (ok, decided bool) {
	lc := &j.logCheck
	if !j.opt.Log {
		return true, true
	}
	if !lc.decided && lc.events > 0 && len(lc.wireRooms) > 0 && j.fitReady(len(lc.held)) {
		j.hold(nil, 0, true)
	}
	return lc.decided && j.err == nil, lc.decided
}

// checkLog decides whether the log belongs to the capture.
func (j *Judge) checkLog() error {
	lc := &j.logCheck
	if lc.events == 0 {
		return fmt.Errorf("%w: the log shows no event of prefill", ErrLogMismatch)
	}
	if len(lc.wireRooms) == 0 {
		return nil // nothing of the capture to hold the log against
	}
	var common, logOnly, wireOnly []int64
	for id := range lc.logRooms {
		if _, ok := lc.wireRooms[id]; ok {
			common = append(common, id)
		} else {
			logOnly = append(logOnly, id)
		}
	}
	for id := range lc.wireRooms {
		if _, ok := lc.logRooms[id]; !ok {
			wireOnly = append(wireOnly, id)
		}
	}
	if len(common) == 0 {
		return fmt.Errorf("%w: the log shows rooms %s (its first at line %d), the capture rooms %s on the log's prefill endpoint: none in common",
			ErrLogMismatch, few(logOnly), lc.logLines[slices.Min(logOnly)], few(wireOnly))
	}
	skew := int64(j.opt.Skew)
	if b := lc.behind; b.lag < -skew {
		return fmt.Errorf("%w: the log's clock is behind the capture's by at least %v (room %d is WaitingForInput at log line %d, %v before the capture saw the TransferInfo that completes it, frame %d; the skew is %v)",
			ErrLogMismatch, time.Duration(-b.lag), b.room, b.line, time.Duration(-b.lag), b.frame, j.opt.Skew)
	}
	dl := int64(j.opt.Deadline)
	if gap := max(lc.logFirst-lc.wireLast, lc.wireFirst-lc.logLast); gap > dl {
		return fmt.Errorf("%w: the log's events (%s to %s) and the capture's messages (%s to %s) are %v apart, more than the %v deadline: the two clocks are offset",
			ErrLogMismatch, stamp(stamp64(lc.logFirst)), stamp(stamp64(lc.logLast)), stamp(stamp64(lc.wireFirst)), stamp(stamp64(lc.wireLast)), time.Duration(gap), j.opt.Deadline)
	}
	return j.checkFit()
}

// few lists up to five room ids, smallest first.
func few(ids []int64) string {
	if len(ids) == 0 {
		return "none"
	}
	slices.Sort(ids)
	s := fmt.Sprint(ids[:min(len(ids), 5)])
	if len(ids) > 5 {
		s = s[:len(s)-1] + fmt.Sprintf(" and %d more]", len(ids)-5)
	}
	return s
}

// Err returns why the Judge judged no room: ErrLogMismatch (wrapped,
// with what does not match) when the log does not belong to the capture.
func (j *Judge) Err() error { return j.err }
