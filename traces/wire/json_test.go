package wire

import (
	"encoding/json"
	"testing"
)

// TestAppendJSONMatchesMarshal holds the hand-written encodings to
// json.Marshal on decoded seeds and on values with every optional field
// absent, empty and present, and strings that need escaping.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	one := int64(-1)
	var msgs []Message
	for _, s := range []string{"", "10.0.0.1", "a\"b\\c<d>&e\x01\x7f"} {
		for _, pages := range [][]int32{nil, {}, {-5, 2147483647}} {
			for _, state := range [][][]int32{nil, {}, {nil, {}, {1, -2}}} {
				msgs = append(msgs, &TransferInfo{RoomID: -9223372036854775808, DecodeIP: s, AgentName: s,
					KVPageIndices: pages, StateIndices: state, DecodePrefixLen: &one, IsDummy: true, Frames: 11},
					&TransferInfo{DecodeIP: s, KVPageIndices: pages, StateIndices: state})
			}
		}
		msgs = append(msgs, &Abort{RoomID: 1, DecodeIP: s, DecodePort: 0}, &Abort{RoomID: 2, DecodeIP: s, DecodePort: 65535, Frames: 4},
			&AbortAck{}, &AbortAck{RoomID: 3, PrefillRank: &one, Frames: 3})
	}
	for _, parts := range seedMessages() {
		msgs = append(msgs, Decode(parts))
	}
	for _, m := range msgs {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := AppendJSON([]byte("x"), m)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "x"+string(want) {
			t.Errorf("%T:\n got %s\nwant x%s", m, got, want)
		}
	}
}
