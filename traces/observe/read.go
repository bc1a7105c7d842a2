package observe

import (
	"errors"
	"io"
	"net/netip"

	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/eventlog"
	"github.com/roomspec/roomspec/traces/wire"
)

// FromMessage turns a decoded message into an observation; ok is false for
// messages of no room's lifecycle (registration, staging, unknown).
func FromMessage(m *decode.Message) (o Observation, ok bool) {
	o = Observation{Time: m.Time, Wire: Wire{Frame: m.Frame, Src: m.Src, Dst: m.Dst, Stream: m.Stream + 1, MidStream: m.MidStream}}
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
		o.Kind, o.Room, o.Rank, o.AckFrames = AbortAck, w.RoomID, m.Dst, w.Frames
	default:
		return o, false
	}
	return o, true
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

// FromEvent turns a log event into an observation; ok is false for events
// of unknown names and for decode-side events (the wire shows decode).
func FromEvent(e *eventlog.Event) (o Observation, ok bool) {
	if !e.Known() || e.Role == "decode" {
		return o, false
	}
	o = Observation{Time: e.Time, Room: e.Room, Log: Log{Line: e.Line, Event: e.Event, Doubt: e.Doubt}}
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

// ReadCapture decodes a capture and calls emit with each observation, in
// capture order. Stream numbers are offset by streams, so that several
// files read as consecutive parts of one capture keep their connections
// apart (pass the Streams of the summaries of the files before).
func ReadCapture(r io.Reader, opt decode.Options, streams int, emit func(Observation), diag func(decode.Diagnostic)) (decode.Summary, error) {
	if diag == nil {
		diag = func(decode.Diagnostic) {}
	}
	return decode.Run(r, opt, func(m *decode.Message) {
		if o, ok := FromMessage(m); ok {
			o.Stream += streams
			emit(o)
		}
	}, diag)
}

// LogReader reads a prefill event log as observations, one line at a
// time, so that the log is never held in memory.
type LogReader struct {
	rd *eventlog.Reader
}

// NewLogReader returns a LogReader reading from r.
func NewLogReader(r io.Reader) *LogReader { return &LogReader{rd: eventlog.NewReader(r)} }

// Stats says what the reader did about a log that is not quite right
// (eventlog.Stats: a byte order mark, repeated lines, lines out of order).
func (l *LogReader) Stats() eventlog.Stats { return l.rd.Stats() }

// Next returns the next observation, io.EOF at the end of the log, or an
// error naming the line. After a malformed line (eventlog.ErrSyntax),
// Next may be called again to go on with the following line. Events that
// are no observation of prefill (unknown names, decode's) are skipped.
func (l *LogReader) Next() (Observation, error) {
	for {
		ev, err := l.rd.Next()
		if err != nil {
			return Observation{}, err
		}
		if o, ok := FromEvent(&ev); ok {
			return o, nil
		}
	}
}

// ReadLog reads every observation of a log; it stops at the first error.
func ReadLog(r io.Reader) ([]Observation, error) {
	l := NewLogReader(r)
	var out []Observation
	for {
		o, err := l.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, o)
	}
}
