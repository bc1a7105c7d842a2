package captured_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/captured"
	"github.com/roomspec/roomspec/spec"
)

// Room 101 of the storm-fork scenario was aborted before decode sent its
// TransferInfo; under the fork's code some schedule of prefill's own
// steps around the captured ABORTs pins it.
func ExampleRun() {
	impl, variant, _ := conformance.Builtin("fork-90a52f44a")
	c, _ := spec.Compiled(variant)
	f, err := os.Open(filepath.Join("..", "..", "traces", "testdata", "scenarios", "storm-fork.pcap"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	rooms, err := captured.Rooms(c, "storm-fork.pcap", f, nil, captured.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, room := range rooms {
		if room.Room != 101 {
			continue
		}
		res, err := captured.Run(conformance.Target{Name: "fork-90a52f44a", Impl: impl, Config: c}, room, captured.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(captured.Summary(res)[:len("storm-fork.pcap room 101: fork-90a52f44a: PINNED (liveness fails")])
		var b strings.Builder
		captured.WriteTable(&b, res)
		fmt.Print(b.String())
	}
	// Output:
	// storm-fork.pcap room 101: fork-90a52f44a: PINNED (liveness fails
	// capture storm-fork.pcap room 101: liveness of fork-90a52f44a (variant fork-90a52f44a) fails
	// #   source                               frame  time             action
	// 1   capture                              40,42  16:08:43.449790  DecodeAbort(<<r, 1>>)
	// 2   unseen (after the last observation)                          BootstrapRecvAbort(d1)
	// 3   unseen (after the last observation)                          BootstrapRecvAbort(d2)
	// q1  fair quiescence                                              SchedulerCreateSender(<<r, 1>>)
	// after fair quiescence (2 rounds, bound 64), aborted requests not terminated: [<<r, 1>>]
}
