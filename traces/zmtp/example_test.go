package zmtp_test

import (
	"encoding/binary"
	"fmt"

	"github.com/roomspec/roomspec/traces/zmtp"
)

// printer is a Handler that prints what the decoder finds.
type printer struct{}

func (printer) Greeting(g zmtp.Greeting) {
	fmt.Printf("greeting: ZMTP %s %s (frame %d..%d)\n", g.Version(), g.Mechanism, g.First.Frame, g.Last.Frame)
}

func (printer) Command(c zmtp.Command) {
	st, _ := c.Property("Socket-Type")
	fmt.Printf("command: %s Socket-Type=%s\n", c.Name, st)
}

func (printer) Message(m zmtp.Message) {
	fmt.Printf("message: %q (frames %d..%d)\n", m.Parts, m.First.Frame, m.Last.Frame)
}

func (printer) Diagnostic(d zmtp.Diagnostic) { fmt.Println("diagnostic:", d) }

// Decode one direction of a connection whose bytes arrive in two TCP
// segments, the second cutting a message in two.
func Example() {
	// A PUSH peer's greeting (ZMTP 3.1, NULL), its READY and one
	// two-part message, encoded per RFC 37.
	stream := make([]byte, 64)
	stream[0], stream[9], stream[10], stream[11] = 0xFF, 0x7F, 3, 1
	copy(stream[12:], "NULL")
	meta := append([]byte{11}, "Socket-Type"...)
	meta = binary.BigEndian.AppendUint32(meta, 4)
	meta = append(meta, "PUSH"...)
	body := append(append([]byte{5}, "READY"...), meta...)
	stream = append(stream, 0x04, byte(len(body)))
	stream = append(stream, body...)
	stream = append(stream, 0x01, 5, 'A', 'B', 'O', 'R', 'T') // MORE
	stream = append(stream, 0x00, 2, '4', '2')                // last part

	d := zmtp.NewDecoder(printer{}, zmtp.Options{})
	cut := len(stream) - 3
	d.Feed(stream[:cut], zmtp.Mark{Frame: 4}, true)
	d.Feed(stream[cut:], zmtp.Mark{Frame: 5}, true)
	d.Close(zmtp.Mark{Frame: 6})
	fmt.Println("synced:", d.Synced(), "peer:", d.PeerSocketType())
	// Output:
	// greeting: ZMTP 3.1 NULL (frame 4..4)
	// command: READY Socket-Type=PUSH
	// message: ["ABORT" "42"] (frames 4..5)
	// synced: true peer: PUSH
}

// A capture that began in the middle of a connection: the decoder looks
// for frame boundaries, says where it found them, and emits only whole
// messages from there on. It needs ResyncChain (6) non-empty frames before
// the boundary and as many after it, so here the rest of the first message
// and two more are skipped.
func ExampleOptions_midStream() {
	var stream []byte
	for i := range 6 {
		room := fmt.Sprint(1000 + i)
		stream = append(stream, 0x01, 5, 'A', 'B', 'O', 'R', 'T', 0x01, byte(len(room)))
		stream = append(stream, room...)
		stream = append(stream, 0x01, 8, '1', '0', '.', '0', '.', '0', '.', '7', 0x00, 5, '5', '0', '0', '0', '1')
	}
	d := zmtp.NewDecoder(printer{}, zmtp.Options{MidStream: true})
	d.Feed(stream[20:], zmtp.Mark{Frame: 1}, true) // starts inside the first message
	d.Close(zmtp.Mark{Frame: 2})
	// Output:
	// diagnostic: zmtp: frame 1: resynced: frame boundaries found at offset 70 after skipping 70 bytes
	// message: ["ABORT" "1003" "10.0.0.7" "50001"] (frames 1..1)
	// message: ["ABORT" "1004" "10.0.0.7" "50001"] (frames 1..1)
	// message: ["ABORT" "1005" "10.0.0.7" "50001"] (frames 1..1)
}
