package captured

import (
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/traces/judge"
	"github.com/roomspec/roomspec/traces/observe"
)

// The suite and replay group a capture with two prefill endpoints into
// the same rooms: a room id on each endpoint is a room of its own, with
// the same observations (the suite takes its rooms from a judge).
func TestGroupingMatchesReplay(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p1, p2 := netip.MustParseAddrPort("10.0.1.1:5000"), netip.MustParseAddrPort("10.0.1.2:5000")
	d1, d2 := netip.MustParseAddrPort("10.0.0.1:17000"), netip.MustParseAddrPort("10.0.0.2:17000")
	c1, c2 := netip.MustParseAddrPort("10.0.0.1:40001"), netip.MustParseAddrPort("10.0.0.2:40002")
	frame := 0
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	ti := func(ms int, room int64, src, rank, dst netip.AddrPort) observe.Observation {
		frame++
		return observe.Observation{Kind: observe.TransferInfo, Time: at(ms), Room: room,
			Wire: observe.Wire{Frame: frame, Src: src, Dst: dst, Rank: rank, Required: 2}}
	}
	abort := func(ms int, room int64, src, dst netip.AddrPort) observe.Observation {
		frame++
		return observe.Observation{Kind: observe.Abort, Time: at(ms), Room: room,
			Wire: observe.Wire{Frame: frame, Src: src, Dst: dst, Rank: src, RankFromConn: true}}
	}
	// Room 5 on both endpoints (two requests that share a room id), room 6
	// on the second only; the ranks appear in another order on p2.
	obs := []observe.Observation{
		ti(0, 5, c1, d1, p1), ti(10, 5, c2, d2, p1),
		ti(20, 5, c2, d2, p2), ti(30, 6, c1, d1, p2), ti(40, 5, c1, d1, p2),
		abort(50, 5, c1, p1), abort(51, 5, c2, p1),
		ti(60, 6, c2, d2, p2), abort(70, 6, c2, p2), abort(71, 6, c1, p2),
		abort(80, 5, c1, p2), abort(81, 5, c2, p2),
	}
	c, err := conformance.LoadVariant("fixed")
	if err != nil {
		t.Fatal(err)
	}
	type key struct {
		room    int64
		prefill netip.AddrPort
	}
	suite := map[key][]int{}
	st, err := NewJudge(c, Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	rooms := map[key][]int{}
	r, err := judge.New(c, judge.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range obs {
		st.Step(obs[i])
		r.Step(obs[i])
	}
	st.Finish(at(100))
	r.Finish(at(100))
	for _, ev := range st.Ready() {
		var frames []int
		for _, o := range ev.Room.Match.Hist {
			frames = append(frames, int(o.Ev))
		}
		slices.Sort(frames)
		suite[key{ev.Room.Room, ev.Room.Prefill}] = frames
	}
	for _, ev := range r.Ready() {
		rooms[key{ev.Room.Room, ev.Room.Prefill}] = ev.Room.Frames
	}
	if len(suite) != 3 || len(rooms) != 3 {
		t.Fatalf("suite %v, replay %v: want 3 rooms each", suite, rooms)
	}
	for k, frames := range rooms {
		if !slices.Equal(suite[k], frames) {
			t.Errorf("room %d at %s: suite frames %v, replay frames %v", k.room, k.prefill, suite[k], frames)
		}
	}
}
