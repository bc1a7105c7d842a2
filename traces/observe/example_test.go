package observe_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/roomspec/roomspec/traces/observe"
)

// The same room id sent to two prefill endpoints is two rooms, each
// naming its decode ranks in order of appearance; a log line goes to the
// room of the log's endpoint.
func ExampleGrouper() {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p1, p2 := netip.MustParseAddrPort("10.0.1.1:5000"), netip.MustParseAddrPort("10.0.1.2:5000")
	d1, d2 := netip.MustParseAddrPort("10.0.0.1:17000"), netip.MustParseAddrPort("10.0.0.2:17000")
	ti := func(ms int, rank, prefill netip.AddrPort) observe.Observation {
		return observe.Observation{Kind: observe.TransferInfo, Time: t0.Add(time.Duration(ms) * time.Millisecond), Room: 7,
			Wire: observe.Wire{Frame: ms, Src: rank, Dst: prefill, Rank: rank, Required: 2}}
	}
	wire := []observe.Observation{ti(1, d1, p1), ti(2, d2, p2), ti(3, d2, p1)}
	log := []observe.Observation{{Kind: observe.SenderCreate, Time: t0.Add(2500 * time.Microsecond), Room: 7, Log: observe.Log{Line: 1}}}
	g := observe.NewGrouper[[]string](observe.GroupOptions{}, nil)
	for _, o := range observe.Merge(wire, log) {
		rm, _ := g.Observe(&o)
		rank := ""
		if o.Kind.Wire() {
			d := g.Rank(rm, &o)
			if d < 0 {
				d = g.AddRank(rm, &o)
			}
			rank = fmt.Sprintf(" (rank %d)", d)
		}
		rm.Data = append(rm.Data, o.Evidence()+rank)
	}
	g.Drain(func(rm *observe.Room[[]string]) {
		fmt.Println("room", rm.ID, "at", g.Endpoint(rm), rm.Data)
	})
	// Output:
	// room 7 at 10.0.1.2:5000 [frame 2 (rank 0)]
	// room 7 at 10.0.1.1:5000 [frame 1 (rank 0) log line 1 frame 3 (rank 1)]
}
