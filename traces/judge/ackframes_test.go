package judge

import (
	"testing"
	"time"

	"github.com/roomspec/roomspec/traces/observe"
)

// Mooncake's ABORT handler also sends every ABORT a 2-frame ABORT_ACK
// that decode only logs (Room.tla, AbortAckLogged): under its
// configurations such an ACK is skipped, counted, and judges nothing; a
// 3-frame ACK, and any ACK under a configuration without AbortAckLogged,
// is a message the spec must explain (or the room is invalid).
func TestLoggedAcks(t *testing.T) {
	obs := func(frames int) []Observation {
		var out []Observation
		for d := range 2 {
			out = append(out, Observation{Kind: Abort, Time: t0.Add(time.Second), Room: 42,
				Wire: observe.Wire{Frame: 1 + d, Rank: rankName(d)}})
		}
		for d := range 2 {
			out = append(out, Observation{Kind: AbortAck, Time: t0.Add(2 * time.Second), Room: 42,
				Wire: observe.Wire{Frame: 3 + d, Rank: rankName(d), AckFrames: frames}})
		}
		return out
	}
	for _, tc := range []struct {
		variant string
		frames  int
		invalid bool
		logged  int
	}{
		{"mooncake", 2, false, 2},
		{"mooncake-prompt", 2, false, 2},
		{"mooncake", 3, true, 0},
		{"mooncake-deferred", 2, false, 0}, // the spec's own ACK (AckOnDrain): explained, not skipped
		{"sglang-35360", 2, true, 0},
	} {
		r := newRecorder(t, variantConfig(t, tc.variant), Options{AllRooms: true})
		for _, o := range obs(tc.frames) {
			r.Step(o)
		}
		logged := r.Stats().LoggedAcks
		rep := r.Finish(t0.Add(time.Hour))
		if len(rep.Rooms) != 1 {
			t.Fatalf("%s, %d-frame ACKs: %d rooms", tc.variant, tc.frames, len(rep.Rooms))
		}
		if got := rep.Rooms[0].Verdict == Invalid; got != tc.invalid || logged != tc.logged {
			t.Errorf("%s, %d-frame ACKs: verdict %s, %d skipped; want invalid %v, %d skipped",
				tc.variant, tc.frames, rep.Rooms[0].Verdict, logged, tc.invalid, tc.logged)
		}
	}
}
