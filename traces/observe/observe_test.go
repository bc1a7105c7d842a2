package observe

import (
	"net/netip"
	"slices"
	"testing"
	"time"
)

var (
	t0     = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p1, p2 = netip.MustParseAddrPort("10.0.1.1:5000"), netip.MustParseAddrPort("10.0.1.2:5000")
	d1, d2 = netip.MustParseAddrPort("10.0.0.1:17000"), netip.MustParseAddrPort("10.0.0.2:17000")
	// Decode's connections to prefill come from ephemeral ports.
	c1, c2 = netip.MustParseAddrPort("10.0.0.1:40001"), netip.MustParseAddrPort("10.0.0.2:40002")
)

func ti(ms int, room int64, src, rank, dst netip.AddrPort) Observation {
	return Observation{Kind: TransferInfo, Time: t0.Add(time.Duration(ms) * time.Millisecond), Room: room,
		Wire: Wire{Frame: ms, Src: src, Dst: dst, Rank: rank, Required: 2}}
}

func abort(ms int, room int64, src, dst netip.AddrPort) Observation {
	return Observation{Kind: Abort, Time: t0.Add(time.Duration(ms) * time.Millisecond), Room: room,
		Wire: Wire{Frame: ms, Src: src, Dst: dst, Rank: src, RankFromConn: true}}
}

func ack(ms int, room int64, src, dst netip.AddrPort) Observation {
	return Observation{Kind: AbortAck, Time: t0.Add(time.Duration(ms) * time.Millisecond), Room: room,
		Wire: Wire{Frame: ms, Src: src, Dst: dst, Rank: dst}}
}

type seen struct {
	room     int64
	endpoint netip.AddrPort
	ranks    []netip.AddrPort
	obs      []int // frames, with the rank index of each
}

// A room id on two prefill endpoints is two rooms; 2-frame ABORTs are
// named by the TransferInfo of their connection; ABORT_ACKs go to the
// endpoint holding the room for their decode rank, matched by port when
// prefill sees decode at another address.
func TestGrouperTwoEndpoints(t *testing.T) {
	natted := netip.MustParseAddrPort("192.168.0.9:17000") // d1 as p2 sees it
	obs := []Observation{
		ti(1, 5, c1, d1, p1), ti(2, 5, c2, d2, p1),
		ti(3, 5, c1, d1, p2),
		abort(4, 5, c1, p1), abort(5, 5, c2, p1),
		abort(6, 5, c1, p2),
		ack(7, 5, p2, natted),
		ack(8, 5, p1, d2),
	}
	g := NewGrouper[*seen](GroupOptions{}, nil)
	var rooms []*Room[*seen]
	for i := range obs {
		rm, created := g.Observe(&obs[i])
		if created {
			rm.Data = &seen{room: rm.ID, endpoint: g.Endpoint(rm)}
			rooms = append(rooms, rm)
		}
		d := g.Rank(rm, &obs[i])
		if d < 0 {
			d = g.AddRank(rm, &obs[i])
		}
		rm.Data.obs = append(rm.Data.obs, obs[i].Frame*10+d)
	}
	if len(rooms) != 2 || g.Live() != 2 {
		t.Fatalf("%d rooms, %d live", len(rooms), g.Live())
	}
	for _, rm := range rooms {
		rm.Data.ranks = g.RankNames(rm)
	}
	want := []seen{
		{5, p1, []netip.AddrPort{d1, d2}, []int{10, 21, 40, 51, 81}},
		{5, p2, []netip.AddrPort{d1}, []int{30, 60, 70}},
	}
	for i, w := range want {
		got := rooms[i].Data
		if got.room != w.room || got.endpoint != w.endpoint || !slices.Equal(got.ranks, w.ranks) || !slices.Equal(got.obs, w.obs) {
			t.Errorf("room %d: got %+v, want %+v", i, *got, w)
		}
	}
	if !rooms[0].OnLogEndpoint() || rooms[1].OnLogEndpoint() {
		t.Error("the log's endpoint is not the first one seen")
	}
}

// Rooms idle for longer than Idle are handed over, least recently
// observed first, and a later observation of the id starts a new room.
func TestGrouperIdle(t *testing.T) {
	var idle []int64
	g := NewGrouper[struct{}](GroupOptions{Idle: 100 * time.Millisecond}, func(rm *Room[struct{}]) { idle = append(idle, rm.ID) })
	for _, o := range []Observation{ti(0, 1, c1, d1, p1), ti(10, 2, c1, d1, p1), ti(20, 1, c2, d2, p1), ti(300, 3, c1, d1, p1)} {
		g.Observe(&o)
	}
	if !slices.Equal(idle, []int64{2, 1}) || g.Live() != 1 {
		t.Fatalf("idle %v, live %d", idle, g.Live())
	}
	o := ti(310, 1, c1, d1, p1)
	if _, created := g.Observe(&o); !created {
		t.Error("a room seen again after it went idle is not new")
	}
	var drained []int64
	g.Drain(func(rm *Room[struct{}]) { drained = append(drained, rm.ID) })
	if !slices.Equal(drained, []int64{3, 1}) || g.Live() != 0 {
		t.Errorf("drained %v, live %d", drained, g.Live())
	}
}

// The merge keeps each source's order and puts a log observation first
// only when it is strictly earlier.
func TestMerge(t *testing.T) {
	w := []Observation{ti(1, 1, c1, d1, p1), ti(3, 1, c2, d2, p1)}
	l := []Observation{
		{Kind: SenderCreate, Time: t0.Add(time.Millisecond), Log: Log{Line: 1}},
		{Kind: Poll, Time: t0.Add(2 * time.Millisecond), Log: Log{Line: 2}},
		{Kind: Clear, Time: t0.Add(9 * time.Millisecond), Log: Log{Line: 3}},
	}
	var got []string
	for _, o := range Merge(w, l) {
		got = append(got, o.Evidence())
	}
	want := []string{"frame 1", "log line 1", "log line 2", "frame 3", "log line 3"}
	if !slices.Equal(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
}

// Sources: the log, a stream, a connection's direction.
func TestSources(t *testing.T) {
	var s Sources
	log := Observation{Kind: Status}
	a, b := ti(1, 1, c1, d1, p1), ti(2, 1, c2, d2, p1)
	streamed := a
	streamed.Stream = 7
	if s.ID(&log) != -1 || s.ID(&streamed) != 7 || s.ID(&a) == s.ID(&b) || s.ID(&a) != s.ID(&a) {
		t.Errorf("sources: log %d, stream %d, a %d, b %d", s.ID(&log), s.ID(&streamed), s.ID(&a), s.ID(&b))
	}
	ms := int64(time.Millisecond)
	for _, tc := range []struct {
		srcA, srcB int32
		ta, tb     int64
		want       bool
	}{
		{1, 1, 0, 0, true},         // one source keeps its order
		{1, 2, 0, ms, false},       // within the skew: either order
		{1, 2, 0, ms + 1, true},    // farther apart than the skew
		{-1, 2, 0, ms / 2, false},  // the log against the wire
		{-1, -1, 0, 10 * ms, true}, // the log keeps its order
	} {
		if got := MustPrecede(tc.srcA, tc.ta, tc.srcB, tc.tb, time.Millisecond); got != tc.want {
			t.Errorf("MustPrecede(%d@%d, %d@%d) = %v", tc.srcA, tc.ta, tc.srcB, tc.tb, got)
		}
	}
}
