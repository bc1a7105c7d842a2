package judge

import (
	"slices"
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// pinnedBehaviour explores the variant's whole (one-room) state graph and
// returns a shortest behaviour to an aborted request from which no
// behaviour releases it, or nil.
func pinnedBehaviour(t *testing.T, c *model.Config) []step {
	t.Helper()
	type edge struct {
		from int
		a    model.Action
	}
	var states []model.State
	index := map[uint64][]int{}
	var parent []edge
	var succ [][]int
	find := func(s *model.State) int {
		for _, i := range index[s.Hash()] {
			if states[i].Equal(s) {
				return i
			}
		}
		return -1
	}
	add := func(s *model.State, e edge) int {
		if i := find(s); i >= 0 {
			return i
		}
		states = append(states, *s)
		parent = append(parent, e)
		index[s.Hash()] = append(index[s.Hash()], len(states)-1)
		return len(states) - 1
	}
	init := c.Init()
	add(&init, edge{from: -1})
	for i := 0; i < len(states); i++ {
		s := states[i]
		var out []int
		c.Next(&s, func(a model.Action, u *model.State) bool {
			out = append(out, add(u, edge{i, a}))
			return false
		})
		succ = append(succ, out)
		if len(states) > 200000 {
			t.Fatal("state space too large for the test")
		}
	}
	can := make([]bool, len(states))
	for changed := true; changed; {
		changed = false
		for i := range states {
			if can[i] {
				continue
			}
			if c.Terminated(&states[i], 0) {
				can[i], changed = true, true
				continue
			}
			for _, j := range succ[i] {
				if can[j] {
					can[i], changed = true, true
					break
				}
			}
		}
	}
	for i := range states { // BFS order: the first is a shortest
		if states[i].Aborted[0] && !can[i] {
			var path []step
			for k := i; parent[k].from >= 0; k = parent[k].from {
				path = append(path, step{a: parent[k].a, s: states[parent[k].from], t: states[k]})
			}
			for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
				path[l], path[r] = path[r], path[l]
			}
			return path
		}
	}
	return nil
}

// TestPinnedRooms: for each variant whose spec pins a room, that pinned
// behaviour replays to at-risk from the wire alone, to violated with the
// log once the deadline passed, and to inconclusive (never violated) for
// every cut of the capture before the deadline. Variants without a pin
// have none to replay.
func TestPinnedRooms(t *testing.T) {
	want := map[string]bool{"upstream": false, "fork-90a52f44a": true, "pre-30352": true, "fixed": false}
	for variant, pins := range want {
		t.Run(variant, func(t *testing.T) {
			c, err := variantConfig(t, variant), error(nil)
			if err != nil {
				t.Fatal(err)
			}
			path := pinnedBehaviour(t, c)
			if (path != nil) != pins {
				t.Fatalf("pinned behaviour %v, want one: %v", path != nil, pins)
			}
			if path == nil {
				return
			}
			var names []string
			for _, st := range path {
				names = append(names, c.ActionString(st.a))
			}
			t.Logf("pin: %v", names)
			wireObs, logObs := observations(c, path)
			var abortAt time.Time
			for _, o := range wireObs {
				if o.Kind == Abort {
					abortAt = o.Time
					break
				}
			}
			last := t0.Add(time.Duration(len(path)) * time.Second)
			dl := 5 * time.Minute

			room := replay(t, variant, Options{Deadline: dl}, wireObs, last.Add(time.Hour))
			if room.Verdict != AtRisk || len(room.Pin) == 0 {
				t.Fatalf("wire only: %s (%s), want at-risk with a pin", room.Verdict, room.Reason)
			}
			checkBehaviour(t, room.Config, room.Behaviour)
			if last := room.Behaviour[len(room.Behaviour)-1]; !last.Equal(&room.Pin[len(room.Pin)-1]) {
				t.Fatal("the behaviour does not end in the pinned state")
			}
			if fixed := replay(t, "fixed", Options{Deadline: dl}, wireObs, last.Add(time.Hour)); fixed.Verdict != PredictedReleased {
				t.Fatalf("the same wire traffic under the fix: %s (%s), want predicted-released", fixed.Verdict, fixed.Reason)
			}
			if len(logObs) == 0 {
				// No prefill step of the pin writes a line: the log shows
				// only the client's abort (kept as evidence).
				logObs = []Observation{{Kind: observe.Other, Time: abortAt, Room: 42, Log: observe.Log{Line: 1, Event: "abort"}}}
			}
			all := Merge(wireObs, logObs)
			room = replay(t, variant, Options{Deadline: dl, Log: true}, all, abortAt.Add(dl))
			if room.Verdict != Violated {
				t.Fatalf("with log, past the deadline: %s (%s), want violated", room.Verdict, room.Reason)
			}
			checkBehaviour(t, room.Config, room.Behaviour)
			// Unseen steps after the last observation are not part of it.
			if got, most := len(room.Behaviour), len(path)+1; got < 2 || got > most {
				t.Fatalf("matched behaviour has %d states, the observed one %d", got, most)
			}
			for cut := 1; cut <= len(all); cut++ {
				if !slices.ContainsFunc(all[:cut], func(o Observation) bool { return !o.Kind.Wire() }) {
					continue // a log that shows nothing is no log of this capture
				}
				for _, end := range []time.Time{last, abortAt.Add(dl - time.Nanosecond)} {
					room := replay(t, variant, Options{Deadline: dl, Log: true}, all[:cut], end)
					if room.Verdict == Violated || room.Verdict == Invalid {
						t.Fatalf("cut at %d, end %v: %s (%s)", cut, end, room.Verdict, room.Reason)
					}
				}
			}
		})
	}
}

// checkBehaviour fails unless states is a behaviour of c: an initial state
// and then successors by Next.
func checkBehaviour(t *testing.T, c *model.Config, states []model.State) {
	t.Helper()
	if len(states) == 0 {
		t.Fatal("no behaviour")
	}
	if init := c.Init(); !states[0].Equal(&init) {
		t.Fatal("the behaviour does not start in the initial state")
	}
	for i := 1; i < len(states); i++ {
		ok := false
		c.Next(&states[i-1], func(_ model.Action, u *model.State) bool {
			ok = u.Equal(&states[i])
			return ok
		})
		if !ok {
			t.Fatalf("state %d of the behaviour is no successor of state %d", i+1, i)
		}
	}
}
