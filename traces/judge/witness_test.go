package judge

import (
	"slices"
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge/explain"
)

// TestWitnessScenarios rebuilds the witness of every reported room of
// every scenario, with and without its log, and holds it to what it
// claims: a behaviour of the room's spec instance, every observation
// matched once (to a mark its step left, or as a poll that fits its
// state), the verdicts unchanged, and the pinned rooms pinned on it.
func TestWitnessScenarios(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		for _, log := range []bool{true, false} {
			name := sc.Name + "/wire"
			obs := sc.wire
			if log {
				name, obs = sc.Name+"/log", Merge(sc.wire, sc.log)
			}
			t.Run(name, func(t *testing.T) {
				cfg := variantConfig(t, sc.Variant)
				plain := sc.replay(t, log, obs, sc.end)
				rep := judgeAll(t, cfg, Options{Deadline: sc.deadline, Log: log, Witness: true}, obs, sc.end)
				if got, want := verdicts(rep), verdicts(plain); !mapsEqual(got, want) {
					t.Fatalf("verdicts with witnesses %v, without %v", got, want)
				}
				shared := map[*WitnessStep]int{}
				for _, room := range rep.Reported() {
					if room.Witness != nil {
						shared[&room.Witness.Steps[0]]++
					}
				}
				if n := len(rep.Reported()); n > 4 && len(shared) == n {
					t.Errorf("%d rooms, %d witnesses: no pattern shared", n, len(shared))
				}
				for _, room := range rep.Reported() {
					checkWitness(t, room)
					if slices.Contains(sc.Pinned, room.Room) && room.Witness != nil && room.Witness.Stuck < 0 {
						t.Errorf("room %d (%s) is pinned in the scenario, but not on its witness", room.Room, room.Verdict)
					}
				}
			})
		}
	}
}

func checkWitness(t *testing.T, room *Room) {
	t.Helper()
	w := room.Witness
	if w == nil {
		t.Errorf("room %d (%s): no witness", room.Room, room.Verdict)
		return
	}
	if !w.Aligned {
		t.Errorf("room %d (%s): observations not aligned", room.Room, room.Verdict)
	}
	c := w.Config
	init := false
	c.Inits(func(s *model.State) bool {
		init = init || s.Equal(&w.Steps[0].State)
		return init
	})
	if !init && room.Start != StartUnknown {
		t.Errorf("room %d: the witness does not start in an initial state", room.Room)
	}
	seen := make([]int, len(w.Observations))
	for i := 1; i < len(w.Steps); i++ {
		st := &w.Steps[i]
		ok := false
		c.Next(&w.Steps[i-1].State, func(a model.Action, u *model.State) bool {
			ok = a == st.Action && u.Equal(&st.State)
			return ok
		})
		if !ok {
			t.Errorf("room %d: step %d (%s) is not a step of the spec", room.Room, i, c.ActionString(st.Action))
		}
		for k, j := range st.Obs {
			if j < 0 {
				continue
			}
			seen[j]++
			if m := markOfObservation(&w.Observations[j], st.Marks[k]); !m {
				t.Errorf("room %d: step %d mark %v matched to %v", room.Room, i, st.Marks[k], &w.Observations[j])
			}
		}
	}
	for i := range w.Steps {
		for _, j := range w.Steps[i].Quiet {
			seen[j]++
			if !explain.Stutter(c, explain.Mark{Kind: Poll, Rank: -1, A: w.Observations[j].Queue, B: w.Observations[j].Status}, &w.Steps[i].State) {
				t.Errorf("room %d: poll %v does not fit state %d", room.Room, &w.Observations[j], i)
			}
		}
	}
	for j, n := range seen {
		if j < w.Unexplained || w.Unexplained < 0 {
			if n != 1 {
				t.Errorf("room %d: %v matched %d times", room.Room, &w.Observations[j], n)
			}
		} else if n != 0 {
			t.Errorf("room %d: %v at or after the unexplained observation is matched", room.Room, &w.Observations[j])
		}
	}
	switch room.Verdict {
	case AtRisk:
		if w.Stuck < 0 || w.Pin < 0 && len(room.Pin) > 1 {
			t.Errorf("room %d: at-risk, but stuck %d, pin %d", room.Room, w.Stuck, w.Pin)
		}
	case Satisfied:
		if w.Stuck >= 0 {
			t.Errorf("room %d: satisfied, but stuck from state %d", room.Room, w.Stuck)
		}
	case Invalid:
		if w.Unexplained < 0 {
			t.Errorf("room %d: invalid, but no unexplained observation", room.Room)
		}
	}
}

// markOfObservation reports whether observation o is of mark m (wire: its
// kind; log: its kind and fields).
func markOfObservation(o *Observation, m explain.Mark) bool {
	if o.Kind != m.Kind {
		return false
	}
	switch o.Kind {
	case Status:
		return o.From == m.A && o.To == m.B
	case Poll:
		return (o.Queue == m.A || o.Queue == "") && o.Status == m.B
	}
	return true
}

// TestWitnessMidLife: the witnesses of rooms judged blind, from an
// unknown start, and invalid (the capture missed a TransferInfo on a
// connection it saw from its start).
func TestWitnessMidLife(t *testing.T) {
	_, w, l := healthyObs(t, "upstream")
	mid := func(obs []Observation) []Observation {
		out := slices.Clone(obs)
		for i := range out {
			out[i].MidStream = true
		}
		return out
	}
	end := w[2].Time.Add(time.Hour)
	opt := Options{Log: true, Witness: true}
	late := l[slices.IndexFunc(l, func(o Observation) bool { return o.Kind == Poll }):]
	for _, tt := range []struct {
		name  string
		obs   []Observation
		start Start
		want  Verdict
	}{
		{"blind", Merge(mid(w[1:]), l), StartBlind, Satisfied},
		{"unknown", Merge(mid(w[2:]), late), StartUnknown, Satisfied},
		{"unknown-kept", Merge(mid(w[2:]), late[:len(late)-2]), StartUnknown, Violated},
		{"invalid", Merge(w[1:], l), StartSeen, Invalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			room := replay(t, "upstream", opt, tt.obs, end)
			if room.Verdict != tt.want || room.Start != tt.start {
				t.Fatalf("%s from %s (%s), want %s from %s", room.Verdict, room.Start, room.Reason, tt.want, tt.start)
			}
			checkWitness(t, room)
		})
	}
}
