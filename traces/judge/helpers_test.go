package judge

import (
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// Shorthands for the observation layer, which the tests use throughout.
type (
	Observation = observe.Observation
	Kind        = observe.Kind
)

const (
	TransferInfo = observe.TransferInfo
	Abort        = observe.Abort
	AbortAck     = observe.AbortAck
	Status       = observe.Status
	SenderCreate = observe.SenderCreate
	Poll         = observe.Poll
	Clear        = observe.Clear
)

var (
	Merge       = observe.Merge
	FromMessage = observe.FromMessage
	FromEvent   = observe.FromEvent
)

// variantConfig loads a bundled variant.
func variantConfig(t testing.TB, variant string) *model.Config {
	t.Helper()
	text, err := spec.Config(variant)
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.LoadConfig(text)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// recorder is a Judge whose events are collected as they are decided.
type recorder struct {
	*Judge
	events []Event
}

// newRecorder returns a recorder for cfg under opt.
func newRecorder(t testing.TB, cfg *model.Config, opt Options) *recorder {
	t.Helper()
	j, err := New(cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	return &recorder{Judge: j}
}

// Step feeds o and collects the events it decided.
func (r *recorder) Step(o Observation) {
	r.Judge.Step(o)
	r.events = append(r.events, r.Ready()...)
}

// Tick moves capture time to t and collects the events it decided.
func (r *recorder) Tick(t time.Time) {
	r.Judge.Tick(t)
	r.events = append(r.events, r.Ready()...)
}

// Finish judges every room at end: the report, its rooms those of the
// Verdict events, as a replay keeps them.
func (r *recorder) Finish(end time.Time) *Report {
	rep := r.Judge.Finish(end)
	r.events = append(r.events, r.Ready()...)
	var rooms []*Room
	for _, ev := range r.events {
		if ev.Kind == EventVerdict {
			rooms = append(rooms, ev.Room)
		}
	}
	rep.Keep(rooms)
	return rep
}

// judgeAll judges obs, in time order, under cfg with opt (every room
// reported, never-aborted ones too, unless opt says otherwise: see
// judgeReported) and finishes at end.
func judgeAll(t testing.TB, cfg *model.Config, opt Options, obs []Observation, end time.Time) *Report {
	t.Helper()
	opt.AllRooms = true
	return judgeReported(t, cfg, opt, obs, end)
}

// judgeReported is judgeAll with opt as given: only aborted and invalid
// rooms reported, unless opt.AllRooms.
func judgeReported(t testing.TB, cfg *model.Config, opt Options, obs []Observation, end time.Time) *Report {
	t.Helper()
	r := newRecorder(t, cfg, opt)
	for _, o := range obs {
		r.Step(o)
	}
	return r.Finish(end)
}
