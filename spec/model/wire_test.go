package model_test

import (
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

// TestWireMessages holds the @wire annotations to what the actions do to
// the channels, on every step of every bundled cfg: a message sent from
// decode is appended to chan[rank] (ack_chan for ABORT_ACK), a received one
// is the channel's head, with the annotated type and room, and InFlight is
// the length of the channel it is taken from; and the annotations
// account for every message a step adds to a channel or takes off it
// (the ABORT_ACKs of a "for a \in AbortAcks(d)" binder included).
func TestWireMessages(t *testing.T) {
	for _, name := range spec.Variants() {
		_, c := variant(t, name)
		seen := map[string]int{}
		exploreCompiled(c, func(s *model.State, succ []model.State, acts []model.Action) {
			for i, a := range acts {
				u := &succ[i]
				// sent counts, per channel, the messages annotated as sent
				// minus those annotated as received: what the step adds.
				sent := map[[2]int]int{}
				for _, m := range c.AppendWire(nil, a, s) {
					ch := [2]int{0, int(m.Rank)}
					if m.Dir == "prefill->decode" {
						ch[0] = 1
					}
					if m.Send {
						sent[ch]++
					} else {
						sent[ch]--
					}
				}
				for d := range s.Chan {
					for k, chans := range [2][2][][]model.Msg{{s.Chan, u.Chan}, {s.AckChan, u.AckChan}} {
						if got, want := len(chans[1][d])-len(chans[0][d]), sent[[2]int{k, d}]; got != want {
							t.Fatalf("%s: %s changes channel %d of rank %d by %d messages, its @wire annotations by %d", name, c.ActionString(a), k, d, got, want)
						}
					}
				}
				for _, m := range c.AppendWire(nil, a, s) {
					event := "recv"
					if m.Send {
						event = "send"
					}
					seen[event+" "+m.Msg]++
					chanBefore, chanAfter := s.Chan[m.Rank], u.Chan[m.Rank]
					if m.Dir == "prefill->decode" {
						chanBefore, chanAfter = s.AckChan[m.Rank], u.AckChan[m.Rank]
					}
					var msg model.Msg
					if m.Send {
						if len(chanAfter) == 0 {
							t.Fatalf("%s: %s sends %s but the channel is empty", name, c.ActionString(a), m.Msg)
						}
						msg = chanAfter[len(chanAfter)-1]
					} else {
						if len(chanBefore) == 0 || m.InFlight != len(chanBefore) {
							t.Fatalf("%s: %s receives %s from a channel of %d messages, InFlight %d", name, c.ActionString(a), m.Msg, len(chanBefore), m.InFlight)
						}
						msg = chanBefore[0]
					}
					if msg.Type.String() != m.Msg || msg.Room != m.Room {
						t.Fatalf("%s: %s: annotated %s %s(room %d), channel holds %+v", name, c.ActionString(a), event, m.Msg, m.Room, msg)
					}
				}
			}
		})
		if seen["send TransferInfo"] == 0 || seen["recv ABORT"] == 0 {
			t.Fatalf("%s: messages seen: %v", name, seen)
		}
		if name == "mooncake-deferred" && seen["send ABORT_ACK"] == 0 {
			t.Fatalf("mooncake-deferred sends no ABORT_ACK: %v", seen)
		}
	}
}

// The @fair annotation says why an environment action is weakly fair;
// the fairness itself is the spec's Fairness, which FairActions
// compiles. The two agree on every bundled cfg: an environment action is
// in FairActions exactly when it is annotated @fair.
func TestFairAnnotations(t *testing.T) {
	for _, name := range spec.Variants() {
		_, c := variant(t, name)
		fair := map[model.ActionID]bool{}
		for _, a := range c.FairActions(nil) {
			fair[a.ID] = true
		}
		for id, info := range model.Actions {
			annotated := false
			for _, an := range info.Annotations {
				annotated = annotated || an[0] == "fair"
			}
			if info.Environment() && fair[model.ActionID(id)] != annotated {
				t.Errorf("%s: %s: in FairActions %v, annotated @fair %v", name, info.Name, fair[model.ActionID(id)], annotated)
			}
		}
	}
}
