package capture_test

import (
	"fmt"
	"os"

	"github.com/roomspec/roomspec/traces/capture"
)

// Reassemble a capture into per-direction byte counts.
func ExampleRun() {
	f, err := os.Open("../testdata/captures/sll2.pcap")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	bytes := map[int]int{}
	res, err := capture.Run(f, capture.Options{}, func(e *capture.Event) {
		if e.Kind == capture.EventData {
			bytes[e.Half.ID] += len(e.Data)
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Format, res.Stats.Frames, "frames,", res.Stats.Connections, "connections,", len(bytes), "directions with data")
	// Output: pcap 45 frames, 3 connections, 6 directions with data
}
