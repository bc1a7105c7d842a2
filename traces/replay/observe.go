package replay

import (
	"fmt"
	"net/netip"
	"strconv"
	"time"

	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/wire"
)

// Kind is what an observation saw.
type Kind int

// Observation kinds: the first three come from the wire, the rest from
// the event log.
const (
	// TransferInfo: a decode rank sent TransferInfo (spec action
	// DecodeSendTransferInfo).
	TransferInfo Kind = iota
	// Abort: a decode rank sent ABORT. The first of a room is the spec's
	// DecodeAbort (which sends one ABORT per rank); the others are
	// explained by it.
	Abort
	// AbortAck: prefill sent ABORT_ACK (BootstrapRecvAbort, in variants
	// that acknowledge).
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

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Wire reports whether observations of kind k come from the capture.
func (k Kind) Wire() bool { return k <= AbortAck }

// Observation is one observed event of one room: a decoded message or a
// log line.
type Observation struct {
	Kind Kind
	Time time.Time
	Room int64
	// Frame is the capture frame number of a wire observation; Line the
	// log line number of a log observation.
	Frame, Line int
	// Src and Dst are the wire connection's endpoints.
	Src, Dst netip.AddrPort
	// Stream, when positive, numbers the wire observation's TCP direction
	// (decode.Message.Stream + 1); zero means "name it by Src and Dst".
	// Observations of one stream are in the order they were sent.
	Stream int
	// MidStream says the capture joined the observation's connection
	// after its handshake: earlier messages on it are missing.
	MidStream bool
	// Rank names the decode rank of a wire observation: decode's own
	// endpoint (the message's decode_ip and decode_port, where ABORT_ACKs
	// are sent), or the connection's source when the message does not
	// carry it (2-frame ABORT) or decode_ip is not an IP address.
	Rank netip.AddrPort
	// RankFromConn says Rank is the connection's source, not decode's
	// endpoint: the Replayer then names the rank by the TransferInfo seen
	// on the same connection.
	RankFromConn bool
	// Required is a TransferInfo's required_dst_info_num.
	Required int
	// From and To are a status change's; Status and Queue a poll's.
	From, To      string
	Status, Queue string
	// Event is the log event name (for Other).
	Event string
}

// Evidence prints where the observation was seen: "frame N" or "log line N".
func (o *Observation) Evidence() string {
	if o.Kind.Wire() {
		return "frame " + strconv.Itoa(o.Frame)
	}
	return "log line " + strconv.Itoa(o.Line)
}

func (o *Observation) String() string {
	s := fmt.Sprintf("%s %s room %d", o.Evidence(), o.Kind, o.Room)
	switch o.Kind {
	case TransferInfo, Abort, AbortAck:
		s += " rank " + o.Rank.String()
	case Status:
		s += " " + o.From + " -> " + o.To
	case Poll:
		s += " " + o.Queue + " saw " + o.Status
	case Other:
		s += " " + o.Event
	}
	return s
}

// endpoint returns decode's announced endpoint, or ok false when decode_ip
// is not an IP address.
func endpoint(ip string, port int) (netip.AddrPort, bool) {
	a, err := netip.ParseAddr(ip)
	if err != nil || port < 0 || port > 65535 {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(a, uint16(port)), true
}

// FromMessage turns a decoded message into an observation; ok is false for
// messages the spec says nothing about (registration, staging, unknown).
func FromMessage(m *decode.Message) (o Observation, ok bool) {
	o = Observation{Time: m.Time, Frame: m.Frame, Src: m.Src, Dst: m.Dst, Stream: m.Stream + 1, MidStream: m.MidStream}
	announced := func(ip string, port int) {
		if ep, ok := endpoint(ip, port); ok {
			o.Rank = ep
		} else {
			o.Rank, o.RankFromConn = m.Src, true
		}
	}
	switch w := m.Wire.(type) {
	case *wire.TransferInfo:
		o.Kind, o.Room, o.Required = TransferInfo, w.RoomID, int(w.RequiredDstInfoNum)
		announced(w.DecodeIP, w.DecodePort)
	case *wire.MooncakeTransferInfo:
		o.Kind, o.Room, o.Required = TransferInfo, w.RoomID, int(w.RequiredDstInfoNum)
		announced(w.DecodeIP, w.DecodePort)
	case *wire.Abort:
		o.Kind, o.Room, o.Rank, o.RankFromConn = Abort, w.RoomID, m.Src, true
		if w.Frames == 4 {
			o.RankFromConn = false
			announced(w.DecodeIP, w.DecodePort)
		}
	case *wire.AbortAck:
		o.Kind, o.Room, o.Rank = AbortAck, w.RoomID, m.Dst
	default:
		return o, false
	}
	return o, true
}

// FromEvent turns a log event into an observation; ok is false for events
// of unknown names and for decode-side events (the wire shows decode).
func FromEvent(e *eventlog.Event) (o Observation, ok bool) {
	if !e.Known() || e.Role == "decode" {
		return o, false
	}
	o = Observation{Time: e.Time, Line: e.Line, Room: e.Room, Event: e.Event}
	switch e.Event {
	case eventlog.Status:
		o.Kind, o.From, o.To = Status, e.From, e.To
	case eventlog.SenderCreate:
		o.Kind = SenderCreate
	case eventlog.Poll:
		o.Kind, o.Status, o.Queue = Poll, e.Status, e.Queue
	case eventlog.Clear:
		o.Kind = Clear
	default:
		o.Kind = Other
	}
	return o, true
}

// Merge merges wire and log observations, each in its own order, by
// time: a log observation goes before a wire one only when it is strictly
// earlier, so each source's order is kept even where clocks tie.
func Merge(wireObs, logObs []Observation) []Observation {
	out := make([]Observation, 0, len(wireObs)+len(logObs))
	i, j := 0, 0
	for i < len(wireObs) || j < len(logObs) {
		if j < len(logObs) && (i == len(wireObs) || logObs[j].Time.Before(wireObs[i].Time)) {
			out = append(out, logObs[j])
			j++
		} else {
			out = append(out, wireObs[i])
			i++
		}
	}
	return out
}
