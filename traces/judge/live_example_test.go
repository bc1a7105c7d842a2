package judge_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// A room aborted by decode on both ranks, watched from the wire alone
// under the fork variant, as roomspec watch drives the Judge: the live
// sources go through a merge (observe.Live), which hands the judge the
// observations and the capture time. Nothing more comes, and when the
// room's deadline passes on capture time (the wall clock carries it on
// while the wire is silent) the Judge reports it at-risk (Hold, 250 ms,
// after the wall clock passed it, at the next tick); the source's end
// gives its final verdict, judged at the capture's last packet as replay
// judges it.
func Example_overdue() {
	text, err := spec.Config("fork-90a52f44a")
	if err != nil {
		panic(err)
	}
	c, err := model.LoadConfig(text)
	if err != nil {
		panic(err)
	}
	j, err := judge.New(c, judge.Options{Deadline: 2 * time.Second, Overdue: true})
	if err != nil {
		panic(err)
	}
	live := observe.NewLive(observe.LiveOptions{})
	pump := func() {
		j.Feed(live.Ready())
		for _, ev := range j.Ready() {
			fmt.Printf("%s: room %d %s at abort+%v\n", ev.Kind, ev.Room.Room, ev.Room.Verdict, ev.At.Sub(ev.Room.AbortTime))
		}
	}
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	prefill := netip.MustParseAddrPort("10.0.0.9:5555")
	for i, rank := range []string{"10.0.0.1:17000", "10.0.0.2:17000"} {
		live.Record(t0, t0) // the packet carrying the ABORT, read at once
		live.Wire(observe.Observation{Kind: observe.Abort, Time: t0, Room: 7, Wire: observe.Wire{Frame: i + 1,
			Rank: netip.MustParseAddrPort(rank), Dst: prefill}}, t0)
		pump()
	}
	// The wire falls silent; the wall clock goes on.
	for wall := t0; wall.Before(t0.Add(3 * time.Second)); wall = wall.Add(500 * time.Millisecond) {
		live.Tick(wall)
		pump()
	}
	live.Flush()
	j.Feed(live.Ready())
	rep := j.Finish(live.Last())
	pump()
	fmt.Println(rep.Aborted, "aborted,", rep.Count(judge.AtRisk), "at-risk")
	// Output:
	// at-risk: room 7 at-risk at abort+2.25s
	// verdict: room 7 at-risk at abort+0s
	// 1 aborted, 1 at-risk
}
