package judge

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge/explain"
)

// streams gives each decode rank's wire observations a stream of their
// own, as a capture does (one TCP connection per rank).
func streams(obs []Observation) []Observation {
	out := slices.Clone(obs)
	for i := range out {
		for d := 0; d < 8; d++ {
			if out[i].Rank == rankName(d) {
				out[i].Stream = d + 1
				if out[i].Kind == AbortAck {
					out[i].Stream = 100 + d
				}
			}
		}
	}
	return out
}

func healthyObs(t *testing.T, variant string) (c *model.Config, wireObs, logObs []Observation) {
	t.Helper()
	c, err := variantConfig(t, variant), error(nil)
	if err != nil {
		t.Fatal(err)
	}
	w, l := observations(c, behaviour(t, c, healthy...))
	return c, streams(w), l
}

func at(o Observation, d time.Duration) Observation {
	o.Time = o.Time.Add(d)
	return o
}

// TestOrder: what the capture's order across connections, and across the
// capture and the log, does and does not say.
func TestOrder(t *testing.T) {
	_, w, l := healthyObs(t, "upstream")
	// w: TI d1 (1 s), TI d2 (2 s), ABORT d1, ABORT d2 (8 s).
	// l[2]: status Bootstrapping -> WaitingForInput, written when the
	// bootstrap thread took rank d2's TransferInfo (5 s).
	abortAt := w[2].Time
	end := abortAt.Add(time.Hour)
	tests := []struct {
		name  string
		opt   Options
		obs   []Observation
		want  Verdict
		blame string // for invalid
	}{
		{
			// d2's TransferInfo reaches the wire 20 ms after d1's ABORT (far
			// more than the skew): it was sent before the abort and was on
			// its way; no order of sends needs to be swapped.
			name: "TransferInfo captured after another rank's ABORT",
			opt:  Options{Skew: -1},
			obs:  []Observation{w[0], w[2], at(w[1], abortAt.Sub(w[1].Time)+20*time.Millisecond), at(w[3], 30*time.Millisecond)},
			want: PredictedReleased,
		},
		{
			// The same rank's TransferInfo after its own ABORT: a connection
			// keeps its order.
			name:  "TransferInfo after its own rank's ABORT",
			opt:   Options{Skew: -1},
			obs:   []Observation{w[1], w[2], at(w[0], abortAt.Sub(w[0].Time)+20*time.Millisecond), at(w[3], 30*time.Millisecond)},
			want:  Invalid,
			blame: "frame 1 TransferInfo",
		},
		{
			// The log line of the receipt of d2's TransferInfo is stamped
			// 100 us before the capture saw that message: within the skew
			// the two clocks may disagree.
			name: "log line stamped just before the message it follows",
			opt:  Options{Log: true},
			obs:  Merge([]Observation{w[0], at(w[1], 3*time.Second), w[2], w[3]}, replace(l, 2, at(l[2], -100*time.Microsecond))),
			want: Satisfied,
		},
	}
	// With no skew allowed, that log's clock is behind the capture's: the
	// log does not belong to the capture.
	_, err := replayAll(t, "upstream", Options{Log: true, Skew: -1},
		Merge([]Observation{w[0], at(w[1], 3*time.Second), w[2], w[3]}, replace(l, 2, at(l[2], -100*time.Microsecond))), end)
	if !errors.Is(err, ErrLogMismatch) || !strings.Contains(err.Error(), "clock is behind the capture's by at least 100µs") {
		t.Errorf("log 100 us behind with no skew: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			room := replay(t, "upstream", tt.opt, tt.obs, end)
			if room.Verdict != tt.want {
				t.Fatalf("%s (%s), want %s", room.Verdict, room.Reason, tt.want)
			}
			if tt.want == Invalid && !strings.HasPrefix(room.Unexplained.String(), tt.blame) {
				t.Fatalf("blames %q, want %q", room.Unexplained, tt.blame)
			}
		})
	}
}

func replace(obs []Observation, i int, o Observation) []Observation {
	out := slices.Clone(obs)
	out[i] = o
	return out
}

// TestMidLife: a room whose first messages the capture missed (it joined
// the connection mid-stream) is judged as blind to them; one whose log
// lines are missing too, from every state.
func TestMidLife(t *testing.T) {
	_, w, l := healthyObs(t, "upstream")
	mid := func(obs []Observation) []Observation {
		out := slices.Clone(obs)
		for i := range out {
			out[i].MidStream = true
		}
		return out
	}
	end := w[2].Time.Add(time.Hour)
	opt := Options{Log: true}

	// Rank d1's TransferInfo was sent before the capture started: the log
	// shows both TransferInfos taken, the wire only d2's.
	missed := w[1:]
	if room := replay(t, "upstream", opt, Merge(missed, l), end); room.Verdict != Invalid {
		t.Fatalf("fresh connections, TransferInfo missing: %s (%s), want invalid", room.Verdict, room.Reason)
	}
	room := replay(t, "upstream", opt, Merge(mid(missed), l), end)
	if room.Verdict != Satisfied || room.Start != StartBlind || !strings.Contains(room.Reason, "mid-stream") {
		t.Fatalf("joined mid-stream: %s, start %s (%s), want satisfied, blind", room.Verdict, room.Start, room.Reason)
	}
	checkBehaviour(t, room.Config, replayBehaviour(t, "upstream", opt, Merge(mid(missed), l)))

	// The log began late too: it starts with the bootstrap poll.
	late := l[slices.IndexFunc(l, func(o Observation) bool { return o.Kind == Poll }):]
	room = replay(t, "upstream", opt, Merge(mid(w[2:]), late), end)
	if room.Verdict != Satisfied || room.Start != StartUnknown {
		t.Fatalf("log and capture began mid-life: %s, start %s (%s), want satisfied from an unknown start", room.Verdict, room.Start, room.Reason)
	}

	// The same without the release at the log's end: every state the
	// room's unseen past allows keeps the request.
	room = replay(t, "upstream", opt, Merge(mid(w[2:]), late[:len(late)-2]), end)
	if room.Verdict != Violated || room.Start != StartUnknown {
		t.Fatalf("log and capture began mid-life, no release: %s, start %s (%s), want violated from an unknown start", room.Verdict, room.Start, room.Reason)
	}

	// Rooms seen in the log before the capture's first message are blind
	// too, whether or not the capture joined connections mid-stream.
	pre := slices.Clone(l)
	for i := range pre {
		pre[i].Time = pre[i].Time.Add(-time.Hour)
	}
	room = replay(t, "upstream", opt, pre[:3], w[0].Time)
	if room.Verdict != NotAborted || room.Start != StartBlind {
		t.Fatalf("log before the capture: %s, start %s (%s), want not-aborted, blind", room.Verdict, room.Start, room.Reason)
	}
}

// replayBehaviour replays obs and returns the behaviour of its room: for
// a satisfied room none is reported, so it asks for the verdict of the
// same observations with the release cut off (violated, with one).
func replayBehaviour(t *testing.T, variant string, opt Options, obs []Observation) []model.State {
	t.Helper()
	cut := obs[:len(obs)-2] // drop the poll and clear of the release
	opt.Deadline = time.Second
	room := replay(t, variant, opt, cut, cut[len(cut)-1].Time.Add(time.Hour))
	if room.Verdict != Violated || len(room.Behaviour) == 0 {
		t.Fatalf("without the release: %s (%s), no behaviour", room.Verdict, room.Reason)
	}
	return room.Behaviour
}

// TestPrefillEndpoints: one room id on two prefill endpoints is two rooms,
// judged apart; ABORT_ACKs go to the one on their source's address.
func TestPrefillEndpoints(t *testing.T) {
	_, w, _ := healthyObs(t, "fixed-deferred")
	x, y := netip.MustParseAddrPort("10.1.0.1:5000"), netip.MustParseAddrPort("10.1.0.2:5000")
	var obs []Observation
	for _, o := range w {
		for k, p := range []netip.AddrPort{x, y} {
			o := o
			o.Frame = 2*o.Frame + k
			if o.Kind == AbortAck {
				o.Src = netip.AddrPortFrom(p.Addr(), 40000)
				o.Stream += 10 * k
			} else {
				o.Dst = p
				o.Stream += 10 * k
			}
			obs = append(obs, o)
		}
	}
	// A third rank's TransferInfo, on y only.
	extra := w[1]
	extra.Rank, extra.Dst, extra.Frame, extra.Stream = netip.MustParseAddrPort("10.0.0.9:17000"), y, 99, 50
	obs = append(obs, extra)
	slices.SortStableFunc(obs, func(a, b Observation) int { return a.Time.Compare(b.Time) })

	rep := judgeAll(t, variantConfig(t, "fixed-deferred"), Options{}, obs, w[len(w)-1].Time.Add(time.Hour))
	got := map[netip.AddrPort]Verdict{}
	for _, room := range rep.Rooms {
		got[room.Prefill] = room.Verdict
	}
	if len(rep.Rooms) != 2 || got[x] != PredictedReleased || got[y] != Invalid {
		for _, room := range rep.Rooms {
			t.Logf("%v room %d: %s (%s)", room.Prefill, room.Room, room.Verdict, room.Reason)
		}
		t.Fatalf("got %v, want %v predicted-released and %v invalid", got, x, y)
	}

	// With the log of x's prefill: y's room is judged from the wire alone
	// (its prefill steps are unseen, not missing from the log).
	_, _, l := healthyObs(t, "fixed-deferred")
	r := newRecorder(t, variantConfig(t, "fixed-deferred"), Options{Log: true, LogEndpoint: x, AllRooms: true})
	for _, o := range Merge(obs[:len(obs)-1], l) {
		if o.Frame != 99 {
			r.Step(o)
		}
	}
	rep = r.Finish(w[len(w)-1].Time.Add(time.Hour))
	for _, room := range rep.Rooms {
		want, reason := Satisfied, "released 4s after the abort"
		if room.Prefill == y {
			want, reason = PredictedReleased, "judged from the wire alone (the log is another prefill endpoint's)"
		}
		if room.Verdict != want || !strings.Contains(room.Reason, reason) {
			t.Errorf("with x's log, %v room %d: %s (%s), want %s (%s)", room.Prefill, room.Room, room.Verdict, room.Reason, want, reason)
		}
	}
}

// TestRoomReuse: a room id decode bootstraps again after aborting it is
// the room's second request under the *-reuse variants, and a
// TransferInfo no spec step explains under the others.
func TestRoomReuse(t *testing.T) {
	c, err := variantConfig(t, "upstream-reuse"), error(nil)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := observations(c, behaviour(t, c,
		"DecodeSendTransferInfo(d1, <<r, 1>>)",
		"DecodeSendTransferInfo(d2, <<r, 1>>)",
		"DecodeAbort(<<r, 1>>)",
		"DecodeSendTransferInfo(d1, <<r, 2>>)",
		"DecodeSendTransferInfo(d2, <<r, 2>>)",
	))
	w = streams(w)
	end := w[len(w)-1].Time.Add(time.Hour)
	if room := replay(t, "upstream-reuse", Options{}, w, end); room.Verdict == Invalid {
		t.Fatalf("upstream-reuse: invalid (%s)", room.Reason)
	}
	room := replay(t, "upstream", Options{}, w, end)
	if room.Verdict != Invalid || room.Unexplained.Frame != 5 {
		t.Fatalf("upstream: %s (%s), want invalid at frame 5 (the second TransferInfo from d1)", room.Verdict, room.Reason)
	}
}

// TestVerdictEvents: rooms get their Verdict event as they go idle, only
// the reported ones (aborted or invalid); the report counts them all.
func TestVerdictEvents(t *testing.T) {
	_, w, _ := healthyObs(t, "upstream")
	var got []*Room
	r, err := New(variantConfig(t, "upstream"), Options{Deadline: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	take := func() {
		for _, ev := range r.Ready() {
			if ev.Kind != EventVerdict {
				t.Fatalf("%s event without Options.Overdue", ev.Kind)
			}
			got = append(got, ev.Room)
		}
	}
	const rooms = 300
	var last time.Time
	for g := 0; g < rooms; g++ {
		obs := w
		if g%3 != 0 {
			obs = w[:2] // never aborted
		}
		for _, o := range obs {
			o.Room = int64(g)
			o.Time = o.Time.Add(time.Duration(g) * 10 * time.Second)
			last = o.Time
			r.Step(o)
			take()
		}
		if g == rooms/2 && len(got) == 0 {
			t.Fatal("no room handed over while the replay ran")
		}
	}
	rep := r.Finish(last.Add(time.Hour))
	take()
	if len(rep.Rooms) != 0 || rep.Total != rooms || rep.Aborted != rooms/3 || len(got) != rooms/3 {
		t.Fatalf("report holds %d rooms, counts %d (%d aborted); %d handed over; want 0, %d (%d), %d",
			len(rep.Rooms), rep.Total, rep.Aborted, len(got), rooms, rooms/3, rooms/3)
	}
	for _, room := range got {
		if !room.Aborted || room.Verdict != PredictedReleased {
			t.Fatalf("room %d: aborted %v, %s (%s)", room.Room, room.Aborted, room.Verdict, room.Reason)
		}
	}
}

// TestBurstCut: more than explain.MaxBurst observations closer than the skew are
// cut into bursts, and the room says a bound was hit.
func TestBurstCut(t *testing.T) {
	_, w, l := healthyObs(t, "upstream")
	all := Merge(w, l)
	for i := range all {
		all[i].Time = all[0].Time.Add(time.Duration(i) * time.Microsecond)
	}
	if len(all) <= explain.MaxBurst {
		t.Fatalf("%d observations", len(all))
	}
	room := replay(t, "upstream", Options{Log: true}, all, all[0].Time.Add(time.Hour))
	if room.Verdict != Satisfied || !room.BoundHit {
		t.Fatalf("%s (%s), bound hit %v; want satisfied with the bound hit", room.Verdict, room.Reason, room.BoundHit)
	}
}
