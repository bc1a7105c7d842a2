package conformance

import (
	"github.com/roomspec/roomspec/spec/model"
	trace "github.com/roomspec/roomspec/traces/replay"
)

// LogMark is the trace a prefill step leaves in the event log: a status
// change (A -> B), a sender creation, a poll (queue A saw status B), or a
// clear. It is traces/replay's Mark of a log line, so the captured
// schedules and replay read the log the same way.
type LogMark = trace.Mark

func logEvent(o *trace.Observation) CapturedEvent {
	m := &LogMark{Kind: o.Kind, Rank: -1}
	switch o.Kind {
	case trace.Status:
		m.A, m.B = o.From, o.To
	case trace.Poll:
		m.A, m.B = o.Queue, o.Status
	}
	return CapturedEvent{Kind: o.Kind, Time: o.Time, Line: o.Line, Log: m}
}

// logMarks returns the log lines step a from s to t writes (replay's
// marks of the step, without its wire messages).
func logMarks(c *model.Config, a model.Action, s, t *model.State) []LogMark {
	var out []LogMark
	for _, m := range trace.Marks(c, a, s, t, true) {
		if !m.Kind.Wire() {
			out = append(out, m)
		}
	}
	return out
}

// stutterPoll reports whether a logged poll that moves nothing fits s.
func stutterPoll(c *model.Config, m *LogMark, s *model.State) bool { return trace.Stutter(c, *m, s) }
