package wire

import (
	"encoding/json"
	"strconv"
)

// AppendJSON appends json.Marshal(m) to b. The commonest kinds are written
// by hand, byte for byte as encoding/json writes them (field order, null
// for nil pointers and slices, escaping), because reflection dominated the
// cost of JSON output; the other kinds go through json.Marshal.
func AppendJSON(b []byte, m Message) ([]byte, error) {
	switch m := m.(type) {
	case *TransferInfo:
		b = append(b, `{"room":`...)
		b = strconv.AppendInt(b, m.RoomID, 10)
		b = append(b, `,"decode_ip":`...)
		b = AppendJSONString(b, m.DecodeIP)
		b = append(b, `,"decode_port":`...)
		b = strconv.AppendInt(b, int64(m.DecodePort), 10)
		b = append(b, `,"agent_name":`...)
		b = AppendJSONString(b, m.AgentName)
		b = append(b, `,"kv_page_indices":`...)
		b = appendJSONInts(b, m.KVPageIndices)
		b = append(b, `,"aux_index":`...)
		b = strconv.AppendInt(b, m.AuxIndex, 10)
		b = append(b, `,"required_dst_info_num":`...)
		b = strconv.AppendInt(b, m.RequiredDstInfoNum, 10)
		b = append(b, `,"state_indices":`...)
		if m.StateIndices == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, l := range m.StateIndices {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONInts(b, l)
			}
			b = append(b, ']')
		}
		b = append(b, `,"decode_prefix_len":`...)
		b = appendJSONIntPtr(b, m.DecodePrefixLen)
		b = append(b, `,"is_dummy":`...)
		b = strconv.AppendBool(b, m.IsDummy)
		b = append(b, `,"frames":`...)
		b = strconv.AppendInt(b, int64(m.Frames), 10)
		return append(b, '}'), nil
	case *Abort:
		b = append(b, `{"room":`...)
		b = strconv.AppendInt(b, m.RoomID, 10)
		if m.DecodeIP != "" {
			b = append(b, `,"decode_ip":`...)
			b = AppendJSONString(b, m.DecodeIP)
		}
		if m.DecodePort != 0 {
			b = append(b, `,"decode_port":`...)
			b = strconv.AppendInt(b, int64(m.DecodePort), 10)
		}
		b = append(b, `,"frames":`...)
		b = strconv.AppendInt(b, int64(m.Frames), 10)
		return append(b, '}'), nil
	case *AbortAck:
		b = append(b, `{"room":`...)
		b = strconv.AppendInt(b, m.RoomID, 10)
		b = append(b, `,"prefill_rank":`...)
		b = appendJSONIntPtr(b, m.PrefillRank)
		b = append(b, `,"frames":`...)
		b = strconv.AppendInt(b, int64(m.Frames), 10)
		return append(b, '}'), nil
	}
	j, err := json.Marshal(m)
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

func appendJSONInts[T elem](b []byte, v []T) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

func appendJSONIntPtr(b []byte, p *int64) []byte {
	if p == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *p, 10)
}

// AppendJSONString appends s quoted as encoding/json quotes it: plain
// printable ASCII as is, anything else (escapes, HTML-sensitive
// characters, other bytes) by json.Marshal itself. Decoded messages are
// rendered with it, here and in traces/decode.
func AppendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
