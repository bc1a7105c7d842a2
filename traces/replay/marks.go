package replay

import (
	"fmt"

	"github.com/roomspec/roomspec/spec/model"
)

// Mark is a trace one spec step leaves where replay can see it: a message
// on the wire (TransferInfo, ABORT or ABORT_ACK of a decode rank) or a
// line of the prefill event log. An observation is explained by a step
// that left its mark; a step that leaves no mark may have happened
// unseen.
//
// Marks are what the matcher compares, so they hold only what the spec
// decides: the decode rank as its index in the room's spec instance
// (ranks are named in order of appearance), never an address.
type Mark struct {
	Kind Kind
	// Rank is the decode rank of a wire mark (an index into the
	// instance's DecodeRanks); -1 for log marks.
	Rank int
	// A and B are a status change's from and to, or a poll's queue
	// ("bootstrap", "inflight") and the status it saw; empty otherwise.
	A, B string
}

func (m Mark) String() string {
	switch m.Kind {
	case Status:
		return fmt.Sprintf("status %s -> %s", m.A, m.B)
	case Poll:
		return fmt.Sprintf("poll %s saw %s", m.A, m.B)
	}
	if m.Kind.Wire() {
		return fmt.Sprintf("%s rank %d", m.Kind, m.Rank)
	}
	return m.Kind.String()
}

// channel identifies the FIFO a mark travels on: one per decode rank and
// direction on the wire (a ZeroMQ connection keeps its order), one for
// the log (its lines are in the order they were written).
func (m Mark) channel() int {
	switch {
	case !m.Kind.Wire():
		return -1
	case m.Kind == AbortAck:
		return 2*m.Rank + 1
	}
	return 2 * m.Rank
}

// requestOf returns the request an action of a per-request kind acts on.
func requestOf(a model.Action) (model.Requests, bool) {
	switch a.ID {
	case model.ActSchedulerCreateSender, model.ActSchedulerPollBootstrap, model.ActSchedulerSend,
		model.ActSchedulerPollInFlight, model.ActWorkerPost, model.ActWorkerComplete,
		model.ActBootstrapTimeout, model.ActDecodeAbort:
		return model.Requests(a.Params[0]), true
	case model.ActDecodeSendTransferInfo:
		return model.Requests(a.Params[1]), true
	}
	return 0, false
}

// Marks returns the marks step a (from s to t) of a one-room spec
// instance leaves, in the order they appear: its wire messages (every
// ABORT of a DecodeAbort, the TransferInfo of DecodeSendTransferInfo, and
// every ABORT_ACK a prefill step puts on a decode rank's channel) and,
// when withLog, the prefill event-log lines it writes (the mapping the
// instrumentation in traces/instrument implements):
//
//   - SchedulerCreateSender: sender_create, then the status change it
//     made, if any;
//   - SchedulerPollBootstrap, SchedulerPollInFlight: a poll of that queue
//     with the status it read; a poll that releases the request and
//     clears its room then writes clear;
//   - BootstrapTimeout: the timeout's Bootstrapping -> Failed, the poll
//     that read that Failed, and clear where the release clears the room;
//   - any other prefill step: the status change it made, if any.
//
// Receiving messages (the bootstrap thread's and decode's) leaves no wire
// mark: a capture sees a message when it is sent.
func Marks(c *model.Config, a model.Action, s, t *model.State, withLog bool) []Mark {
	var out []Mark
	switch a.ID {
	case model.ActDecodeSendTransferInfo:
		return []Mark{{Kind: TransferInfo, Rank: a.Params[0]}}
	case model.ActDecodeAbort:
		for d := 0; d < c.DecodeRanks.Size(); d++ {
			out = append(out, Mark{Kind: Abort, Rank: d})
		}
		return out
	case model.ActDecodeRecvAbortAck:
		return nil
	}
	// ABORT_ACKs: whatever the step appended to a decode rank's channel
	// (the bootstrap thread's handler, or a worker once a room drains).
	for d := range t.AckChan {
		for range len(t.AckChan[d]) - len(s.AckChan[d]) {
			out = append(out, Mark{Kind: AbortAck, Rank: d})
		}
	}
	if !withLog {
		return out
	}
	status := func() {
		// The instance has one room: request_status has one entry.
		if s.RequestStatus[0] != t.RequestStatus[0] {
			out = append(out, Mark{Kind: Status, Rank: -1, A: s.RequestStatus[0].String(), B: t.RequestStatus[0].String()})
		}
	}
	switch a.ID {
	case model.ActSchedulerCreateSender:
		out = append(out, Mark{Kind: SenderCreate, Rank: -1})
		status()
	case model.ActSchedulerPollBootstrap, model.ActSchedulerPollInFlight:
		q, _ := requestOf(a)
		queue := "bootstrap"
		if a.ID == model.ActSchedulerPollInFlight {
			queue = "inflight"
		}
		out = append(out, Mark{Kind: Poll, Rank: -1, A: queue, B: c.Poll(s, q).String()})
		if cleared(c, s, t, q) {
			out = append(out, Mark{Kind: Clear, Rank: -1})
		}
	case model.ActBootstrapTimeout:
		q, _ := requestOf(a)
		out = append(out,
			Mark{Kind: Status, Rank: -1, A: s.RequestStatus[0].String(), B: model.StrFailed.String()},
			Mark{Kind: Poll, Rank: -1, A: "bootstrap", B: model.StrFailed.String()})
		if cleared(c, s, t, q) {
			out = append(out, Mark{Kind: Clear, Rank: -1})
		}
	default:
		status()
	}
	return out
}

// cleared reports whether step s -> t released request q through clear():
// on Success always, on a failure where failure_exception() clears.
func cleared(c *model.Config, s, t *model.State, q model.Requests) bool {
	if t.Sender[q] != model.StrReleased || s.Sender[q] == model.StrReleased {
		return false
	}
	return c.FailureClears || c.Poll(s, q) == model.StrSuccess
}

// Stutter reports whether a logged poll m that moves nothing fits state
// s of a one-room instance: some request waits in that queue and its
// poll reads that status (a poll whose result lets the request move on is
// a step, SchedulerPollBootstrap or SchedulerPollInFlight).
func Stutter(c *model.Config, m Mark, s *model.State) bool {
	if m.Kind != Poll {
		return false
	}
	for q := model.Requests(0); int(q) < c.Requests.Size(); q++ {
		p := c.Poll(s, q)
		switch m.A {
		case "bootstrap":
			if s.Sender[q] == model.StrBootstrapQueue && m.B == "Bootstrapping" && p == model.StrBootstrapping {
				return true
			}
		case "inflight":
			if s.Sender[q] == model.StrInflightQueue && p.String() == m.B &&
				p != model.StrSuccess && p != model.StrFailed && p != model.StrKeyError {
				return true
			}
		}
	}
	return false
}
