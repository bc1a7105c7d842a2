package model_test

import (
	"slices"
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

// TestWireMessages holds the @wire annotations to what the actions do to
// the channels, on every step of every bundled cfg: a message sent from
// decode is appended to chan[rank] (ack_chan for ABORT_ACK), a received one
// is the channel's head, with the annotated type and room.
func TestWireMessages(t *testing.T) {
	for _, name := range spec.Variants() {
		_, c := variant(t, name)
		seen := map[string]int{}
		exploreCompiled(c, func(s *model.State, succ []model.State, acts []model.Action) {
			for i, a := range acts {
				u := &succ[i]
				for _, m := range c.WireMessages(a, s) {
					seen[m.Event+" "+m.Msg]++
					var room, rank string
					for _, f := range m.Fields {
						switch f.Name {
						case "room":
							room = f.Text
						case "rank":
							rank = f.Text
						}
					}
					d := slices.Index(c.DecodeRanks.Names, rank)
					if d < 0 || room == "" {
						t.Fatalf("%s: %s: fields %+v", name, c.ActionString(a), m.Fields)
					}
					chanBefore, chanAfter := s.Chan[d], u.Chan[d]
					if m.Dir == "prefill->decode" {
						chanBefore, chanAfter = s.AckChan[d], u.AckChan[d]
					}
					var msg model.Msg
					switch m.Event {
					case "send":
						if len(chanAfter) == 0 {
							t.Fatalf("%s: %s sends %s but the channel is empty", name, c.ActionString(a), m.Msg)
						}
						msg = chanAfter[len(chanAfter)-1]
					case "recv":
						if len(chanBefore) == 0 {
							t.Fatalf("%s: %s receives %s from an empty channel", name, c.ActionString(a), m.Msg)
						}
						msg = chanBefore[0]
					}
					if msg.Type.String() != m.Msg || c.Rooms.Names[msg.Room] != room {
						t.Fatalf("%s: %s: annotated %s %s(room %s), channel holds %+v", name, c.ActionString(a), m.Event, m.Msg, room, msg)
					}
				}
			}
		})
		if seen["send TransferInfo"] == 0 || seen["recv ABORT"] == 0 {
			t.Fatalf("%s: messages seen: %v", name, seen)
		}
		if name == "mooncake" && seen["send ABORT_ACK"] == 0 {
			t.Fatalf("mooncake sends no ABORT_ACK: %v", seen)
		}
	}
}
