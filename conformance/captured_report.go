package conformance

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/roomspec/roomspec/conformance/itf"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	trace "github.com/roomspec/roomspec/traces/replay"
)

// SpecImpl is the spec itself as an Implementation: its steps are the
// spec's, so refinement holds by construction and liveness after fair
// quiescence says whether the variant itself can pin the room along a
// schedule.
type SpecImpl struct {
	c *model.Config
	s model.State
}

var errNotEnabled = errors.New("conformance: spec: action not enabled")

// Reset starts from the spec's initial state.
func (p *SpecImpl) Reset(c *model.Config) error { p.c, p.s = c, c.Init(); return nil }

// Apply takes a in the spec.
func (p *SpecImpl) Apply(a model.Action) error {
	t, ok := p.c.Step(&p.s, a)
	if !ok {
		return errNotEnabled
	}
	p.s = t
	return nil
}

// Observe returns the spec's state.
func (p *SpecImpl) Observe() (model.State, error) { return p.s, nil }

// Close does nothing.
func (p *SpecImpl) Close() error { return nil }

// Clone copies the spec's state.
func (p *SpecImpl) Clone() Implementation { q := *p; return &q }

// LoadCapture decodes a capture and returns its wire observations in
// capture order (log observations are not read yet).
func LoadCapture(path string) ([]trace.Observation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var obs []trace.Observation
	_, err = decode.Run(f, decode.Options{}, func(m *decode.Message) {
		if o, ok := trace.FromMessage(m); ok {
			obs = append(obs, o)
		}
	}, func(decode.Diagnostic) {})
	if err != nil {
		return nil, fmt.Errorf("conformance: capture %s: %w", path, err)
	}
	return obs, nil
}

// WriteCapturedTable prints a failing room's schedule as a step table:
// each observed event with its frame number and capture timestamp (to
// open in Wireshark; an ABORT lists the frames of every rank's copy), each internal step marked as chosen, then the
// implementation's steps under fair quiescence and the failure.
func WriteCapturedTable(w io.Writer, r *CapturedResult) error {
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

// CapturedITF saves a failing room's schedule as an ITF trace (as
// SaveITF does), with the capture's path, the room and, per step, the
// frame number of the observed event (0 for internal steps) in the
// trace's metadata (and the log line numbers, when the room has log
// events).
func CapturedITF(r *CapturedResult) ([]byte, error) {
	if r.Holds || r.Result == nil {
		return nil, fmt.Errorf("conformance: room %d: no failing schedule to save", r.Room.Room)
	}
	cs := Case{Impl: r.Impl, Variant: r.Variant, Property: r.Property, Failure: r.Result.Failure, Seq: r.Schedule.Seq}
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
func capturedSummary(r *CapturedResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s room %d %s: %d schedules (%d discarded)", r.Room.Capture, r.Room.Room, r.Impl, r.Schedules, r.Discarded)
	if r.Holds {
		b.WriteString(", holds")
	} else {
		fmt.Fprintf(&b, ", %s fails after %v (schedule of %d steps)", r.Property, r.FirstFail.Round(1000), len(r.Schedule.Seq))
	}
	return b.String()
}

// LoadEventLog reads a prefill event log (traces/eventlog) as observations
// in log order, to merge with a capture's (trace.Merge).
func LoadEventLog(path string) ([]trace.Observation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	events, err := eventlog.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("conformance: event log %s: %w", path, err)
	}
	var out []trace.Observation
	for i := range events {
		if o, ok := trace.FromEvent(&events[i]); ok {
			out = append(out, o)
		}
	}
	return out, nil
}
