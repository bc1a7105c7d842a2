package itf

import (
	"errors"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

func config(t *testing.T, variant string) *model.Config {
	t.Helper()
	text, err := spec.Config(variant)
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.LoadConfig(text)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// walk takes the first enabled action n times from the initial state:
// the states and the actions.
func walk(t *testing.T, c *model.Config, n int) ([]model.State, []model.Action) {
	t.Helper()
	states := []model.State{c.Init()}
	var actions []model.Action
	for len(actions) < n {
		en := c.Enabled(&states[len(states)-1], nil)
		if len(en) == 0 {
			break
		}
		a := en[len(actions)%len(en)]
		s, ok := c.Step(&states[len(states)-1], a)
		if !ok {
			t.Fatalf("%s enabled but not taken", c.ActionString(a))
		}
		states, actions = append(states, s), append(actions, a)
	}
	if len(actions) < 3 {
		t.Fatalf("a walk of %d steps", len(actions))
	}
	return states, actions
}

// TestFollow: the behaviour through a walk's states is the walk (its
// actions where several reach a state, with Prefer); a state no step
// reaches is named; a repeated state is a stutter only where asked.
func TestFollow(t *testing.T) {
	c := config(t, "upstream")
	states, actions := walk(t, c, 12)
	at := func(i int, s *model.State) bool { return s.Equal(&states[i]) }
	got, acts, err := Follower{Prefer: func(i int, a model.Action) bool { return a == actions[i-1] }}.Follow(c, len(states), at)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(states) || len(acts) != len(states) {
		t.Fatalf("%d states, %d actions for %d states", len(got), len(acts), len(states))
	}
	for i := range states {
		if !got[i].Equal(&states[i]) {
			t.Fatalf("state %d differs", i)
		}
		if i > 0 && acts[i] != actions[i-1] {
			t.Errorf("step %d: %s, want %s", i, c.ActionString(acts[i]), c.ActionString(actions[i-1]))
		}
		if i > 0 {
			if a, ok := Step(c, &states[i-1], &states[i]); !ok {
				t.Errorf("Step finds no action from state %d to %d", i-1, i)
			} else if s, _ := c.Step(&states[i-1], a); !s.Equal(&states[i]) {
				t.Errorf("Step's %s does not lead to state %d", c.ActionString(a), i)
			}
		}
	}

	// A state out of order: named.
	swapped := append([]model.State{}, states...)
	swapped[2], swapped[3] = swapped[3], swapped[2]
	_, _, err = Follow(c, len(swapped), func(i int, s *model.State) bool { return s.Equal(&swapped[i]) })
	if !errors.Is(err, ErrNotBehaviour) || !strings.Contains(err.Error(), "from state 2 to state 3") {
		t.Errorf("states out of order: %v", err)
	}
	if _, ok := Step(c, &states[3], &states[2]); ok {
		t.Error("Step found an action back from state 3 to state 2")
	}

	// A repeated state: a stutter where asked, else no step.
	rep := append(append(append([]model.State{}, states[:3]...), states[2]), states[3:]...)
	same := func(i int, s *model.State) bool { return s.Equal(&rep[i]) }
	got, acts, err = Follower{Stutters: true}.Follow(c, len(rep), same)
	if err != nil || len(got) != len(states) || len(acts) != len(states) {
		t.Errorf("with a stutter: %d states, %d actions, %v; want %d", len(got), len(acts), err, len(states))
	}
	if _, _, err := Follow(c, len(rep), same); !errors.Is(err, ErrNotBehaviour) {
		t.Errorf("a repeated state without Stutters: %v", err)
	}
	if _, _, err := Follow(c, 0, same); !errors.Is(err, ErrNotBehaviour) {
		t.Errorf("no states: %v", err)
	}
}

// TestTrace: a trace written is read back the same, its lasso too, and
// its behaviour followed; documents that are not the spec's are refused.
func TestTrace(t *testing.T) {
	c := config(t, "upstream")
	states, actions := walk(t, c, 6)
	loop := 2
	tr := Trace{Meta: Meta{Description: "a walk", Source: model.SourceName}, States: states, Loop: &loop}
	data, err := tr.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	meta, n, err := ReadMeta(data)
	if err != nil || n != len(states) || meta.Description != "a walk" || meta.Format != "ITF" {
		t.Fatalf("ReadMeta: %+v, %d states, %v", meta, n, err)
	}
	back, err := Read(c, data)
	if err != nil {
		t.Fatal(err)
	}
	if back.Loop == nil || *back.Loop != loop || len(back.States) != len(states) {
		t.Fatalf("read back: loop %v, %d states", back.Loop, len(back.States))
	}
	got, err := back.Follow(c)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(got); i++ {
		if s, _ := c.Step(&states[i-1], got[i]); !s.Equal(&states[i]) {
			t.Errorf("step %d: %s does not lead to the state (walked with %s)", i, c.ActionString(got[i]), c.ActionString(actions[i-1]))
		}
	}
	for name, doc := range map[string]string{
		"not JSON":       "{",
		"other vars":     `{"#meta":{},"states":[],"vars":["x"]}`,
		"loop too far":   `{"#meta":{},"loop":3,"states":[],"vars":null}`,
		"state not Room": `{"#meta":{},"states":[{"x":1}],"vars":null}`,
	} {
		if _, err := Read(c, []byte(doc)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}
