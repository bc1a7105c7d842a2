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

// Print every message as the CLI does, reusing the memory of each message
// for the next one; keep a Clone of what must outlive the callback.
func ExampleOptions_reuse() {
	f, err := os.Open("../testdata/captures/sll2.pcap")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	var line []byte
	var firstAbort *decode.Message
	_, err = decode.Run(f, decode.Options{Reuse: true}, func(m *decode.Message) {
		line = m.AppendText(line[:0], nil)
		if m.Wire.Kind() == "Abort" {
			fmt.Printf("%s\n", line)
		}
		if firstAbort == nil && m.Wire.Kind() == "Abort" {
			firstAbort = m.Clone()
		}
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	room, _ := firstAbort.Wire.Room()
	fmt.Println("first abort: room", room, "in frame", firstAbort.Frame)
	// Output:
	// 40 2026-11-29T13:42:40.721824000Z 127.0.0.1:36912 → 127.0.0.1:25483 PUSH→PULL Abort room=903 decode=10.3.0.1:26970
	// 40 2026-11-29T13:42:40.721824000Z 127.0.0.1:36912 → 127.0.0.1:25483 PUSH→PULL Abort room=907 decode=10.3.0.1:26970
	// 40 2026-11-29T13:42:40.721824000Z 127.0.0.1:36912 → 127.0.0.1:25483 PUSH→PULL Abort room=911 decode=10.3.0.1:26970
	// first abort: room 903 in frame 40
}
