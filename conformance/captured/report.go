package captured

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/spec/itf"
)

// WriteTable prints a failing room's schedule as a step table: each step
// that explains an observation with its frame numbers (or log lines) and
// capture time (to open in Wireshark; an ABORT lists the frames of every
// rank's copy), each unseen step as such (before or after the room's
// last observation), then the implementation's steps under fair
// quiescence and the failure.
func WriteTable(w io.Writer, r *Result) error {
	c := r.Result.Config
	fmt.Fprintf(w, "capture %s room %d: %s of %s (variant %s) fails\n", r.Room.Capture, r.Room.Room, r.Property, r.Impl, r.Variant)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tsource\tframe\ttime\taction")
	for i, a := range r.Schedule.Actions {
		src, ev, ts := r.source(i)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", i+1, src, ev, ts, c.ActionString(a))
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

// source says where step i of the schedule was seen: in the capture
// (frames), in the log (lines), or unseen.
func (r *Result) source(i int) (src, evidence, ts string) {
	sc := &r.Schedule
	j := sc.Obs[i]
	if j < 0 {
		if i >= sc.Observed {
			return "unseen (after the last observation)", "", ""
		}
		return "unseen", "", ""
	}
	hist := r.Room.Match.Hist
	log := !r.Room.Match.Inst.Marks().Mark(hist[j].Mark).Kind.Wire()
	evs := []string{strconv.Itoa(int(hist[j].Ev))}
	for _, k := range sc.Also[i] {
		evs = append(evs, strconv.Itoa(int(hist[k].Ev)))
	}
	ts = time.Unix(0, hist[j].T).UTC().Format("15:04:05.000000")
	if log {
		return "log", "line " + strings.Join(evs, ","), ts
	}
	return "capture", strings.Join(evs, ","), ts
}

// ITF saves a failing room's schedule as an ITF trace (as
// conformance.SaveITF does), with the capture's path, the room and, per
// step, the frame number of the observation it explains (0 for unseen
// steps) in the trace's metadata (and the log line numbers, for a room
// explained with its log).
func ITF(r *Result) ([]byte, error) {
	if r.Holds || r.Result == nil {
		return nil, fmt.Errorf("captured: room %d: no failing schedule to save", r.Room.Room)
	}
	cs := conformance.Case{Impl: r.Impl, Variant: r.Variant, Property: r.Property, Failure: r.Result.Failure, Seq: r.Schedule.Actions}
	t, err := cs.Trace(r.Result.Config)
	if err != nil {
		return nil, err
	}
	capt := &itf.Capture{Path: r.Room.Capture, Room: r.Room.Room, Frames: make([]int, len(r.Schedule.Actions))}
	lines := make([]int, len(r.Schedule.Actions))
	for i, j := range r.Schedule.Obs {
		if j < 0 {
			continue
		}
		if src, _, _ := r.source(i); src == "log" {
			lines[i] = int(r.Room.Match.Hist[j].Ev)
		} else {
			capt.Frames[i] = int(r.Room.Match.Hist[j].Ev)
		}
	}
	if r.Room.Log {
		capt.LogLines = lines
	}
	t.Meta.Capture = capt
	return t.Marshal(r.Result.Config)
}

// Summary is one line for a room's result.
func Summary(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s room %d: %s: ", r.Room.Capture, r.Room.Room, r.Impl)
	how := "every schedule the capture allows"
	if !r.Complete {
		how = "random schedules: more than the bound"
	}
	if r.Holds {
		fmt.Fprintf(&b, "holds over %d schedules (%s)", r.Schedules, how)
	} else {
		fmt.Fprintf(&b, "PINNED (%s fails on schedule %d, %s)", r.Property, r.Schedules, how)
	}
	return b.String()
}
