package judge_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// A room aborted by decode before it sent any TransferInfo, judged from
// the wire alone: under the fork variant some completion of the unseen
// steps pins it, under the fix none does. The verdict is given when the
// capture ends (Finish), and read from Ready.
func Example() {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	obs := []observe.Observation{
		{Kind: observe.Abort, Time: t0, Room: 7, Wire: observe.Wire{Frame: 10, Rank: netip.MustParseAddrPort("10.0.0.1:17000")}},
		{Kind: observe.Abort, Time: t0, Room: 7, Wire: observe.Wire{Frame: 11, Rank: netip.MustParseAddrPort("10.0.0.2:17000")}},
	}
	for _, variant := range []string{"fork-90a52f44a", "fixed"} {
		c, err := spec.Compiled(variant)
		if err != nil {
			panic(err)
		}
		j, err := judge.New(c, judge.Options{})
		if err != nil {
			panic(err)
		}
		for _, o := range obs {
			j.Step(o)
		}
		j.Finish(t0.Add(time.Minute))
		for _, ev := range j.Ready() {
			fmt.Printf("%s: %s %s - %s\n", variant, ev.Kind, ev.Room.Verdict, ev.Room.Reason)
		}
	}
	// Output:
	// fork-90a52f44a: verdict at-risk - some completion of the unseen steps (2 steps) pins the room
	// fixed: verdict predicted-released - every completion of prefill's unseen steps releases the room under fixed: a prediction, the release is not observed (only -log shows it)
}
