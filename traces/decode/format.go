package decode

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/traces/capture"
	"github.com/roomspec/roomspec/traces/wire"
)

// TimeFormat is RFC 3339 with all nine fractional digits, so that
// timestamps of one capture line up and sort as text.
const TimeFormat = "2006-01-02T15:04:05.000000000Z07:00"

// Positions turns the frame numbers of a capture into positions: a
// *capture.Files, whose frame numbers count over several files. Renderings
// given nil print the frame numbers as they are.
type Positions interface {
	Position(frame int) capture.Position
}

func position(at Positions, frame int) capture.Position {
	if at == nil {
		return capture.Position{Frame: frame}
	}
	return at.Position(frame)
}

// JSON renders m as one JSON object: file (when at names one), frame,
// first_frame (and first_file when the message began in an earlier file),
// time, src, dst, socket types, kind, room (null when the kind has none),
// fields (the decoded message) and parts (base64 of each frame body).
func (m *Message) JSON(at Positions) ([]byte, error) {
	return m.AppendJSON(nil, at)
}

// AppendJSON appends m's JSON rendering to b. It is written by hand, in the
// field order and with the escaping encoding/json would use (the tests
// hold it to json.Marshal of the equivalent struct), the fields object by
// wire.AppendJSON.
func (m *Message) AppendJSON(b []byte, at Positions) ([]byte, error) {
	start := len(b)
	pos, first := position(at, m.Frame), position(at, m.FirstFrame)
	b = append(b, '{')
	if pos.File != "" {
		b = append(b, `"file":`...)
		b = wire.AppendJSONString(b, pos.File)
		b = append(b, ',')
	}
	b = append(b, `"frame":`...)
	b = strconv.AppendInt(b, int64(pos.Frame), 10)
	if first.File != pos.File {
		b = append(b, `,"first_file":`...)
		b = wire.AppendJSONString(b, first.File)
	}
	b = append(b, `,"first_frame":`...)
	b = strconv.AppendInt(b, int64(first.Frame), 10)
	b = append(b, `,"time":"`...)
	b = m.Time.AppendFormat(b, TimeFormat)
	b = append(b, `","src":"`...)
	b = m.Src.AppendTo(b)
	b = append(b, `","dst":"`...)
	b = m.Dst.AppendTo(b)
	b = append(b, '"')
	if m.SrcSocket != "" {
		b = append(b, `,"src_socket":`...)
		b = wire.AppendJSONString(b, m.SrcSocket)
	}
	if m.DstSocket != "" {
		b = append(b, `,"dst_socket":`...)
		b = wire.AppendJSONString(b, m.DstSocket)
	}
	b = append(b, `,"kind":`...)
	b = wire.AppendJSONString(b, string(m.Wire.Kind()))
	b = append(b, `,"room":`...)
	if room, ok := m.Wire.Room(); ok {
		b = strconv.AppendInt(b, room, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"fields":`...)
	b, err := wire.AppendJSON(b, m.Wire)
	if err != nil {
		return b[:start], fmt.Errorf("decode: frame %d: fields: %w", m.Frame, err)
	}
	b = append(b, `,"parts":[`...)
	for i, p := range m.Parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, p)
		b = append(b, '"')
	}
	return append(b, "]}"...), nil
}

// Text renders m as one line: frame (FILE:FRAME when at names a file),
// time, src → dst, socket types, kind, room and the main fields.
func (m *Message) Text(at Positions) string {
	return string(m.AppendText(make([]byte, 0, 256), at))
}

// AppendText appends m's Text rendering to b, without the allocations of
// building a string: what a caller printing many messages uses.
func (m *Message) AppendText(b []byte, at Positions) []byte {
	if pos := position(at, m.Frame); pos.File != "" {
		b = append(b, pos.File...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(pos.Frame), 10)
	} else {
		b = strconv.AppendInt(b, int64(m.Frame), 10)
	}
	b = append(b, ' ')
	b = m.Time.AppendFormat(b, TimeFormat)
	b = append(b, ' ')
	b = m.Src.AppendTo(b)
	b = append(b, " → "...)
	b = m.Dst.AppendTo(b)
	b = append(b, ' ')
	b = append(b, orQ(m.SrcSocket)...)
	b = append(b, "→"...)
	b = append(b, orQ(m.DstSocket)...)
	b = append(b, ' ')
	b = append(b, m.Wire.Kind()...)
	s := m.Wire.Summary()
	if room, ok := m.Wire.Room(); ok {
		b = append(b, " room="...)
		r := len(b) - len("room=")
		b = strconv.AppendInt(b, room, 10)
		// The summaries of most kinds lead with the room already.
		if rs := b[r:]; len(s) >= len(rs) && s[:len(rs)] == string(rs) {
			s = s[len(rs):]
		}
		s = strings.TrimPrefix(s, " ")
	}
	if s != "" {
		b = append(b, ' ')
		b = append(b, s...)
	}
	return b
}

func orQ(s string) string {
	if s == "" {
		return "?"
	}
	return s
}
