package judge

import (
	"fmt"

	"github.com/roomspec/roomspec/spec/itf"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge/explain"
	"github.com/roomspec/roomspec/traces/observe"
)

// Witness is one behaviour of the spec that explains a reported room's
// observations, step by step: which step left each observed mark, which
// steps nothing observed (the unseen steps replay inferred), the logged
// polls that moved nothing, and for an at-risk room the completion of the
// unseen steps that pins it. Replay judges a room on sets of spec states;
// a witness is one path through them, rebuilt when Options.Witness asks
// for it (reports that draw rooms).
//
// Observations are matched to marks as the search matches them: on each
// channel (a decode rank's direction on the wire, or the log) in order, the
// k-th observation is the k-th mark the behaviour leaves there, except
// that a channel the capture may not have seen from its start (a room
// judged blind or from an unknown start) may have missed marks before its
// first observation, and the log may show polls that moved nothing.
type Witness struct {
	// Config is the spec instance the room was checked on.
	Config *model.Config
	// Steps are the behaviour; Steps[0] holds its initial state (its
	// Action is unset). Rooms of the same pattern share their steps: they
	// are read-only.
	Steps []WitnessStep
	// Observations are the room's observations that were checked against
	// the spec, in the order fed, then (for an invalid room the search
	// never saw) its unexplained observation.
	Observations []observe.Observation
	// Unexplained is the index in Observations of an invalid room's
	// unexplained observation, or -1; no observation from it on is
	// matched to a step.
	Unexplained int
	// Pin is the index of the first step of an at-risk room's pinning
	// completion (unseen steps after the last observation), or -1.
	Pin int
	// Stuck is the index of the first state from which, up to the end of
	// the behaviour, no completion of the unseen steps (every step but
	// decode's sends) lets the room's aborted requests go: the room is
	// pinned from there. -1 when the behaviour ends in a state that can
	// still let them go.
	Stuck int
	// Aligned is false when some observation before Unexplained could not
	// be matched to a mark of the behaviour (then it is drawn unmatched).
	Aligned bool
}

// WitnessStep is one step of a Witness.
type WitnessStep struct {
	// Action is the spec action taken, State the state after it.
	Action model.Action
	State  model.State
	// Marks are the marks the step left (explain.Marks); Obs[k] is the index
	// in Witness.Observations of the observation of Marks[k], or -1 when
	// it was not observed (a message still in flight at the end, or sent
	// before the capture saw its connection).
	Marks []explain.Mark
	Obs   []int
	// Quiet are the indices in Witness.Observations of logged polls that
	// moved nothing, taken in State (after this step, before the next).
	Quiet []int
}

// Unseen reports whether no observation shows the step.
func (s *WitnessStep) Unseen() bool {
	for _, o := range s.Obs {
		if o >= 0 {
			return false
		}
	}
	return true
}

// maxWitnesses bounds the witnesses kept per room pattern.
const maxWitnesses = 4096

// witness returns the witness of room, judged from rm; nil when the
// room's history was not kept. Rooms whose observations follow the same
// pattern (the same marks in the same bursts, on the same instance, from
// the same start, to the same kind of verdict) have the same witness but
// for their observations themselves: it is rebuilt once per pattern, its
// steps shared.
func (j *Judge) witness(rm *room, room *Room) *Witness {
	rs := &rm.Data
	if rs.histLost || rs.inst == nil {
		return nil
	}
	if room.Verdict == Invalid {
		return j.rebuildWitness(rm, room)
	}
	key := j.pattern(rs, room)
	w, ok := j.witnesses[key]
	if !ok {
		if w = j.rebuildWitness(rm, room); w == nil {
			return nil
		}
		if j.witnesses == nil || len(j.witnesses) >= maxWitnesses {
			j.witnesses = map[string]*Witness{}
		}
		j.witnesses[key] = w
		return w
	}
	out := *w
	out.Observations = make([]observe.Observation, 0, len(rs.hist))
	for _, rec := range rs.hist {
		out.Observations = append(out.Observations, *j.observation(rm, rec))
	}
	return &out
}

// pattern says what a room's witness depends on: its instance, start and
// kind of verdict, and its bursts' marks and orders.
func (j *Judge) pattern(rs *roomState, room *Room) string {
	b := fmt.Appendf(nil, "%p %d %s|", rs.inst, room.Start, room.Verdict)
	start := 0
	for end := range explain.Bursts(rs.hist, j.opt.Skew) {
		ms, ord := explain.BurstOf(rs.hist[start:end], j.opt.Skew)
		b = append(ord.AppendKey(b, ms[:end-start]), '|')
		start = end
	}
	return string(b)
}

// rebuildWitness rebuilds the witness of room, judged from rm.
func (j *Judge) rebuildWitness(rm *room, room *Room) *Witness {
	rs := &rm.Data
	c := rs.inst.Config()
	states, pin := room.Behaviour, -1
	if states != nil && room.Pin != nil && len(room.Pin) > 1 {
		pin = len(states) - len(room.Pin) + 1
	}
	if states == nil || room.Pin == nil && room.Aborted && room.Verdict != Invalid {
		// Judged again from room.Start where judge said so.
		states = j.explanation(rs, room.Start, room.Aborted)
	}
	if len(states) == 0 {
		return nil
	}
	w := &Witness{Config: c, Pin: pin, Stuck: -1, Unexplained: -1, Aligned: true}
	w.Steps = make([]WitnessStep, len(states))
	w.Steps[0].State = states[0]
	for i := 1; i < len(states); i++ {
		st := &w.Steps[i]
		st.State = states[i]
		st.Action, _ = itf.Step(c, &states[i-1], &states[i])
		st.Marks = explain.Marks(c, st.Action, &states[i-1], &states[i], rs.inst.Log())
		st.Obs = make([]int, len(st.Marks))
		for k := range st.Obs {
			st.Obs[k] = -1
		}
	}
	marks := make([]explain.Mark, 0, len(rs.hist))
	for _, rec := range rs.hist {
		w.Observations = append(w.Observations, *j.observation(rm, rec))
		marks = append(marks, j.marks.Mark(rec.Mark))
	}
	if u := room.Unexplained; u != nil {
		w.Unexplained = len(w.Observations)
		for i := range w.Observations {
			if o := &w.Observations[i]; o.Kind == u.Kind && o.Frame == u.Frame && o.Line == u.Line && o.Time.Equal(u.Time) {
				w.Unexplained = i
				break
			}
		}
		if w.Unexplained == len(w.Observations) {
			w.Observations = append(w.Observations, *u)
		}
		marks = marks[:min(w.Unexplained, len(marks))]
	}
	w.align(marks, room.Start)
	if room.Aborted {
		w.stuck(rs.inst)
	}
	return w
}

// explanation returns a behaviour of the spec that explains the room's
// observations from start: of the states they may leave it in, for an
// aborted room one from which no completion lets its aborted requests go
// (the one that shows how it was pinned), else the first.
func (j *Judge) explanation(rs *roomState, start Start, aborted bool) []model.State {
	m := explain.Match{Inst: rs.inst, Start: start, Hist: rs.hist, Skew: j.opt.Skew}
	finals, _ := m.Explanations()
	if len(finals) == 0 {
		return nil
	}
	if aborted {
		for _, f := range finals {
			if rs.inst.Doomed(&f[len(f)-1]) {
				return f
			}
		}
	}
	return finals[0]
}

// slot is the k-th mark of step i.
type slot struct{ step, k int }

// align matches observations (their marks ms) to the marks of the steps,
// channel by channel.
func (w *Witness) align(ms []explain.Mark, start Start) {
	slots := map[int][]slot{}
	for i := 1; i < len(w.Steps); i++ {
		for k, m := range w.Steps[i].Marks {
			slots[m.Channel()] = append(slots[m.Channel()], slot{i, k})
		}
	}
	obs := map[int][]int{}
	var chans []int
	for j, m := range ms {
		ch := m.Channel()
		if _, ok := obs[ch]; !ok {
			chans = append(chans, ch)
		}
		obs[ch] = append(obs[ch], j)
	}
	for _, ch := range chans {
		blind := start == StartUnknown || start == StartBlind && ch >= 0
		if ch == -1 {
			w.alignLog(ms, obs[ch], slots[ch], blind)
			continue
		}
		w.alignWire(ms, obs[ch], slots[ch], blind)
	}
}

// matches reports whether observed mark m is the mark of slot s: the
// same, but a poll whose queue the log did not say fits a poll of either
// queue (as the search reads it).
func (w *Witness) matches(s slot, m explain.Mark) bool {
	left := w.Steps[s.step].Marks[s.k]
	if m.Kind == observe.Poll && m.A == "" {
		return left.Kind == observe.Poll && left.B == m.B
	}
	return left == m
}

// alignWire matches a wire channel's observations js to its marks: the
// k-th to the k-th, or on a blind channel after the marks it missed.
func (w *Witness) alignWire(ms []explain.Mark, js []int, sl []slot, blind bool) {
	best, bestN := 0, -1
	for off := 0; off == 0 || blind && off < len(sl); off++ {
		n := 0
		for n < len(js) && off+n < len(sl) && w.matches(sl[off+n], ms[js[n]]) {
			n++
		}
		if n > bestN {
			best, bestN = off, n
		}
		if n == len(js) {
			break
		}
	}
	for n := 0; n < bestN; n++ {
		s := sl[best+n]
		w.Steps[s.step].Obs[s.k] = js[n]
	}
	if bestN < len(js) {
		w.Aligned = false
	}
}

// alignLog matches the log's observations js to its marks in order; an
// observation that is not the next mark is a poll that moved nothing,
// placed at the first state since the last matched line where such a
// poll fits (explain.Stutter). A blind log (the room's life began before
// it) may have missed the lines before its first observation.
func (w *Witness) alignLog(ms []explain.Mark, js []int, sl []slot, blind bool) {
	try := func(off int, commit bool) int {
		p, at, n := off, 0, 0
		if off > 0 {
			at = sl[off-1].step
		}
		for _, j := range js {
			if p < len(sl) && w.matches(sl[p], ms[j]) {
				if commit {
					w.Steps[sl[p].step].Obs[sl[p].k] = j
				}
				at = sl[p].step
				p, n = p+1, n+1
				continue
			}
			if ms[j].Kind != observe.Poll {
				return n
			}
			hi := len(w.Steps)
			if p < len(sl) {
				hi = sl[p].step
			}
			place := at
			for i := at; i < hi; i++ {
				if explain.Stutter(w.Config, ms[j], &w.Steps[i].State) {
					place = i
					break
				}
			}
			if commit {
				w.Steps[place].Quiet = append(w.Steps[place].Quiet, j)
			}
			at, n = place, n+1
		}
		return n
	}
	best, bestN := 0, -1
	for off := 0; off == 0 || blind && off < len(sl); off++ {
		n := try(off, false)
		if n > bestN {
			best, bestN = off, n
		}
		if n == len(js) {
			break
		}
	}
	try(best, true)
	if bestN < len(js) {
		w.Aligned = false
	}
}

// stuck sets Stuck: the first state from which every later state of the
// behaviour is pinned (explain.Instance.Doomed).
func (w *Witness) stuck(inst *explain.Instance) {
	for i := len(w.Steps) - 1; i >= 0 && inst.Doomed(&w.Steps[i].State); i-- {
		w.Stuck = i
	}
}
