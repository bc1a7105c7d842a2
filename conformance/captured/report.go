package captured

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/itf"
)

// WriteTable prints a failing room's schedule as a step table:
// each observed event with its frame number and capture timestamp (to
// open in Wireshark; an ABORT lists the frames of every rank's copy), each internal step marked as chosen, then the
// implementation's steps under fair quiescence and the failure.
func WriteTable(w io.Writer, r *Result) error {
	c := r.Result.Config
	fmt.Fprintf(w, "capture %s room %d: %s of %s (variant %s) fails\n", r.Room.Capture, r.Room.Room, r.Property, r.Impl, r.Variant)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tsource\tframe\ttime\taction")
	for i, a := range r.Schedule.Seq {
		src, frame, ts := "internal", "", ""
		if ev := r.Schedule.Event[i]; ev >= 0 {
			e := r.Room.Events[ev]
			src, frame, ts = "capture", fmt.Sprint(e.Frame), e.Time.UTC().Format("15:04:05.000000")
			for _, f := range e.Also {
				frame += fmt.Sprintf(",%d", f)
			}
			if e.Log != nil {
				src, frame = "log", "line "+fmt.Sprint(e.Line)
				for _, j := range r.Schedule.Also[i] {
					frame += fmt.Sprintf(",%d", r.Room.Events[j].Line)
				}
			}
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, src, frame, ts, c.ActionString(a))
	}
	for i, st := range r.Result.Quiesce {
		fmt.Fprintf(tw, "q%d\tfair quiescence\t\t\t%s\n", i+1, c.ActionString(st.Action))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s\n", r.Result.Failure)
	return err
}

// ITF saves a failing room's schedule as an ITF trace (as
// conformance.SaveITF does), with the capture's path, the room and, per step, the
// frame number of the observed event (0 for internal steps) in the
// trace's metadata (and the log line numbers, when the room has log
// events).
func ITF(r *Result) ([]byte, error) {
	if r.Holds || r.Result == nil {
		return nil, fmt.Errorf("conformance: room %d: no failing schedule to save", r.Room.Room)
	}
	cs := conformance.Case{Impl: r.Impl, Variant: r.Variant, Property: r.Property, Failure: r.Result.Failure, Seq: r.Schedule.Seq}
	t, err := cs.Trace(r.Result.Config)
	if err != nil {
		return nil, err
	}
	capt := &itf.Capture{Path: r.Room.Capture, Room: r.Room.Room, Frames: make([]int, len(r.Schedule.Event))}
	lines := make([]int, len(r.Schedule.Event))
	for i, ev := range r.Schedule.Event {
		if ev >= 0 {
			capt.Frames[i], lines[i] = r.Room.Events[ev].Frame, r.Room.Events[ev].Line
		}
	}
	if r.Room.Log {
		capt.LogLines = lines
	}
	t.Meta.Capture = capt
	return t.Marshal(r.Result.Config)
}

// capturedSummary is one line for a room's result.
func capturedSummary(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s room %d %s: %d schedules (%d discarded)", r.Room.Capture, r.Room.Room, r.Impl, r.Schedules, r.Discarded)
	if r.Holds {
		b.WriteString(", holds")
	} else {
		fmt.Fprintf(&b, ", %s fails after %v (schedule of %d steps)", r.Property, r.FirstFail.Round(1000), len(r.Schedule.Seq))
	}
	return b.String()
}
