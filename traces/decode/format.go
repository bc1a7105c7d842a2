package decode

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// TimeFormat is RFC 3339 with all nine fractional digits, so that
// timestamps of one capture line up and sort as text.
const TimeFormat = "2006-01-02T15:04:05.000000000Z07:00"

// jsonMessage is the JSON form of a Message; the field names are the
// CLI's documented output.
type jsonMessage struct {
	File       string          `json:"file,omitempty"`
	Frame      int             `json:"frame"`
	FirstFrame int             `json:"first_frame"`
	Time       string          `json:"time"`
	Src        string          `json:"src"`
	Dst        string          `json:"dst"`
	SrcSocket  string          `json:"src_socket,omitempty"`
	DstSocket  string          `json:"dst_socket,omitempty"`
	Kind       string          `json:"kind"`
	Room       *int64          `json:"room"`
	Fields     json.RawMessage `json:"fields"`
	Parts      []string        `json:"parts"`
}

// JSON renders m as one JSON object: frame, first_frame, time, src, dst,
// socket types, kind, room (null when the kind has none), fields (the
// decoded message) and parts (base64 of each frame body). file is
// included when not empty.
func (m *Message) JSON(file string) ([]byte, error) {
	fields, err := json.Marshal(m.Wire)
	if err != nil {
		return nil, fmt.Errorf("decode: frame %d: fields: %w", m.Frame, err)
	}
	j := jsonMessage{
		File:       file,
		Frame:      m.Frame,
		FirstFrame: m.FirstFrame,
		Time:       m.Time.Format(TimeFormat),
		Src:        m.Src.String(),
		Dst:        m.Dst.String(),
		SrcSocket:  m.SrcSocket,
		DstSocket:  m.DstSocket,
		Kind:       string(m.Wire.Kind()),
		Fields:     fields,
		Parts:      make([]string, len(m.Parts)),
	}
	if room, ok := m.Wire.Room(); ok {
		j.Room = &room
	}
	for i, p := range m.Parts {
		j.Parts[i] = base64.StdEncoding.EncodeToString(p)
	}
	return json.Marshal(j)
}

// Text renders m as one line: frame, time, src → dst, socket types, kind,
// room and the main fields.
func (m *Message) Text() string {
	return string(m.AppendText(make([]byte, 0, 256)))
}

// AppendText appends m's Text rendering to b, without the allocations of
// building a string: what a caller printing many messages uses.
func (m *Message) AppendText(b []byte) []byte {
	b = strconv.AppendInt(b, int64(m.Frame), 10)
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
