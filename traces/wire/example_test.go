package wire_test

import (
	"encoding/json"
	"fmt"

	"github.com/roomspec/roomspec/traces/wire"
)

func ExampleDecode() {
	// An ABORT as SGLang's decode side sends it, and a Mooncake status.
	for _, parts := range [][][]byte{
		{[]byte("ABORT"), []byte("4242"), []byte("10.0.0.2"), []byte("41000")},
		{[]byte("4242"), []byte("0"), []byte("1")},
		{[]byte("ABORT"), []byte("room?")},
	} {
		m := wire.Decode(parts)
		room, ok := m.Room()
		fields, _ := json.Marshal(m)
		fmt.Printf("%s %s room=%d,%v %s\n  %s\n", m.Kind(), m.Kind().Direction(), room, ok, fields, m.Summary())
	}
	// Output:
	// Abort decode->prefill room=4242,true {"room":4242,"decode_ip":"10.0.0.2","decode_port":41000,"frames":4}
	//   room=4242 decode=10.0.0.2:41000
	// MooncakeStatus prefill->decode room=4242,true {"room":4242,"status":0,"status_name":"Failed","prefill_rank":1,"frames":3}
	//   room=4242 status=Failed prefill_rank=1
	// Unknown  room=0,false {"form":"Abort","reason":"frame 1 (room): not an ASCII decimal integer: \"room?\""}
	//   malformed Abort (2 frames): frame 1 (room): not an ASCII decimal integer: "room?"
}

// A Decoder decodes a stream of messages to the same values as Decode,
// without allocating for each; with Reuse, a value lasts until the next
// call.
func ExampleDecoder() {
	d := wire.Decoder{Reuse: true}
	for _, room := range []string{"7", "8"} {
		m := d.Decode([][]byte{[]byte("ABORT_ACK"), []byte(room), []byte("0")})
		fmt.Println(m.Kind(), m.Summary())
	}
	// Output:
	// AbortAck room=7 prefill_rank=0
	// AbortAck room=8 prefill_rank=0
}
