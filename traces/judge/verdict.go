package judge

import (
	"fmt"
	"slices"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge/explain"
)

// judge closes the room's open burst and gives its verdict at time end.
// A room the log showed before the capture's first message, or first seen
// near the start of a capture that joined connections mid-stream, is
// judged again as if blind to what was sent before the capture saw each
// of its connections (the verdict that counts when it differs), and if
// even that cannot explain it, from every state of the spec.
//
// final says the room's observations are over (it is being handed on):
// only then is a room the log never showed judged from the wire alone
// (uncovered), which re-explains it in place. A provisional judgment of
// a live room (the Watcher's) holds it to the log, which may show it
// yet.
func (j *Judge) judge(rm *room, end int64, final bool) *Room {
	out := j.judged(rm, end, final)
	if rs := &rm.Data; j.opt.KeepMatch && rs.inst != nil && !rs.histLost {
		out.Match = &explain.Match{Inst: rs.inst, Start: out.Start, Hist: slices.Clone(rs.hist), Skew: j.opt.Skew}
	}
	return out
}

// judged is judge's verdict.
func (j *Judge) judged(rm *room, end int64, final bool) *Room {
	rs := &rm.Data
	j.closeBurst(rm, len(rs.hist))
	wireOnly := j.opt.Log && (!rm.OnLogEndpoint() || final && j.uncovered(rm))
	out := j.verdictFromStart(rm, end)
	if wireOnly {
		out.WireOnly = true
		why := "the log does not show this room"
		if !rm.OnLogEndpoint() {
			why = "the log is another prefill endpoint's"
		}
		out.Reason = fmt.Sprintf("judged from the wire alone (%s): %s", why, out.Reason)
	}
	j.believe(rm, out, end)
	if j.opt.Log && !rs.wireSeen && !rs.preCapture && out.Verdict == Invalid {
		// Only the log shows it, within the capture's span: the capture
		// has none of its messages (its traffic was not captured), which
		// is no evidence that the log's steps cannot happen. (A room the
		// log shows before the capture's first message is judged from
		// every state the capture may have missed: invalid there is the
		// log's own contradiction.)
		out.LogOnly = true
		out.Reason = fmt.Sprintf("would be invalid (%s), but only the log shows this room: the capture has none of its messages (its traffic is not in the capture: another interface, port or prefill endpoint?)", out.Reason)
		out.Verdict = Inconclusive
	}
	return out
}

// uncovered reports whether rm, on the log's endpoint, is a room the log
// never showed; if so, its observations are explained again from the
// wire alone (as the rooms of other endpoints are), since its log lines
// are not missing but unseen.
func (j *Judge) uncovered(rm *room) bool {
	rs := &rm.Data
	if !rs.log || rs.logSeen {
		return false
	}
	if rs.inst == nil || rs.histLost || rs.invalid != nil && !rs.invalid.byMatch {
		return true
	}
	inst, err := j.instances.Get(rs.inst.Config().RequiredDstInfoNum, false)
	if err != nil {
		return true
	}
	// (hist and evidence may live in the room's own buffers, which the
	// assignment clears: clone them.)
	*rs = roomState{inst: inst, set: inst.Start(), hist: slices.Clone(rs.hist), evidence: slices.Clone(rs.evidence), more: rs.more,
		aborted: rs.aborted, abortTime: rs.abortTime, abortFrame: rs.abortFrame, latency: -1,
		startWindow: rs.startWindow, preCapture: rs.preCapture, boundHit: rs.boundHit, again: true, noted: rs.noted, wireSeen: rs.wireSeen}
	begin := 0
	for end := range explain.Bursts(rs.hist, j.opt.Skew) {
		rs.burst = begin
		j.closeBurst(rm, end)
		begin = end
	}
	return true
}

// verdictFromStart gives the room's verdict, judging it again from a
// blind or unknown start where its first observation may not be the
// start of its life.
func (j *Judge) verdictFromStart(rm *room, end int64) *Room {
	rs := &rm.Data
	out := j.verdict(rm, end)
	if !(rs.preCapture || rs.startWindow && j.rooms.MidStream()) || rs.histLost || rs.inst == nil || rs.invalid != nil && !rs.invalid.byMatch {
		return out
	}
	blind := j.rejudge(rm, StartBlind, end)
	if blind.Verdict == Invalid {
		blind = j.rejudge(rm, StartUnknown, end)
	}
	if blind.Verdict == out.Verdict && out.Verdict != Invalid {
		return out
	}
	when := fmt.Sprintf("first seen in the first %v of a capture that joined connections mid-stream", j.opt.Deadline)
	if rs.preCapture {
		when = "first seen in the log before the capture's first message"
	}
	what := "messages sent before the capture saw its connections may be missing"
	if blind.Start == StartUnknown {
		what = "its life began before the capture and the log, so it was judged from every state of the spec"
	}
	blind.Reason = fmt.Sprintf("%s (%s): %s", when, what, blind.Reason)
	return blind
}

// rejudge explains the room's history again from the given start.
func (j *Judge) rejudge(rm *room, start Start, end int64) *Room {
	rs := &rm.Data
	set, complete := rs.inst.StartSet(start)
	again := *rm
	again.Data = roomState{log: rs.log, inst: rs.inst, set: set, hist: rs.hist, aborted: rs.aborted,
		abortTime: rs.abortTime, abortFrame: rs.abortFrame, latency: -1, evidence: rs.evidence, more: rs.more,
		start: start, boundHit: !complete, again: true}
	// Burst by burst, as Step cut them.
	begin := 0
	for end := range explain.Bursts(rs.hist, j.opt.Skew) {
		again.Data.burst = begin
		j.closeBurst(&again, end)
		begin = end
	}
	return j.verdict(&again, end)
}

// verdict gives the room's verdict at time end from its explained state.
func (j *Judge) verdict(rm *room, end int64) *Room {
	rs := &rm.Data
	out := &Room{Room: rm.ID, Prefill: j.rooms.Endpoint(rm), Aborted: rs.aborted, AbortFrame: rs.abortFrame, AbortTime: stamp64(rs.abortTime),
		FirstSeen: stamp64(rm.First), LastSeen: stamp64(rm.Last), TerminalTime: stamp64(rs.terminal),
		Latency: -1, More: rs.more, MaxHidden: rs.depth, BoundHit: rs.boundHit, Start: rs.start, Ranks: j.rooms.RankNames(rm)}
	if rs.inst != nil {
		out.Config = rs.inst.Config()
	}
	for _, ev := range rs.evidence {
		if ev > 0 {
			out.Frames = append(out.Frames, int(ev))
		} else {
			out.Lines = append(out.Lines, int(-ev))
		}
	}
	if iv := rs.invalid; iv != nil {
		out.Verdict, out.Reason = Invalid, iv.reason
		out.Unexplained = iv.obs
		if iv.obs == nil {
			out.Unexplained = j.observation(rm, iv.rec)
		}
		if iv.from != nil && rs.inst != nil {
			out.State = iv.from.Format(rs.inst.Config())
			if iv.byMatch {
				out.Behaviour = j.rebuild(rm, nil)
			}
		}
		return out
	}
	if !rs.aborted {
		out.Verdict, out.Reason = NotAborted, "never aborted"
		return out
	}
	dl := int64(j.opt.Deadline)
	if !rs.open && rs.latency >= 0 {
		out.Latency = time.Duration(rs.latency)
		if rs.latency > dl {
			out.Verdict, out.Reason = Violated, fmt.Sprintf("released %v after the abort, later than the %v deadline", out.Latency, j.opt.Deadline)
			out.Behaviour = j.rebuild(rm, nil)
			return out
		}
		if !rs.log {
			// Messages on the wire (an ABORT_ACK) that every explanation
			// follows with the release: still the variant's prediction.
			out.Verdict, out.Reason = PredictedReleased, fmt.Sprintf("the messages seen imply its release %v after the abort under %s: a prediction, the release is not observed (only -log shows it)", out.Latency, j.variantName())
			return out
		}
		out.Verdict, out.Reason = Satisfied, fmt.Sprintf("released %v after the abort", out.Latency)
		return out
	}
	if rs.log && rs.start == StartUnknown && !rs.set.Closed() && rs.set.AnySettled(rs.inst.Config()) {
		out.Verdict, out.Reason = Inconclusive, "some explanations of its unseen past let it go, others do not"
		return out
	}
	if rs.log {
		defer j.pinned(rm, out)
		waited := time.Duration(end - rs.episode)
		if rs.latency > dl {
			out.Verdict, out.Reason = Violated, fmt.Sprintf("released %v after an abort, later than the %v deadline", time.Duration(rs.latency), j.opt.Deadline)
		} else if end-rs.episode >= dl {
			out.Verdict, out.Reason = Violated, fmt.Sprintf("not released %v after the abort (deadline %v)", waited, j.opt.Deadline)
		} else {
			out.Verdict, out.Reason = Inconclusive, fmt.Sprintf("not released yet; the capture ended %v after the abort, before the %v deadline", waited, j.opt.Deadline)
			return out
		}
		out.Behaviour = j.rebuild(rm, nil)
		return out
	}
	pin, complete := rs.inst.Pin(rs.set)
	switch {
	case pin != nil:
		out.Pin = pin
		out.Verdict, out.Reason = AtRisk, fmt.Sprintf("some completion of the unseen steps (%d steps) pins the room", len(pin)-1)
		if b := j.rebuild(rm, &pin[0]); b != nil {
			out.Behaviour = append(b, pin[1:]...)
			out.Why = Why(rs.inst.Config(), out.Behaviour)
		}
	case !complete:
		out.Verdict, out.Reason = Inconclusive, fmt.Sprintf("the completions of the unseen steps exceed the search bound (%d states)", j.opt.MaxStates)
		out.BoundHit = true
	default:
		out.Verdict, out.Reason = PredictedReleased, fmt.Sprintf("every completion of prefill's unseen steps releases the room under %s: a prediction, the release is not observed (only -log shows it)", j.variantName())
	}
	return out
}

// rebuild returns a behaviour matching the room's history, ending in
// state want if given (explain.Instance.Behaviour); nil when the history
// was not kept.
func (j *Judge) rebuild(rm *room, want *model.State) []model.State {
	rs := &rm.Data
	if rs.histLost || rs.inst == nil {
		return nil
	}
	return rs.inst.Behaviour(rs.start, rs.hist, j.opt.Skew, want)
}

// variantName names the variant rooms are judged under, for reasons.
func (j *Judge) variantName() string {
	if n := j.instances.Base().Name; n != "" && n != "." {
		return n
	}
	return "the variant"
}

// pinned extends the behaviour of a room the log shows violated to the
// state that pins it, where some completion of prefill's unseen steps
// reaches one (the log ends before it: the ABORTs may still be on their
// way), and says why it is pinned. A room violated by a late release, or
// one every completion lets go, keeps its behaviour.
func (j *Judge) pinned(rm *room, out *Room) {
	rs := &rm.Data
	if out.Verdict != Violated || out.Latency >= 0 || rs.inst == nil || rs.histLost {
		return
	}
	c := rs.inst.Config()
	if n := len(out.Behaviour); n > 0 && rs.inst.Doomed(&out.Behaviour[n-1]) {
		out.Why = Why(c, out.Behaviour)
		return
	}
	pin, _ := rs.inst.Pin(rs.set)
	if pin == nil {
		return
	}
	if b := j.rebuild(rm, &pin[0]); b != nil {
		out.Behaviour, out.Pin = append(b, pin[1:]...), pin
		out.Why = Why(c, out.Behaviour)
	}
}
