// Package observe turns what a capture and a prefill event log show into
// observations of rooms: the one place that says how a decoded SGLang
// message or a log line becomes an observed event of a room, which source
// it came from (and so which observations keep their order), how the
// capture and the log are merged into one stream, and which room (a room
// id on one prefill endpoint) and decode rank an observation belongs to.
//
// Replay (traces/judge/replay), the captured-trace property suite
// (conformance/captured) and the CLI all read captures through it, so
// that they see the same rooms:
//
//	ReadCapture ──► Observation ──┐
//	                              ├─► Stream (merge by time) ─► Grouper (rooms, ranks)
//	LogReader   ──► Observation ──┘
//
// The package knows SGLang's wire messages and the event log's format; it
// knows nothing of the spec. Which spec steps explain an observation is
// traces/judge/explain's business.
package observe

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"
)

// Kind is what an observation saw.
type Kind int

// Observation kinds: the first three come from the wire (named as the
// spec's @wire annotations name the messages), the rest from the log.
const (
	// TransferInfo: a decode rank sent TransferInfo.
	TransferInfo Kind = iota
	// Abort: a decode rank sent ABORT.
	Abort
	// AbortAck: prefill sent ABORT_ACK to a decode rank.
	AbortAck
	// Status: request_status[room] changed (log status).
	Status
	// SenderCreate: the scheduler created the room's sender.
	SenderCreate
	// Poll: the scheduler polled the sender and saw Status.
	Poll
	// Clear: the scheduler released the request and cleared the room.
	Clear
	// Other: a log event kept as evidence but not checked against the
	// spec (client abort, chunk_enqueue, chunk_skip).
	Other
)

var kindNames = [...]string{"TransferInfo", "ABORT", "ABORT_ACK", "status", "sender_create", "poll", "clear", "other"}

// String names k: a wire kind as its message (the name @wire annotations
// use), a log kind as its event.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Wire reports whether observations of kind k come from the capture.
func (k Kind) Wire() bool { return k <= AbortAck }

// Observation is one observed event of one room: a decoded message (its
// Wire part) or a log line (its Log part).
type Observation struct {
	Kind Kind
	Time time.Time
	Room int64
	Wire
	Log
}

// Wire is what a wire observation says beyond its kind, room and time.
type Wire struct {
	// Frame is the capture frame number of the packet that completed the
	// message.
	Frame int
	// Src and Dst are the connection's endpoints.
	Src, Dst netip.AddrPort
	// Stream, when positive, numbers the observation's TCP direction
	// (decode.Message.Stream + 1); zero means "name it by Src and Dst".
	// Observations of one stream are in the order they were sent.
	Stream int
	// MidStream says the capture joined the connection after its
	// handshake: earlier messages on it are missing.
	MidStream bool
	// Rank names the decode rank: decode's own endpoint (the message's
	// decode_ip and decode_port, where ABORT_ACKs are sent), or the
	// connection's source when the message does not carry it (2-frame
	// ABORT) or decode_ip is not an IP address.
	Rank netip.AddrPort
	// RankFromConn says Rank is the connection's source, not decode's
	// endpoint: a Grouper then names the rank by the TransferInfo seen on
	// the same connection.
	RankFromConn bool
	// Required is a TransferInfo's required_dst_info_num.
	Required int
	// AckFrames is an ABORT_ACK's frame count: 3 (PR #35360's deferred
	// release, naming prefill's rank) or 2 (the immediate form: legacy
	// NIXL's, and Mooncake's, which decode only logs).
	AckFrames int
}

// Log is what a log observation says beyond its kind, room and time.
type Log struct {
	// Line is the log line number.
	Line int
	// Event is the log event's name.
	Event string
	// From and To are a status change's; Status and Queue a poll's (Queue
	// empty when the line does not say).
	From, To      string
	Status, Queue string
	// Doubt, when not empty, says why the line's time cannot be trusted
	// (eventlog.Event.Doubt).
	Doubt string
}

// Evidence prints where the observation was seen: "frame N" or "log line N".
func (o *Observation) Evidence() string {
	if o.Kind.Wire() {
		return "frame " + strconv.Itoa(o.Frame)
	}
	return "log line " + strconv.Itoa(o.Line)
}

// String prints the observation, its evidence first.
func (o *Observation) String() string {
	s := fmt.Sprintf("%s %s room %d", o.Evidence(), o.Kind, o.Room)
	switch o.Kind {
	case TransferInfo, Abort, AbortAck:
		s += " rank " + o.Rank.String()
	case Status:
		s += " " + o.From + " -> " + o.To
	case Poll:
		queue := o.Queue
		if queue == "" {
			queue = "(queue not logged)"
		}
		s += " " + queue + " saw " + o.Status
	case Other:
		s += " " + o.Event
	}
	return s
}
