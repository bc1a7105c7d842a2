package judge

import (
	"fmt"
	"slices"
	"time"

	"github.com/roomspec/roomspec/traces/judge/explain"
	"github.com/roomspec/roomspec/traces/observe"
)

// room is a live room: what the grouper knows of it, and roomState.
type room = observe.Room[roomState]

// maxHistory bounds the observations a room keeps to rebuild its
// behaviour; past it only the open burst is kept.
const maxHistory = 4096

// roomState is what the Judge keeps of a live room.
type roomState struct {
	log  bool
	inst *explain.Instance
	set  *explain.Set
	hist []explain.Obs
	// evidence holds frames (>0) and log lines (<0).
	evidence []int32
	// The first few of each, in the room's own allocation.
	histBuf    [3]explain.Obs
	evBuf      [4]int32
	burst      int
	histLost   bool
	burstLast  int64
	aborted    bool
	abortTime  int64
	abortFrame int
	// episode is the first ABORT since the room was last closed; open
	// says an aborted request is waiting since then.
	episode  int64
	open     bool
	latency  int64 // the longest closed wait, or -1
	terminal int64
	more     int
	depth    int
	boundHit bool
	// startWindow: first seen before the capture's first message
	// (preCapture: only the log saw it) or within the deadline after it.
	startWindow, preCapture bool
	start                   Start
	// invalid, once set, makes later observations evidence only.
	invalid *invalidity
	// logSeen: the log showed the room; wireSeen: the capture did.
	logSeen, wireSeen bool
	// again: the room's history is being explained again (from another
	// start, or from the wire alone); its releases were noted already.
	// noted: a release of the room was noted (Releases).
	again, noted bool
	// For the log check: the room's first WaitingForInput in the log
	// (time, line), and its TransferInfos in the capture (how many, and
	// the time and frame of the one that completes them).
	wfiLog, tiDone   int64
	wfiLine, tiFrame int
	tis              int
	// fit is what the room shows of the log's fit (logfit.go).
	fit roomFit
}

type invalidity struct {
	// rec is the observation no step explains, or obs one outside the
	// instance (not recorded).
	rec    explain.Obs
	obs    *observe.Observation
	reason string
	// from is the set it was checked from; byMatch says no spec step
	// explains it (as opposed to a rank or required count outside the
	// instance).
	from    *explain.Set
	byMatch bool
}

// observe groups and explains o (Step); it returns the room o was
// grouped into (nil once Err is set).
func (j *Judge) observe(o observe.Observation) *room {
	if j.err != nil {
		return nil
	}
	now := o.Time.UnixNano()
	j.lastTime = max(j.lastTime, now)
	rm, created := j.rooms.Observe(&o)
	rs := &rm.Data
	if created {
		started, start := j.rooms.Started()
		rs.latency = -1
		rs.log = j.opt.Log && rm.OnLogEndpoint()
		rs.preCapture = !started
		rs.startWindow = !started || now-start <= int64(j.opt.Deadline)
		rs.hist, rs.evidence = rs.histBuf[:0], rs.evBuf[:0]
	}
	j.evidence(rs, &o)
	rs.wireSeen = rs.wireSeen || o.Kind.Wire()
	if j.opt.Log {
		j.fitObserve(rm, &o, now)
		j.observeLog(rm, &o, now)
		rs.logSeen = rs.logSeen || !o.Kind.Wire()
	}
	if o.Kind == observe.Abort && !rs.aborted {
		rs.aborted, rs.abortTime, rs.abortFrame = true, now, o.Frame
	}
	if o.Kind == observe.Other || (!rs.log && !o.Kind.Wire()) || rs.invalid != nil && !rs.invalid.byMatch {
		return rm
	}
	if rs.inst == nil {
		n := j.instances.Base().RequiredDstInfoNum
		if o.Kind == observe.TransferInfo {
			n = o.Required
		}
		inst, err := j.instances.Get(n, rs.log)
		if err != nil {
			j.invalid(rm, &o, err.Error())
			return rm
		}
		rs.inst, rs.set = inst, inst.Start()
	}
	c := rs.inst.Config()
	if o.Kind == observe.TransferInfo && o.Required != c.RequiredDstInfoNum {
		j.invalid(rm, &o, fmt.Sprintf("required_dst_info_num %d, but the room's first TransferInfo said %d", o.Required, c.RequiredDstInfoNum))
		return rm
	}
	d := -1
	if o.Kind.Wire() {
		if d = j.rooms.Rank(rm, &o); d < 0 {
			if rm.Ranks() == c.DecodeRanks.Size() {
				j.invalid(rm, &o, fmt.Sprintf("a decode rank %s beyond the %d of required_dst_info_num (%v)", o.Rank, rm.Ranks(), j.rooms.RankNames(rm)))
				return rm
			}
			d = j.rooms.AddRank(rm, &o)
		}
	}
	rec := explain.Obs{T: now, Mark: j.markOf(&o, d), Src: j.sources.ID(&o), Ev: int32(o.Frame)}
	if !o.Kind.Wire() {
		rec.Ev = int32(o.Line)
	}
	if n := len(rs.hist) - rs.burst; rs.invalid == nil && explain.Cuts(n, rs.burstLast, now, j.opt.Skew) {
		if n == explain.MaxBurst && now-rs.burstLast <= int64(j.opt.Skew) {
			rs.boundHit = true
		}
		j.closeBurst(rm, len(rs.hist))
	}
	if rs.invalid != nil {
		// Kept only for judging the room again (see judge).
		if rs.startWindow && len(rs.hist) < maxHistory {
			rs.hist = append(rs.hist, rec)
		}
		return rm
	}
	rs.hist = append(rs.hist, rec)
	rs.burstLast = max(rs.burstLast, now)
	return rm
}

// markOf returns the interned mark observation o (of decode rank d) must
// match. Log fields the spec does not know stay as they are (they match
// nothing), unless so many distinct ones came that they would make the
// table grow with the log.
func (j *Judge) markOf(o *observe.Observation, d int) int32 {
	if o.Kind.Wire() && d < len(j.wireMarks[0]) {
		p := &j.wireMarks[o.Kind][d]
		if *p == 0 {
			*p = j.marks.ID(explain.MarkOf(o, d)) + 1
		}
		return *p - 1
	}
	m := explain.MarkOf(o, d)
	if j.marks.Len() >= 1<<16 && !j.marks.Has(m) {
		m.A, m.B = "?", "?"
	}
	return j.marks.ID(m)
}

func (j *Judge) evidence(rs *roomState, o *observe.Observation) {
	ev := int32(o.Frame)
	if !o.Kind.Wire() {
		ev = -int32(o.Line)
	}
	if n := len(rs.evidence); ev > 0 && n > 0 && rs.evidence[n-1] == ev {
		return // another message of the same packet
	}
	if len(rs.evidence) < j.opt.MaxEvidence {
		rs.evidence = append(rs.evidence, ev)
	} else {
		rs.more++
	}
}

// invalid makes rm invalid: o is outside its instance.
func (j *Judge) invalid(rm *room, o *observe.Observation, why string) {
	rs := &rm.Data
	j.closeBurst(rm, len(rs.hist))
	if rs.invalid != nil {
		return
	}
	c := *o // a copy: o itself must not escape (Observe's hot path)
	rs.invalid = &invalidity{obs: &c, reason: fmt.Sprintf("%s: %s", &c, why), from: rs.set}
}

// closeBurst explains the room's open burst (its observations up to end).
func (j *Judge) closeBurst(rm *room, end int) {
	rs := &rm.Data
	obs := rs.hist[rs.burst:end]
	if len(obs) == 0 || rs.invalid != nil {
		return
	}
	n := len(obs)
	ms, ord := explain.BurstOf(obs, j.opt.Skew)
	e := rs.inst.Burst(rs.set, ms[:n], ord)
	rs.depth = max(rs.depth, e.Depth())
	rs.boundHit = rs.boundHit || e.BoundHit()
	for _, o := range obs {
		if j.marks.Mark(o.Mark).Kind == observe.Abort && rs.episode == 0 {
			rs.episode = o.T
		}
	}
	if blame, from := e.Blame(); blame >= 0 {
		o := obs[blame]
		why := "no spec step explains it"
		if e.BoundHit() {
			why += fmt.Sprintf(" within the search bound (%d unseen steps, %d states)", j.opt.MaxHidden, j.opt.MaxStates)
		}
		rs.invalid = &invalidity{rec: o, from: from, byMatch: true}
		rs.invalid.reason = fmt.Sprintf("%s: %s", j.observation(rm, o), why)
		rs.burst = end
		return
	}
	// A prefix that closes the room dates its release; the burst's end
	// otherwise.
	at := func(k int) int64 {
		if k > 0 {
			return obs[k-1].T
		}
		return obs[n-1].T
	}
	s := e.Final()
	switch {
	case s.Closed() && rs.open:
		l := at(e.ClosedAt()) - rs.episode
		rs.latency = max(rs.latency, l)
		j.released(rs, l)
		rs.open, rs.episode = false, 0
	case s.Closed():
		if rs.episode != 0 {
			// Aborted and let go within the burst, or let go before it was
			// aborted (a wait of 0).
			l := max(at(e.ClosedAt())-rs.episode, 0)
			rs.latency = max(rs.latency, l)
			j.released(rs, l)
		}
		rs.episode = 0
	case s.Aborted() && !rs.open && rs.episode != 0:
		// (An abort only the spec's states hold, unseen, is not judged.)
		rs.open = true
	}
	if s.Released() {
		if rs.terminal == 0 {
			rs.terminal = at(e.ReleasedAt())
		}
	} else {
		rs.terminal = 0
	}
	rs.set = s
	rs.burst = end
	if len(rs.hist) > maxHistory {
		// Keep the open burst only; the behaviour can no longer be rebuilt.
		rs.hist = slices.Delete(rs.hist, 0, end)
		rs.burst, rs.histLost = 0, true
	}
}

// released notes the release of an aborted room, latency nanoseconds
// after its abort, for Releases: with Options.Overdue, as its live
// explanation sees it (not again when the room is judged again from
// another start).
func (j *Judge) released(rs *roomState, latency int64) {
	if j.opt.Overdue && !rs.again {
		j.noteRelease(time.Duration(latency))
		rs.noted = true
	}
}

func (j *Judge) noteRelease(latency time.Duration) {
	if len(j.releases) < maxReleases {
		j.releases = append(j.releases, latency)
	}
}

// observation rebuilds the observation of record o of room rm.
func (j *Judge) observation(rm *room, o explain.Obs) *observe.Observation {
	m := j.marks.Mark(o.Mark)
	out := &observe.Observation{Kind: m.Kind, Time: time.Unix(0, o.T).UTC(), Room: rm.ID}
	if m.Kind.Wire() {
		out.Frame = int(o.Ev)
		if m.Rank >= 0 && m.Rank < rm.Ranks() {
			out.Rank = j.rooms.RankName(rm, m.Rank)
		}
	} else {
		out.Line = int(o.Ev)
	}
	switch m.Kind {
	case observe.Status:
		out.From, out.To = m.A, m.B
	case observe.Poll:
		out.Queue, out.Status = m.A, m.B
	}
	return out
}
