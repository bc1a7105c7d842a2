package model_test

import (
	"strings"
	"testing"
)

// FuzzReadState: whatever the bytes, reading a state (ITF or plain JSON)
// never panics; what reads back as a state writes and reads back the
// same.
func FuzzReadState(f *testing.F) {
	_, c := variant(f, "upstream-reuse")
	s := c.Init()
	var b strings.Builder
	c.WriteITF(&b, &s, 0)
	f.Add([]byte(b.String()), true)
	f.Add([]byte(`{"request_status":["Absent"],"transfer_infos":[[]],"tombstones":[],"outstanding":[0],"ack_target":[[]],"bootstrap_alive":true,"prefill_crashed":false,"sender":["NoSender","NoSender"],"wqueue":[{"req":0,"left":1}],"posted":[false,false],"chan":[[],[]],"ack_chan":[[],[]],"ti_sent":[[],[]],"aborted":[false,false],"pages_released":[[],[]]}`), false)
	f.Add([]byte(`{"chan":[[{"type":"ABORT","room":0,"rank":7}]]}`), false)
	f.Fuzz(func(t *testing.T, data []byte, itf bool) {
		read := c.ReadState
		if itf {
			read = c.ReadITFState
		}
		s, err := read(data)
		if err != nil {
			return
		}
		var b strings.Builder
		c.WriteITF(&b, &s, 0)
		back, err := c.ReadITFState([]byte(b.String()))
		if err != nil || !back.Equal(&s) {
			t.Fatalf("%s read as a state that does not read back (%v)", data, err)
		}
	})
}
