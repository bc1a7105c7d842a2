package explain

import (
	"time"

	"github.com/roomspec/roomspec/spec/model"
)

// Match is what a room was explained from: its spec instance, what its
// life was assumed to begin with, and its observations (cut into bursts
// by Bursts with Skew). traces/judge/replay keeps it for each room when asked
// (replay.Options.KeepMatch); the captured-trace property suite checks an
// implementation on its schedules.
type Match struct {
	Inst  *Instance
	Start Start
	Hist  []Obs
	Skew  time.Duration
}

// Schedule is a behaviour of the spec that a capture allows for a room:
// steps that leave the room's observations as their marks, unseen steps
// among them, then unseen steps after the last one (the capture's end
// leaves them open).
type Schedule struct {
	Actions []model.Action
	// States are the states along the schedule: States[0] is where the
	// room starts, Actions[i] takes States[i] to States[i+1].
	States []model.State
	// Obs is, per step, the index in Match.Hist of the observation the
	// step explains (the first of its marks that was observed), or -1
	// for an unseen step; Also lists the further observations the step
	// explains (a DecodeAbort's other ranks' ABORTs, a step's further
	// log lines).
	Obs  []int
	Also [][]int
	// Observed is the number of steps up to the state the room's
	// observations leave it in; the rest is the completion.
	Observed int
}

// Explanations returns the states the room's observations may leave it
// in (each once), each with a behaviour of the spec that reaches it;
// complete is false when a search bound cut the search.
func (m *Match) Explanations() (finals [][]model.State, complete bool) {
	nodes := m.Inst.startNodes(m.Start)
	complete = true
	begin := 0
	for end := range Bursts(m.Hist, m.Skew) {
		obs := m.Hist[begin:end]
		ids, ord := BurstOf(obs, m.Skew)
		ms := make([]Mark, len(obs))
		for i := range ms {
			ms[i] = m.Inst.marks.Mark(ids[i])
		}
		e := explain[[]node](nodeSpace{&m.Inst.sr, ms}, nodes, ord)
		complete = complete && !e.hit
		if e.blame >= 0 {
			return nil, complete
		}
		nodes = e.final
		begin = end
	}
	var seen nodeSet
	for _, n := range nodes {
		if seen.add(node{s: n.s}) {
			finals = append(finals, n.trail.states())
		}
	}
	return finals, complete
}

// Schedules returns the room's schedules, one per state a schedule can
// leave the room in: each state its observations may leave it in, and
// each state the unseen steps reach from those. The schedules to a state
// from which no completion lets an aborted request go (what replay calls
// at-risk) come first, then the others; each group breadth first, so
// that schedules come shortest first. complete is false when there are
// more than limit (the first limit are returned) or a search bound cut
// them.
func (m *Match) Schedules(limit int) (out []Schedule, complete bool) {
	finals, complete := m.Explanations()
	if len(finals) == 0 {
		return nil, complete
	}
	starts := make([]node, len(finals))
	for i, f := range finals {
		starts[i] = node{s: f[len(f)-1]}
	}
	g, all := m.Inst.sr.complete(starts, 0)
	complete = complete && all && len(g.states) <= limit
	order := make([]int, 0, len(g.states))
	doomed := g.doomed(m.Inst.sr.c)
	for _, first := range []bool{true, false} {
		for i := range g.states {
			if doomed[i] == first {
				order = append(order, i)
			}
		}
	}
	if len(order) > limit {
		order = order[:limit]
	}
	for _, i := range order {
		root := i
		for g.parent[root] >= 0 {
			root = g.parent[root]
		}
		// The start states are the finals, in order.
		states := append(append([]model.State(nil), finals[root]...), g.path(i)[1:]...)
		out = append(out, m.schedule(states, len(finals[root])-1))
	}
	return out, complete
}

// Walk returns the schedule choices select: choices[0] picks one of the
// states the observations may leave the room in (finals, from
// Explanations), and each later choice either ends the schedule (0) or
// takes the (choice-1)-th unseen step enabled there (modulo their
// number): random schedules for the rooms with too many to enumerate.
// Shrinking choices towards 0 shortens the schedule.
func (m *Match) Walk(finals [][]model.State, choices []int) Schedule {
	if len(finals) == 0 {
		return Schedule{}
	}
	k := 0
	if len(choices) > 0 {
		k, choices = choices[0]%len(finals), choices[1:]
	}
	states := append([]model.State(nil), finals[k]...)
	c := m.Inst.sr.c
	for _, ch := range choices {
		s := states[len(states)-1]
		var next []model.State
		c.Next(&s, func(a model.Action, t *model.State) bool {
			if !environmentSend(a) {
				next = append(next, *t)
			}
			return false
		})
		if len(next) == 0 || ch%(len(next)+1) == 0 {
			break
		}
		states = append(states, next[ch%(len(next)+1)-1])
	}
	return m.schedule(states, len(finals[k])-1)
}

// schedule labels a behaviour (states) with its actions and the
// observations its steps explain; observed is the number of steps up to
// the room's last observation.
func (m *Match) schedule(states []model.State, observed int) Schedule {
	c := m.Inst.sr.c
	sc := Schedule{States: states, Observed: observed}
	used := make([]bool, len(m.Hist))
	var msgs []model.WireMessage
	for i := 0; i+1 < len(states); i++ {
		s, t := &states[i], &states[i+1]
		var act model.Action
		c.Next(s, func(a model.Action, u *model.State) bool {
			if u.Equal(t) {
				act = a
				return true
			}
			return false
		})
		sc.Actions = append(sc.Actions, act)
		msgs = c.AppendWire(msgs[:0], act, s)
		obs, also := -1, []int(nil)
		for _, mk := range appendMarks(nil, msgs, c, act, s, t, m.Inst.sr.log) {
			for j := range m.Hist {
				if !used[j] && m.Inst.marks.Mark(m.Hist[j].Mark) == mk {
					used[j] = true
					if obs < 0 {
						obs = j
					} else {
						also = append(also, j)
					}
					break
				}
			}
		}
		sc.Obs = append(sc.Obs, obs)
		sc.Also = append(sc.Also, also)
	}
	return sc
}
