package explain

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// What the search needs of Room.tla beyond its annotations is here, in
// one place: what "let go" means for the verdicts (the spec's Terminated
// and aborted). The marks of a step come from the @wire, @log and
// @action annotations, the log lines written without a step from the
// @idle annotations (spec/model's AppendWire, AppendLog, AppendIdle and
// Actions).

// logKind is the observation kind of each @log event name: the log's
// event names are the kinds' names.
var logKind = map[string]observe.Kind{}

func init() {
	for k := observe.Status; k < observe.Other; k++ {
		logKind[k.String()] = k
	}
	// A @log event the log cannot show would never match an observation:
	// the spec and the instrumentation disagree, which is a build error
	// of the spec, caught when the program starts.
	for _, a := range model.Actions {
		for _, an := range a.Annotations {
			if an[0] != "log" && an[0] != "idle" {
				continue
			}
			event, _, _ := strings.Cut(an[1], "(")
			if _, ok := logKind[strings.TrimSpace(event)]; !ok {
				panic(fmt.Sprintf("explain: @%s %q of %s: %q is not an event of the prefill log (%v)", an[0], an[1], a.Name, event, slices.Sorted(maps.Keys(logKind))))
			}
		}
	}
}

// appendLogMarks appends the prefill event-log lines step a (from s to t)
// writes, as its @log annotations say.
func appendLogMarks(out []Mark, c *model.Config, a model.Action, s, t *model.State) []Mark {
	var buf [4]model.LogLine
	for _, l := range c.AppendLog(buf[:0], a, s, t) {
		out = append(out, logMark(&l))
	}
	return out
}

// logMark is the mark of a log line.
func logMark(l *model.LogLine) Mark {
	m := Mark{Kind: logKind[l.Event], Rank: -1}
	switch m.Kind {
	case observe.Status:
		m.A, m.B = l.From.String(), l.To.String()
	case observe.Poll:
		m.A, m.B = l.Queue.String(), l.Status.String()
	}
	return m
}

// Stutter reports whether log mark m fits state s of a one-room
// instance without a step: some thread writes it there while taking no
// step (the spec's @idle annotations: a poll whose result does not let
// the request move on).
func Stutter(c *model.Config, m Mark, s *model.State) bool {
	if m.Kind.Wire() {
		return false
	}
	var buf [4]model.LogLine
	for _, l := range c.AppendIdle(buf[:0], s) {
		if m.matches(logMark(&l)) {
			return true
		}
	}
	return false
}

// Settled reports whether every aborted request of s was let go by
// prefill (Terminated): what AbortedRoomsTerminate asks.
func Settled(c *model.Config, s *model.State) bool {
	for q := model.Requests(0); int(q) < c.Requests.Size(); q++ {
		if s.Aborted[q] && !c.Terminated(s, q) {
			return false
		}
	}
	return true
}

// released reports whether prefill let go of every request of s that
// reached it (decode sent it something, or its sender exists).
func released(c *model.Config, s *model.State) bool {
	some := false
	for q := model.Requests(0); int(q) < c.Requests.Size(); q++ {
		if s.TiSent[q] == 0 && !s.Aborted[q] && s.Sender[q] == model.StrNoSender {
			continue
		}
		some = true
		if !c.Terminated(s, q) {
			return false
		}
	}
	return some
}

// aborted reports whether some request of s was aborted.
func aborted(s *model.State) bool {
	for _, a := range s.Aborted {
		if a {
			return true
		}
	}
	return false
}
