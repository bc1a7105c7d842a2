package captured_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/captured"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/observe"
)

// Room 101 of the storm-fork scenario was aborted before decode sent its
// TransferInfo; under the fork's code some placement of prefill's own
// steps around the captured ABORT pins it.
func ExampleRun() {
	impl, variant, _ := conformance.Builtin("fork-90a52f44a")
	c, _ := conformance.LoadVariant(variant)
	f, err := os.Open(filepath.Join("..", "..", "traces", "testdata", "scenarios", "storm-fork.pcap"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	var rooms []*captured.Room
	st := captured.NewStream(c, "storm-fork.pcap", 0, func(r *captured.Room) { rooms = append(rooms, r) })
	if _, err := observe.ReadCapture(f, decode.Options{}, 0, func(o observe.Observation) { st.Observe(&o) }, nil); err != nil {
		fmt.Println(err)
		return
	}
	st.Flush()
	for _, room := range rooms {
		if room.Room != 101 {
			continue
		}
		res, err := captured.Run(conformance.Target{Name: "fork-90a52f44a", Impl: impl, Config: c}, room, captured.Options{Seed: 1})
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
