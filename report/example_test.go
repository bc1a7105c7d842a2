package report_test

import (
	"bytes"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/report"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// forkRoom replays a room that decode aborted before sending any
// TransferInfo, from the wire alone, under the fork, with its witness.
func forkRoom() (*judge.Report, *judge.Room) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	cfg, err := conformance.LoadVariant("fork-90a52f44a")
	if err != nil {
		panic(err)
	}
	j, err := judge.New(cfg, judge.Options{Witness: true})
	if err != nil {
		panic(err)
	}
	j.Step(observe.Observation{Kind: observe.Abort, Time: t0, Room: 7, Wire: observe.Wire{Frame: 10, Rank: netip.MustParseAddrPort("10.0.0.1:17000")}})
	j.Step(observe.Observation{Kind: observe.Abort, Time: t0, Room: 7, Wire: observe.Wire{Frame: 11, Rank: netip.MustParseAddrPort("10.0.0.2:17000")}})
	rep := j.Finish(t0.Add(time.Minute))
	return rep, j.Ready()[0].Room
}

// A room's diagram: the lanes come from the spec's annotations, and the
// steps replay did not see, but which pin the room, are drawn apart.
func ExampleRoomDiagram() {
	_, room := forkRoom()
	d := report.RoomDiagram(room)
	fmt.Println(room.Verdict)
	fmt.Println(strings.Join(d.Lanes(), " | "))
	fmt.Printf("%d steps, %d of them unseen\n", d.Steps(), d.Unseen())
	// Output:
	// at-risk
	// decode d1 | decode d2 | wire | scheduler | bootstrap | worker | timeout
	// 3 steps, 2 of them unseen
}

// A replay's page: add the reported rooms as they are judged, then write
// the HTML.
func ExampleNewReplayPage() {
	rep, room := forkRoom()
	p := report.NewReplayPage(report.ReplayInfo{Variant: "fork-90a52f44a", Command: "roomspec replay -variant fork-90a52f44a capture.pcap"})
	p.AddRoom(room)
	p.Finish(rep, room.FirstSeen)
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		panic(err)
	}
	fmt.Println(p.Rows(), "row;", strings.HasPrefix(b.String(), "<!DOCTYPE html>"))
	// Output:
	// 1 row; true
}

// An ITF trace saved by roomspec test -itf, drawn: the steps between its
// states are found under the variant it names.
func ExampleReadITF() {
	data, err := os.ReadFile("../conformance/testdata/pre-30352-liveness.itf.json")
	if err != nil {
		panic(err)
	}
	t, err := report.ReadITF(data, "")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d step(s)\n", t.Variant, t.Diagram.Steps())
	// Output:
	// pre-30352: 1 step(s)
}
