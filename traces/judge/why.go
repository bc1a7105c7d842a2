package judge

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/roomspec/roomspec/spec/itf"
	"github.com/roomspec/roomspec/spec/model"
)

// Why says in one sentence, in SGLang's terms, why the room of behaviour
// states (a behaviour of c) is pinned at its last state: how its ABORTs
// were handled, where its request waits, and what in the code keeps it
// there. It is "" when every aborted request of the last state is let go
// (nothing pins it) or states is empty.
//
// It reads the behaviour only (the spec's steps and variables), so the
// same behaviour gives the same sentence in every report that shows it.
func Why(c *model.Config, states []model.State) string {
	if len(states) == 0 {
		return ""
	}
	last := &states[len(states)-1]
	q := model.Requests(-1)
	for r := model.Requests(0); int(r) < c.Requests.Size(); r++ {
		if last.Aborted[r] && !c.Terminated(last, r) {
			q = r
			break
		}
	}
	if q < 0 {
		return ""
	}
	room := int(c.RoomOf(last, q))
	var parts []string
	if cause := abortsHandled(c, states, q, room); cause != "" {
		parts = append(parts, cause)
	}
	parts = append(parts, waiting(c, last, q, room))
	return strings.Join(parts, "; ")
}

// abortsHandled says what prefill's bootstrap thread did with the
// request's ABORTs in the behaviour.
func abortsHandled(c *model.Config, states []model.State, q model.Requests, room int) string {
	var killed bool
	var before, received int
	during := map[string]int{}
	var order []string
	for i := 1; i < len(states); i++ {
		a, ok := itf.Step(c, &states[i-1], &states[i])
		if !ok || model.Actions[a.ID].Name != "BootstrapRecvAbort" {
			continue
		}
		s, t := &states[i-1], &states[i]
		received++
		switch {
		case s.BootstrapAlive && !t.BootstrapAlive:
			killed = true
		case s.Sender[q] == model.StrNoSender:
			before++
		default:
			st := s.RequestStatus[room].String()
			if during[st] == 0 {
				order = append(order, st)
			}
			during[st]++
		}
	}
	switch {
	case killed:
		return "decode's ABORT killed prefill's bootstrap thread (at this commit the ABORT lacks the guard frame, and its assert fails)"
	case received == 0 && c.AbortKillsBootstrap:
		return "its ABORTs are on their way to prefill, whose bootstrap thread dies on the first (at this commit the ABORT lacks the guard frame, and its assert fails)"
	case received == 0:
		return "prefill's bootstrap thread has not handled its ABORTs"
	case before == received:
		return fmt.Sprintf("%s reached prefill before the scheduler created the request's sender: the room was unknown, and %s dropped", abortsWord(received), map[bool]string{true: "it was", false: "they were"}[received == 1])
	case before > 0:
		return fmt.Sprintf("%d of its ABORTs reached prefill before the scheduler created the request's sender and were dropped", before)
	}
	return fmt.Sprintf("its ABORTs reached prefill while the room read %s", strings.Join(order, ", then "))
}

// abortsWord names n ABORTs of one request.
func abortsWord(n int) string {
	switch n {
	case 1:
		return "its ABORT"
	case 2:
		return "both its ABORTs"
	}
	return fmt.Sprintf("its %d ABORTs", n)
}

// queueNames are where prefill's scheduler holds a request (the spec's
// sender positions), in prefill.py's words.
var queueNames = map[model.Str]string{
	model.StrNoSender:       "has no sender yet",
	model.StrBootstrapQueue: "waits in the bootstrap queue (PrefillBootstrapQueue)",
	model.StrWaitingQueue:   "waits in the waiting queue",
	model.StrInflightQueue:  "waits in the inflight queue (process_disagg_prefill_inflight_queue)",
}

// waiting says where the request waits in state s and what keeps it there.
func waiting(c *model.Config, s *model.State, q model.Requests, room int) string {
	if s.Sender[q] == model.StrNoSender && !s.PrefillCrashed && s.BootstrapAlive {
		out := "the scheduler has not created the request's sender yet: once created, it waits in Bootstrapping for TransferInfos prefill will not complete"
		if !c.HasBootstrapTimeout {
			return out + ", and at this commit nothing fails a Bootstrapping sender (no bootstrap timeout; PR #34692 brought one)"
		}
		return out + ", and no step of prefill lets it go from there"
	}
	where, ok := queueNames[s.Sender[q]]
	if !ok {
		where = "is held (" + s.Sender[q].String() + ")"
	}
	poll := c.Poll(s, q)
	out := fmt.Sprintf("the request %s and its poll reads %s", where, poll)
	if tis, need := bits.OnesCount64(s.TransferInfos[room]), c.RequiredDstInfoNum; s.Sender[q] == model.StrBootstrapQueue && tis < need {
		out += fmt.Sprintf(" with %d of its %d decode ranks' TransferInfo stored", tis, need)
	}
	switch {
	case s.PrefillCrashed:
		return out + ": prefill's process crashed"
	case !s.BootstrapAlive:
		return out + ", and with the bootstrap thread dead nothing handles its room again"
	case poll == model.StrBootstrapping && !c.HasBootstrapTimeout:
		return out + ", and at this commit nothing fails a Bootstrapping sender (no bootstrap timeout; PR #34692 brought one)"
	case poll == model.StrWaitingForInput && s.RequestStatus[room] == model.StrAbsent && c.AbsentReadsWaiting:
		return out + ": its room is gone from request_status, and an absent room reads WaitingForInput, so no poll fails it"
	case poll == model.StrWaitingForInput:
		return out + ", and nothing will send its KV or fail it"
	}
	return out + ", and no step of prefill lets it go from there"
}
