package conformance

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	trace "github.com/roomspec/roomspec/traces/replay"
)

// TestCapturedWithLog: with storm-fork's prefill event log, the steps the
// log shows are pinned in the schedules; the rooms the fork pinned in the
// recording are still found pinned (the log does not rule the pin out),
// and every schedule leaves exactly the room's log lines.
func TestCapturedWithLog(t *testing.T) {
	dir := filepath.Join("..", "traces", "testdata", "scenarios")
	wire, err := LoadCapture(filepath.Join(dir, "storm-fork.pcap"))
	if err != nil {
		t.Fatal(err)
	}
	logObs, err := LoadEventLog(filepath.Join(dir, "storm-fork.events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	impl, variant, c := capturedImplNamed(t, "fork-90a52f44a", "")
	rooms := CapturedRooms(c, "storm-fork.pcap", trace.Merge(wire, logObs))
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
				res, err := RunCaptured(impl, "fork-90a52f44a", variant, c, room, CapturedOptions{Seed: 1, Cases: 500})
				if err != nil {
					t.Fatal(err)
				}
				t.Log(capturedSummary(res))
				if !res.Holds {
					var buf bytes.Buffer
					_ = WriteCapturedTable(&buf, res)
					t.Errorf("room %d concluded in the log, but a schedule pins it:\n%s", room.Room, buf.String())
				}
			}
			continue
		}
		res, err := RunCaptured(impl, "fork-90a52f44a", variant, c, room, CapturedOptions{Seed: 1, Cases: 500})
		if err != nil {
			t.Fatal(err)
		}
		t.Log(capturedSummary(res))
		if res.Holds {
			t.Errorf("room %d: with the log, no schedule pins it", room.Room)
			continue
		}
		if !InternalOneMinimal(c, room, res.Schedule, CapturedFails(impl, c, res.Property, DefaultBound)) {
			t.Errorf("room %d: not 1-minimal", room.Room)
		}
		var buf bytes.Buffer
		if err := WriteCapturedTable(&buf, res); err != nil {
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
