package replay_test

import (
	"fmt"
	"os"
	"time"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/judge/replay"
)

// An abort storm captured under the fork variant, replayed with its
// prefill event log: each aborted room's verdict as it is decided, then
// the counts.
func Example() {
	text, err := spec.Config("fork-90a52f44a")
	if err != nil {
		panic(err)
	}
	c, err := model.LoadConfig(text)
	if err != nil {
		panic(err)
	}
	capture, err := os.Open("../../testdata/scenarios/storm-fork.pcap")
	if err != nil {
		panic(err)
	}
	defer capture.Close()
	log, err := os.Open("../../testdata/scenarios/storm-fork.events.jsonl")
	if err != nil {
		panic(err)
	}
	defer log.Close()
	in := replay.Input{Captures: []replay.Capture{replay.Reader("storm-fork.pcap", capture)}, Log: log, LogName: "storm-fork.events.jsonl"}
	j, err := judge.New(c, judge.Options{Deadline: 2 * time.Second, Log: true})
	if err != nil {
		panic(err)
	}
	res, err := replay.Run(in, []*judge.Judge{j}, func(_ int, ev judge.Event) error {
		fmt.Println("room", ev.Room.Room, ev.Room.Verdict)
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Reports[0].Aborted, "aborted,", res.Reports[0].Count(judge.Violated), "violated")
	// Output:
	// room 101 violated
	// room 102 satisfied
	// room 104 violated
	// room 105 satisfied
	// room 107 violated
	// room 108 satisfied
	// room 110 violated
	// room 111 satisfied
	// 8 aborted, 4 violated
}
