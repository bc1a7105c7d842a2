package watch_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/watch"
	"github.com/roomspec/roomspec/traces/source"
)

// An abort storm under the fork variant, streamed as tcpdump -w - would
// stream it and watched from the wire alone: each aborted room is reported
// at-risk the moment capture time passes its deadline, and given its final
// verdict when the stream ends. (The wall clock is stopped here, so that
// capture time moves only with the packets.)
func ExampleRun() {
	c, err := spec.Compiled("fork-90a52f44a")
	if err != nil {
		panic(err)
	}
	f, err := os.Open("../../testdata/scenarios/storm-fork.pcap")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	src, err := source.NewStream(f)
	if err != nil {
		panic(err)
	}
	wall := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	counts := map[judge.EventKind]int{}
	res, err := watch.Run(context.Background(), watch.Config{Variant: c, Source: src,
		Judge: judge.Options{Deadline: 2 * time.Second}, Now: func() time.Time { return wall },
		OnEvent: func(ev judge.Event) { counts[ev.Kind]++ }})
	if err != nil {
		panic(err)
	}
	fmt.Println(counts[judge.EventAtRisk], "at-risk events,", counts[judge.EventVerdict], "verdicts")
	fmt.Println(res.Report.Summary())
	// Output:
	// 8 at-risk events, 8 verdicts
	// 12 rooms, 8 aborted: 0 satisfied, 0 predicted-released, 0 violated, 0 inconclusive, 8 at-risk, 0 invalid (deadline 2s, capture end 2026-12-01T16:08:47.280740000Z, search bound 24 unseen steps, 50000 states)
}
