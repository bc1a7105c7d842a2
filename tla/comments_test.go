package tla

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDocAndAnnotations(t *testing.T) {
	src := `---- MODULE Doc ----
VARIABLES
  \* @type: Int;
  x,
  y \* trailing, not a doc comment of anything below

\* unrelated, separated by a blank line

\* @action: implementation scheduler
\* @models: prefill.py Queue.add -> Sender.__init__
(* @wire: send KVPoll(room) *)
Step == x' = x + 1

(* a block
   comment *)
\* @action: environment decode
Other == (* inline *) TRUE
NoDoc == FALSE
====
`
	m, err := ParseFile("Doc.tla", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Comments) != 9 {
		t.Errorf("%d comments, want 9", len(m.Comments))
	}
	defs := map[string]Unit{}
	for _, u := range m.Units {
		if d, ok := u.(*OpDef); ok {
			defs[d.Name] = d
		}
	}
	texts := func(cs []*Comment) []string {
		var s []string
		for _, c := range cs {
			s = append(s, c.Text)
		}
		return s
	}
	vars := m.Units[0].(*Variable)
	tests := []struct {
		node Node
		want []string
	}{
		{vars.Names[0], []string{`\* @type: Int;`}},
		{vars.Names[1], nil},
		{defs["Step"], []string{`\* @action: implementation scheduler`, `\* @models: prefill.py Queue.add -> Sender.__init__`, `(* @wire: send KVPoll(room) *)`}},
		{defs["Other"], []string{"(* a block\n   comment *)", `\* @action: environment decode`}},
		{defs["NoDoc"], nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, texts(m.Doc(tt.node))); d != "" {
			t.Errorf("Doc at %s (-want +got):\n%s", tt.node.Pos(), d)
		}
	}
	got := Annotations(m.Doc(defs["Step"]))
	want := [][2]string{
		{"action", "implementation scheduler"},
		{"models", "prefill.py Queue.add -> Sender.__init__"},
		{"wire", "send KVPoll(room)"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Annotations (-want +got):\n%s", d)
	}
}
