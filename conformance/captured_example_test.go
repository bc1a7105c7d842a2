package conformance_test

import (
	"fmt"
	"path/filepath"

	"github.com/roomspec/roomspec/conformance"
)

// Room 101 of the storm-fork scenario was aborted before decode sent its
// TransferInfo; under the fork's code some placement of prefill's own
// steps around the captured ABORT pins it.
func ExampleRunCaptured() {
	impl, variant, _ := conformance.Builtin("fork-90a52f44a")
	c, _ := conformance.LoadVariant(variant)
	obs, err := conformance.LoadCapture(filepath.Join("..", "traces", "testdata", "scenarios", "storm-fork.pcap"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, room := range conformance.CapturedRooms(c, "storm-fork.pcap", obs) {
		if room.Room != 101 {
			continue
		}
		res, err := conformance.RunCaptured(impl, "fork-90a52f44a", variant, c, room, conformance.CapturedOptions{Seed: 1})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Property, "fails; schedule:")
		for i, a := range res.Schedule.Seq {
			frame := "internal"
			if ev := res.Schedule.Event[i]; ev >= 0 {
				frame = fmt.Sprint("frame ", room.Events[ev].Frame)
			}
			fmt.Println(" ", c.ActionString(a), "--", frame)
		}
	}
	// Output:
	// liveness fails; schedule:
	//   DecodeAbort(<<r, 1>>) -- frame 40
	//   BootstrapRecvAbort(d1) -- internal
	//   BootstrapRecvAbort(d2) -- internal
}
