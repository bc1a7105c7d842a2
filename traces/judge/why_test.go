package judge

import (
	"strings"
	"testing"

	"github.com/roomspec/roomspec/traces/judge/explain"
)

// TestWhy: every violated or at-risk room of the bundled scenarios whose
// release never came has one sentence saying why it is pinned, and its
// behaviour reaches the state that pins it (from which no completion of
// prefill's unseen steps lets it go); a room let go has none. The real
// code's pinned rooms at 69a31ce34 are the ones whose ABORTs came before
// the sender (the README's account, found in the real code's log).
func TestWhy(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			insts, err := explain.NewInstances(variantConfig(t, sc.Variant), 24, 50000)
			if err != nil {
				t.Fatal(err)
			}
			for _, log := range []bool{true, false} {
				obs := sc.wire
				if log {
					obs = Merge(sc.wire, sc.log)
				}
				for _, room := range sc.replay(t, log, obs, sc.end).Reported() {
					pinned := room.Verdict == AtRisk || room.Verdict == Violated && room.Latency < 0
					if !pinned {
						if room.Why != "" {
							t.Errorf("log %v: room %d %s: why %q", log, room.Room, room.Verdict, room.Why)
						}
						continue
					}
					if room.Why == "" || strings.Contains(room.Why, "\n") {
						if room.Verdict == Violated && len(room.Pin) == 0 {
							continue // every completion lets it go: released late, if ever
						}
						t.Errorf("log %v: room %d %s: why %q", log, room.Room, room.Verdict, room.Why)
						continue
					}
					inst, err := insts.Get(room.Config.RequiredDstInfoNum, false)
					if err != nil {
						t.Fatal(err)
					}
					if b := room.Behaviour; len(b) == 0 || !inst.Doomed(&b[len(b)-1]) {
						t.Errorf("log %v: room %d %s: the behaviour (%d states) does not end pinned", log, room.Room, room.Verdict, len(b))
					}
					if strings.HasPrefix(sc.Name, "real-") && strings.Contains(sc.Name, "69a31ce34") && log &&
						!strings.HasPrefix(room.Why, "both its ABORTs reached prefill before the scheduler created the request's sender") {
						t.Errorf("room %d: why %q", room.Room, room.Why)
					}
				}
			}
		})
	}
}
