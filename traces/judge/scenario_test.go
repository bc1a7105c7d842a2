package judge

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/internal/scenarios"
)

// scenario is a capture made by traces/testdata/scenarios/make_scenarios.py
// with its prefill event log and the verdicts its emulators expect.
type scenario struct {
	scenarios.Scenario
	wire     []Observation
	log      []Observation
	end      time.Time
	deadline time.Duration
}

func loadScenarios(t *testing.T) []*scenario {
	t.Helper()
	all, err := scenarios.All(scenarios.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var out []*scenario
	for _, e := range all {
		sc := &scenario{Scenario: e}
		if sc.deadline, err = sc.DeadlineDuration(); err != nil {
			t.Fatal(err)
		}
		if sc.wire, sc.log, sc.end, err = sc.Observations(); err != nil {
			t.Fatal(err)
		}
		out = append(out, sc)
	}
	return out
}

func (sc *scenario) replay(t *testing.T, log bool, obs []Observation, end time.Time) *Report {
	t.Helper()
	cfg := variantConfig(t, sc.Variant)
	return judgeAll(t, cfg, Options{Deadline: sc.deadline, Log: log}, obs, end)
}

func verdicts(rep *Report) map[string]string {
	got := map[string]string{}
	for _, room := range rep.Reported() {
		got[strconv.FormatInt(room.Room, 10)] = string(room.Verdict)
	}
	return got
}

// TestScenarios replays each scenario with its log (exactly the expected
// verdicts) and without it (pinned rooms at-risk or violated, no room
// satisfied: from the wire alone a release is never observed; nothing
// invalid).
func TestScenarios(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			rep := sc.replay(t, true, Merge(sc.wire, sc.log), sc.end)
			got := verdicts(rep)
			if !mapsEqual(got, sc.WithLog) {
				t.Errorf("with log: got %v, want %v", got, sc.WithLog)
				rep.WriteText(testWriter{t})
			}
			// The latency replay reports is the one the prefill lived
			// (from the capture's ABORT frame to the log's release line):
			// within the 5 ms that separate a frame's capture from the
			// prefill's own clock reading.
			for _, room := range rep.Reported() {
				want, ok := sc.Latency[strconv.FormatInt(room.Room, 10)]
				if !ok || room.Verdict != Satisfied {
					continue
				}
				if got := room.Latency.Seconds(); math.Abs(got-want) > 0.005 {
					t.Errorf("room %d: latency %.4fs, the prefill released it %.4fs after the abort", room.Room, got, want)
				}
			}
			rep = sc.replay(t, false, sc.wire, sc.end)
			for _, room := range rep.Rooms {
				if room.Verdict == Invalid {
					t.Errorf("wire only: room %d invalid: %s", room.Room, room.Reason)
				}
				if slices.Contains(sc.Pinned, room.Room) && room.Verdict != AtRisk && room.Verdict != Violated {
					t.Errorf("wire only: pinned room %d is %s", room.Room, room.Verdict)
				}
				if room.Verdict == Satisfied {
					t.Errorf("wire only: room %d satisfied (%s): its release was not observed", room.Room, room.Reason)
				}
			}
		})
	}
}

// TestWireOnlyUnderDefault is issue 22's false all-clear: a real-code
// capture replayed from the wire alone under the variant replay assumes
// without -variant (upstream, which does not model the commit the capture
// came from) calls no room satisfied; the rooms it predicts released are
// named as predictions, and the report does not read as satisfied.
func TestWireOnlyUnderDefault(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		if !strings.HasPrefix(sc.Name, "real-") {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			rep := judgeAll(t, variantConfig(t, "upstream"), Options{Deadline: sc.deadline}, sc.wire, sc.end)
			if rep.Aborted == 0 || rep.Count(Satisfied) != 0 {
				t.Fatalf("wire only under upstream: %s", rep.Summary())
			}
			for _, room := range rep.Reported() {
				if room.Verdict == PredictedReleased && !strings.Contains(room.Reason, "a prediction, the release is not observed") {
					t.Errorf("room %d: %s: the reason does not say it is a prediction: %s", room.Room, room.Verdict, room.Reason)
				}
			}
		})
	}
}

// TestScenarioCuts cuts each scenario (capture and log) at several points:
// a room whose deadline had not passed at the cut is never violated, and
// nothing is invalid.
func TestScenarioCuts(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			all := Merge(sc.wire, sc.log)
			start := all[0].Time
			for i := 1; i <= 8; i++ {
				cut := start.Add(sc.end.Sub(start) * time.Duration(i) / 8)
				n := 0
				for n < len(all) && !all[n].Time.After(cut) {
					n++
				}
				rep := sc.replay(t, true, all[:n], cut)
				for _, room := range rep.Reported() {
					if room.Verdict == Invalid || (room.Verdict == Violated && cut.Sub(room.AbortTime) < sc.deadline) {
						t.Fatalf("cut at %v: room %d %s (%s)", cut, room.Room, room.Verdict, room.Reason)
					}
				}
			}
		})
	}
}

// TestScenarioMutations: an ABORT moved before its TransferInfo on the same
// connection, and a status that skips a step, are invalid, blamed on the
// right frame or log line.
func TestScenarioMutations(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		t.Run(sc.Name, func(t *testing.T) {
			// The first room with a TransferInfo and an ABORT from one rank.
			var ti, ab = -1, -1
			for i, o := range sc.wire {
				if o.Kind != TransferInfo {
					continue
				}
				for j := i + 1; j < len(sc.wire); j++ {
					if p := sc.wire[j]; p.Kind == Abort && p.Room == o.Room && p.Rank == o.Rank {
						ti, ab = i, j
						break
					}
				}
				if ti >= 0 {
					break
				}
			}
			if ti < 0 {
				t.Skip("no room with TransferInfo and ABORT")
			}
			if strings.HasSuffix(sc.Variant, "-reuse") {
				// With room reuse, a TransferInfo after the room's ABORT is
				// the room's second incarnation: no contradiction.
				t.Logf("%s: the moved ABORT is not checked (room reuse)", sc.Variant)
				ti = -1
			}
			w := slices.Clone(sc.wire)
			if ti >= 0 {
				moved := w[ab]
				moved.Time = w[ti].Time.Add(-time.Microsecond)
				w = slices.Delete(w, ab, ab+1)
				w = slices.Insert(w, ti, moved)
				rep := sc.replay(t, false, w, sc.end)
				room := find(rep, moved.Room)
				if room.Verdict != Invalid || room.Unexplained.Frame != sc.wire[ti].Frame {
					t.Errorf("ABORT moved before its TransferInfo: %s (%s), want invalid at frame %d", room.Verdict, room.Reason, sc.wire[ti].Frame)
				}
			}

			l := slices.Clone(sc.log)
			k := slices.IndexFunc(l, func(o Observation) bool { return o.Kind == Status && o.To == "Transferring" })
			what := "status skipping Transferring"
			if k >= 0 {
				l[k].To = "Success" // skips Transferring
			} else if strings.HasPrefix(sc.Variant, "mooncake") {
				// Mooncake's worker never writes Transferring (Room.tla,
				// MOONCAKE): a room that reads it is no step of the spec.
				k = slices.IndexFunc(l, func(o Observation) bool { return o.Kind == Status && o.To == "Success" })
				if k < 0 {
					t.Fatal("no status -> Success in the log")
				}
				l[k].To, what = "Transferring", "Mooncake status Transferring"
			} else {
				t.Fatal("no status -> Transferring in the log")
			}
			rep := sc.replay(t, true, Merge(sc.wire, l), sc.end)
			room := find(rep, l[k].Room)
			if room.Verdict != Invalid || room.Unexplained.Line != l[k].Line {
				t.Errorf("%s: %s (%s), want invalid at line %d", what, room.Verdict, room.Reason, l[k].Line)
			}
		})
	}
}

func find(rep *Report, room int64) *Room {
	for _, r := range rep.Rooms {
		if r.Room == room {
			return r
		}
	}
	return &Room{}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}
