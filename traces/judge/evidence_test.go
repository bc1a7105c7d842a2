package judge

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A log that does not belong to the capture is an error naming what does
// not match, never a source of verdicts: an empty log, another
// scenario's log, the right log on a clock a day off either way.
func TestLogMustBelong(t *testing.T) {
	scs := map[string]*scenario{}
	for _, sc := range loadScenarios(t) {
		scs[sc.Name] = sc
	}
	fixed, healthy := scs["storm-fixed"], scs["healthy"]
	shifted := func(obs []Observation, d time.Duration) []Observation {
		out := make([]Observation, len(obs))
		for i, o := range obs {
			o.Time = o.Time.Add(d)
			out[i] = o
		}
		return out
	}
	for _, tc := range []struct {
		name string
		log  []Observation
		want string
	}{
		{"empty", nil, "the log shows no event of prefill"},
		{"another scenario's", healthy.log, "none in common"},
		{"a day late", shifted(fixed.log, 24*time.Hour), "apart, more than the 2s deadline"},
		{"a day early", shifted(fixed.log, -24*time.Hour), "apart, more than the 2s deadline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRecorder(t, variantConfig(t, fixed.Variant), Options{Deadline: fixed.deadline, Log: true, AllRooms: true})
			for _, o := range Merge(fixed.wire, tc.log) {
				r.Step(o)
			}
			rep := r.Finish(fixed.end)
			if err := r.Err(); !errors.Is(err, ErrLogMismatch) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Err = %v, want %q", err, tc.want)
			} else {
				t.Log(err)
			}
			if len(rep.Rooms) != 0 || rep.Total != 0 {
				t.Errorf("%d rooms judged on a log that does not belong", rep.Total)
			}
		})
	}
	// The right log passes.
	rep := fixed.replay(t, true, Merge(fixed.wire, fixed.log), fixed.end)
	if rep.Count(Satisfied) != len(fixed.WithLog) {
		t.Errorf("storm-fixed with its log: %s", rep.Summary())
	}
}

// A room the log does not show is judged from the wire alone and says
// so; the other rooms keep their verdicts.
func TestRoomsTheLogDoesNotShow(t *testing.T) {
	var fork *scenario
	for _, sc := range loadScenarios(t) {
		if sc.Name == "storm-fork" {
			fork = sc
		}
	}
	var log []Observation
	for _, o := range fork.log {
		if o.Room != 101 {
			log = append(log, o)
		}
	}
	rep := fork.replay(t, true, Merge(fork.wire, log), fork.end)
	for _, room := range rep.Reported() {
		want := fork.WithLog[strconv.FormatInt(room.Room, 10)]
		if room.Room == 101 {
			if !room.WireOnly || room.Verdict != AtRisk || !strings.HasPrefix(room.Reason, "judged from the wire alone (the log does not show this room)") {
				t.Errorf("room 101 without log lines: %s, wire only %v (%s)", room.Verdict, room.WireOnly, room.Reason)
			}
			continue
		}
		if room.WireOnly || string(room.Verdict) != want {
			t.Errorf("room %d: %s (wire only %v), want %s", room.Room, room.Verdict, room.WireOnly, want)
		}
	}
}

// A log written without a field replay needs (a poll's queue) does not
// turn rooms invalid: each poll's queue is inferred from the room's
// state, and the verdicts are the log's.
func TestPollsWithoutQueue(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		log := make([]Observation, len(sc.log))
		copy(log, sc.log)
		polls := 0
		for i := range log {
			if log[i].Kind == Poll {
				log[i].Queue = ""
				polls++
			}
		}
		if polls == 0 {
			continue
		}
		got := verdicts(sc.replay(t, true, Merge(sc.wire, log), sc.end))
		want := verdicts(sc.replay(t, true, Merge(sc.wire, sc.log), sc.end))
		for room, v := range want {
			if got[room] != v {
				t.Errorf("%s room %s: %s without the polls' queues, %s with them", sc.Name, room, got[room], v)
			}
		}
	}
}
