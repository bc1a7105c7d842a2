package captured

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/traces/observe"
)

// TestCapturedWithLog: with storm-fork's prefill event log, the steps the
// log shows are pinned in the schedules; the rooms the fork pinned in the
// recording are still found pinned (the log does not rule the pin out),
// and every schedule leaves exactly the room's log lines.
func TestCapturedWithLog(t *testing.T) {
	dir := filepath.Join("..", "..", "traces", "testdata", "scenarios")
	wire, err := LoadCapture(filepath.Join(dir, "storm-fork.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	logObs, err := LoadEventLog(filepath.Join(dir, "storm-fork.events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	impl, variant, c := capturedImplNamed(t, "fork-90a52f44a", "")
	rooms := Rooms(c, "storm-fork.pcap", observe.Merge(wire, logObs))
	pinned := []int64{101, 104, 107, 110}
	checkedLog := 0
	for _, room := range rooms {
		if !room.Log || room.Skip != "" {
			continue
		}
		checkedLog++
		b := &scheduler{c: c, room: room, skew: DefaultSkew}
		complete := 0
		for _, choices := range [][]int{nil, {0, 0, 0}, {1, 2, 3, 4, 5, 6, 7, 8}, {5, 5, 5, 5, 5, 5}} {
			if sc, ok := b.build(choices); ok {
				checkSchedule(t, c, room, sc)
				complete++
			}
		}
		if complete == 0 {
			t.Errorf("room %d: no schedule explains the capture and the log", room.Room)
		}
		if !slices.Contains(pinned, room.Room) {
			if room.Aborted {
				// Concluded as the log shows (satisfied with the log): the
				// log's release pins the steps, so no schedule pins it.
				res, err := Run(target(impl, "fork-90a52f44a", variant, c), room, Options{Seed: 1, Cases: 500})
				if err != nil {
					t.Fatal(err)
				}
				t.Log(capturedSummary(res))
				if !res.Holds {
					var buf bytes.Buffer
					_ = WriteTable(&buf, res)
					t.Errorf("room %d concluded in the log, but a schedule pins it:\n%s", room.Room, buf.String())
				}
			}
			continue
		}
		res, err := Run(target(impl, "fork-90a52f44a", variant, c), room, Options{Seed: 1, Cases: 500})
		if err != nil {
			t.Fatal(err)
		}
		t.Log(capturedSummary(res))
		if res.Holds {
			t.Errorf("room %d: with the log, no schedule pins it", room.Room)
			continue
		}
		if !InternalOneMinimal(c, room, res.Schedule, Fails(impl, c, res.Property, conformance.DefaultBound)) {
			t.Errorf("room %d: not 1-minimal", room.Room)
		}
		var buf bytes.Buffer
		if err := WriteTable(&buf, res); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), "log") {
			t.Errorf("room %d: table shows no log line:\n%s", room.Room, buf.String())
		}
		if room.Room == pinned[0] {
			t.Logf("\n%s", buf.String())
		}
	}
	if checkedLog == 0 {
		t.Fatal("no room with log events")
	}
}

// TestCapturedHealthyPinnableFork: healthy-pinnable was recorded under the
// fork and every room concluded (its .captured.json lists no pinned room;
// with the log, the schedules of the aborted room all hold), yet from the
// wire alone some interleaving of prefill's threads the capture allows
// pins the aborted room under fork-90a52f44a and upstream-reuse, where
// the spec agrees, and none does under fixed.
func TestCapturedHealthyPinnableFork(t *testing.T) {
	dir := filepath.Join("..", "..", "traces", "testdata", "scenarios")
	wire, err := LoadCapture(filepath.Join(dir, "healthy-pinnable.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	logObs, err := LoadEventLog(filepath.Join(dir, "healthy-pinnable.events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		impl string
		log  bool
		pins bool
	}{{"fork-90a52f44a", false, true}, {"upstream-reuse", false, true}, {"fixed", false, false}, {"fork-90a52f44a", true, false}} {
		impl, variant, c := capturedImplNamed(t, tc.impl, "")
		obs := wire
		if tc.log {
			obs = observe.Merge(wire, logObs)
		}
		aborted := 0
		for _, room := range Rooms(c, "healthy-pinnable.pcap", obs) {
			if !room.Aborted {
				continue
			}
			aborted++
			res, err := Run(target(impl, tc.impl, variant, c), room, Options{Seed: 1, Cases: 3000})
			if err != nil {
				t.Fatal(err)
			}
			specRes, err := Run(target(&conformance.Spec{}, "spec", variant, c), room, Options{Seed: 1, Cases: 3000})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("log=%v %s", tc.log, capturedSummary(res))
			if res.Holds == tc.pins {
				t.Errorf("room %d under %s (log %v): holds=%v", room.Room, tc.impl, tc.log, res.Holds)
			}
			if res.Holds != specRes.Holds {
				t.Errorf("room %d: %s holds=%v, the spec under %s holds=%v", room.Room, tc.impl, res.Holds, variant, specRes.Holds)
			}
			if !res.Holds {
				if !InternalOneMinimal(c, room, res.Schedule, Fails(impl, c, res.Property, conformance.DefaultBound)) {
					t.Errorf("room %d: not 1-minimal", room.Room)
				}
				if tc.impl == "fork-90a52f44a" {
					var buf bytes.Buffer
					_ = WriteTable(&buf, res)
					t.Logf("\n%s", buf.String())
				}
			}
		}
		if aborted != 1 {
			t.Fatalf("%d aborted rooms, want 1", aborted)
		}
	}
}
