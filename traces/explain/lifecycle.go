package explain

import (
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// What the search needs of Room.tla beyond its annotations is here, in
// one place: the lines the prefill event log writes for each step (the
// instrumentation's contract, traces/instrument/roomlog.py, which no
// annotation of the spec describes yet), and what "let go" means for the
// verdicts (the spec's Terminated and aborted). The wire side of the
// search comes from the @wire and @action annotations alone
// (spec/model's AppendWire and Actions).

// logMarks appends the prefill event-log lines step a (from s to t)
// writes:
//
//   - SchedulerCreateSender: sender_create, then the status change it
//     made, if any;
//   - SchedulerPollBootstrap, SchedulerPollInFlight: a poll of that queue
//     with the status it read; a poll that releases the request and
//     clears its room then writes clear;
//   - BootstrapTimeout (the timeout fires inside the bootstrap queue's
//     poll): the status change to Failed, the poll that read that Failed,
//     and clear where the release clears the room;
//   - any other prefill step: the status change it made, if any.
func logMarks(out []Mark, c *model.Config, a model.Action, s, t *model.State) []Mark {
	status := func() {
		// The instance has one room: request_status has one entry.
		if s.RequestStatus[0] != t.RequestStatus[0] {
			out = append(out, Mark{Kind: observe.Status, Rank: -1, A: s.RequestStatus[0].String(), B: t.RequestStatus[0].String()})
		}
	}
	switch a.ID {
	case model.ActSchedulerCreateSender:
		out = append(out, Mark{Kind: observe.SenderCreate, Rank: -1})
		status()
	case model.ActSchedulerPollBootstrap, model.ActSchedulerPollInFlight:
		q := model.Requests(a.Params[0])
		queue := "bootstrap"
		if a.ID == model.ActSchedulerPollInFlight {
			queue = "inflight"
		}
		out = append(out, Mark{Kind: observe.Poll, Rank: -1, A: queue, B: c.Poll(s, q).String()})
		if cleared(c, s, t, q) {
			out = append(out, Mark{Kind: observe.Clear, Rank: -1})
		}
	case model.ActBootstrapTimeout:
		q := model.Requests(a.Params[0])
		failed := model.StrFailed.String()
		out = append(out,
			Mark{Kind: observe.Status, Rank: -1, A: s.RequestStatus[0].String(), B: failed},
			Mark{Kind: observe.Poll, Rank: -1, A: "bootstrap", B: failed})
		if cleared(c, s, t, q) {
			out = append(out, Mark{Kind: observe.Clear, Rank: -1})
		}
	default:
		status()
	}
	return out
}

// cleared reports whether step s -> t released request q through
// clear(): on Success always, on a failure where the sender's
// failure_exception() clears the room (FailureClears).
func cleared(c *model.Config, s, t *model.State, q model.Requests) bool {
	if t.Sender[q] != model.StrReleased || s.Sender[q] == model.StrReleased {
		return false
	}
	return c.FailureClears || c.Poll(s, q) == model.StrSuccess
}

// Stutter reports whether a logged poll m that moves nothing fits state
// s of a one-room instance: some request waits in that queue (in either,
// when the log did not say) and its poll reads that status (a poll whose
// result lets the request move on is a step, SchedulerPollBootstrap or
// SchedulerPollInFlight).
func Stutter(c *model.Config, m Mark, s *model.State) bool {
	if m.Kind != observe.Poll {
		return false
	}
	for q := model.Requests(0); int(q) < c.Requests.Size(); q++ {
		p := c.Poll(s, q)
		if (m.A == "" || m.A == "bootstrap") && s.Sender[q] == model.StrBootstrapQueue && m.B == "Bootstrapping" && p == model.StrBootstrapping {
			return true
		}
		if (m.A == "" || m.A == "inflight") && s.Sender[q] == model.StrInflightQueue && p.String() == m.B &&
			p != model.StrSuccess && p != model.StrFailed && p != model.StrKeyError {
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
