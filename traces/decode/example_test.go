package decode_test

import (
	"fmt"
	"os"

	"github.com/roomspec/roomspec/traces/decode"
)

// Decode a capture and print the aborts it carries.
func ExampleRun() {
	f, err := os.Open("../testdata/captures/sll2.pcap")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	sum, err := decode.Run(f, decode.Options{}, func(m *decode.Message) {
		if m.Wire.Kind() == "Abort" {
			room, _ := m.Wire.Room()
			fmt.Printf("frame %d: %s aborts room %d\n", m.Frame, m.Src, room)
		}
	}, func(d decode.Diagnostic) { fmt.Println(d) })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Messages, "messages")
	// Output:
	// frame 40: 127.0.0.1:36912 aborts room 903
	// frame 40: 127.0.0.1:36912 aborts room 907
	// frame 40: 127.0.0.1:36912 aborts room 911
	// 32 messages
}
