package report

import (
	"slices"
	"strconv"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/check"
)

// StatusMachine returns the room-status state machine of the variant c
// that the replay and captured pages draw in their header: every
// reachable state projected onto its room's request_status, and the
// actions that change it, as roomspec diagram draws it from the
// checker's graph. It is computed on the compiled model (a search of the
// reachable states and nothing more: no invariant, no property, no
// interpreter), which is fast enough for a page. It returns nil for a
// variant of more than one room.
func StatusMachine(c *model.Config) *check.Projection {
	if c.Rooms.Size() != 1 {
		return nil
	}
	status := func(s *model.State) string { return strconv.Quote(s.RequestStatus[0].String()) }
	var queue []model.State
	seen := map[uint64][]int{}
	add := func(s *model.State) bool {
		h := s.Hash()
		for _, i := range seen[h] {
			if queue[i].Equal(s) {
				return false
			}
		}
		seen[h] = append(seen[h], len(queue))
		queue = append(queue, *s)
		return true
	}
	p := &check.Projection{}
	nodes := map[string]bool{}
	c.Inits(func(s *model.State) bool {
		if add(s) {
			st := status(s)
			nodes[st] = true
			if !slices.Contains(p.Initial, st) {
				p.Initial = append(p.Initial, st)
			}
		}
		return false
	})
	type edge struct{ from, to string }
	acts := map[edge]map[string]bool{}
	for i := 0; i < len(queue); i++ {
		from := status(&queue[i])
		c.Next(&queue[i], func(a model.Action, t *model.State) bool {
			to := status(t)
			nodes[to] = true
			if to != from {
				e := edge{from, to}
				if acts[e] == nil {
					acts[e] = map[string]bool{}
				}
				acts[e][model.Actions[a.ID].Name] = true
			}
			add(t)
			return false
		})
	}
	for n := range nodes {
		p.Nodes = append(p.Nodes, n)
	}
	slices.Sort(p.Nodes)
	slices.Sort(p.Initial)
	for e, as := range acts {
		t := check.Transition{From: e.from, To: e.to}
		for a := range as {
			t.Actions = append(t.Actions, a)
		}
		slices.Sort(t.Actions)
		p.Transitions = append(p.Transitions, t)
	}
	slices.SortFunc(p.Transitions, func(a, b check.Transition) int {
		if a.From != b.From {
			if a.From < b.From {
				return -1
			}
			return 1
		}
		if a.To < b.To {
			return -1
		}
		if a.To > b.To {
			return 1
		}
		return 0
	})
	return p
}
