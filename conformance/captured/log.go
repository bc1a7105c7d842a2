package captured

import (
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/explain"
	"github.com/roomspec/roomspec/traces/observe"
)

// logEvent is the event of a log observation: the log line a prefill
// step writes, as traces/explain reads it.
func logEvent(o *observe.Observation) Event {
	m := explain.MarkOf(o, -1)
	return Event{Kind: o.Kind, Time: o.Time, Line: o.Line, Log: &m, Src: -1}
}

// logMarks returns the log lines step a from s to t writes (its marks
// without its wire messages).
func logMarks(c *model.Config, a model.Action, s, t *model.State) []explain.Mark {
	var out []explain.Mark
	for _, m := range explain.Marks(c, a, s, t, true) {
		if !m.Kind.Wire() {
			out = append(out, m)
		}
	}
	return out
}
