package conformance

import (
	"github.com/roomspec/roomspec/spec/model"
	trace "github.com/roomspec/roomspec/traces/replay"
)

// LogMark is the trace a prefill step leaves in the event log: a status
// change (A -> B), a sender creation, a poll (queue A saw status B), or a
// clear. It follows traces/replay's mapping (its labels, which are not
// exported): a copy kept in step with it by the tests over the scenario
// logs.
type LogMark struct {
	Kind trace.Kind
	A, B string
}

func logEvent(o *trace.Observation) CapturedEvent {
	m := &LogMark{Kind: o.Kind}
	switch o.Kind {
	case trace.Status:
		m.A, m.B = o.From, o.To
	case trace.Poll:
		m.A, m.B = o.Queue, o.Status
	}
	return CapturedEvent{Kind: o.Kind, Time: o.Time, Line: o.Line, Log: m}
}

// logMarks returns the log lines step a from s to t of request 0 writes.
func logMarks(c *model.Config, a model.Action, s, t *model.State) []LogMark {
	var out []LogMark
	status := func() {
		if s.RequestStatus[requestOfRoom] != t.RequestStatus[requestOfRoom] {
			out = append(out, LogMark{trace.Status, s.RequestStatus[requestOfRoom].String(), t.RequestStatus[requestOfRoom].String()})
		}
	}
	switch a.ID {
	case model.ActDecodeSendTransferInfo, model.ActDecodeAbort, model.ActDecodeRecvAbortAck:
		// Decode's side: not in the prefill log.
	case model.ActSchedulerCreateSender:
		out = append(out, LogMark{Kind: trace.SenderCreate})
		status()
	case model.ActSchedulerPollBootstrap:
		out = append(out, LogMark{trace.Poll, "bootstrap", c.Poll(s, requestOfRoom).String()})
	case model.ActSchedulerPollInFlight:
		out = append(out, LogMark{trace.Poll, "inflight", c.Poll(s, requestOfRoom).String()})
		if t.Sender[requestOfRoom] == model.StrReleased {
			out = append(out, LogMark{Kind: trace.Clear})
		}
	default:
		status()
	}
	return out
}

// stutterPoll reports whether a logged poll that moves nothing fits s:
// the request waits in that queue and its poll reads that status.
func stutterPoll(c *model.Config, m *LogMark, s *model.State) bool {
	const q = requestOfRoom
	switch m.A {
	case "bootstrap":
		return s.Sender[q] == model.StrBootstrapQueue && m.B == "Bootstrapping" && c.Poll(s, q) == model.StrBootstrapping
	case "inflight":
		p := c.Poll(s, q)
		return s.Sender[q] == model.StrInflightQueue && p.String() == m.B &&
			p != model.StrSuccess && p != model.StrFailed && p != model.StrKeyError
	}
	return false
}
