package judge

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// step is one step of a spec behaviour.
type step struct {
	a    model.Action
	s, t model.State
}

// behaviour follows the named actions (by ActionString) from the initial
// state; it fails the test when one is not enabled.
func behaviour(t testing.TB, c *model.Config, names ...string) []step {
	t.Helper()
	s := c.Init()
	var out []step
	for _, name := range names {
		var found *step
		c.Next(&s, func(a model.Action, u *model.State) bool {
			if c.ActionString(a) == name {
				found = &step{a: a, s: s, t: *u}
				return true
			}
			return false
		})
		if found == nil {
			var en []string
			c.Next(&s, func(a model.Action, _ *model.State) bool { en = append(en, c.ActionString(a)); return false })
			t.Fatalf("%s not enabled in\n%s\nenabled: %v", name, c.Format(&s), en)
		}
		out = append(out, *found)
		s = found.t
	}
	return out
}

func rankName(d int) netip.AddrPort {
	return netip.MustParseAddrPort(fmt.Sprintf("10.0.0.%d:17000", d+1))
}

// observe turns a behaviour into what a capture and a prefill log would
// show, one second per step, room 42. It is written independently of the
// package's own mapping: from the state changes.
func observations(c *model.Config, steps []step) (wireObs, logObs []Observation) {
	frame, line := 0, 0
	for i, st := range steps {
		ts := t0.Add(time.Duration(i+1) * time.Second)
		w := func(k Kind, d int) {
			frame++
			wireObs = append(wireObs, Observation{Kind: k, Time: ts, Room: 42, Wire: observe.Wire{Frame: frame, Rank: rankName(d), Required: c.RequiredDstInfoNum}})
		}
		l := func(o Observation) {
			line++
			o.Time, o.Room, o.Line = ts, 42, line
			logObs = append(logObs, o)
		}
		s, u := &st.s, &st.t
		switch st.a.ID {
		case model.ActDecodeSendTransferInfo:
			w(TransferInfo, st.a.Params[0])
		case model.ActDecodeAbort:
			for d := 0; d < c.DecodeRanks.Size(); d++ {
				w(Abort, d)
			}
		case model.ActBootstrapRecvAbort:
			if c.AbortAckSent {
				w(AbortAck, st.a.Params[0])
			}
		}
		switch {
		case st.a.ID == model.ActSchedulerCreateSender:
			l(Observation{Kind: SenderCreate})
			if s.RequestStatus[0] != u.RequestStatus[0] {
				l(Observation{Kind: Status, Log: observe.Log{From: s.RequestStatus[0].String(), To: u.RequestStatus[0].String()}})
			}
		case st.a.ID == model.ActSchedulerPollBootstrap:
			l(Observation{Kind: Poll, Log: observe.Log{Queue: "bootstrap", Status: c.Poll(s, 0).String()}})
		case st.a.ID == model.ActSchedulerPollInFlight:
			l(Observation{Kind: Poll, Log: observe.Log{Queue: "inflight", Status: c.Poll(s, 0).String()}})
			l(Observation{Kind: Clear})
		case s.RequestStatus[0] != u.RequestStatus[0]:
			l(Observation{Kind: Status, Log: observe.Log{From: s.RequestStatus[0].String(), To: u.RequestStatus[0].String()}})
		}
	}
	return wireObs, logObs
}

func replay(t testing.TB, variant string, opt Options, obs []Observation, end time.Time) *Room {
	t.Helper()
	rep, err := replayAll(t, variant, opt, obs, end)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rooms) != 1 {
		t.Fatalf("%d rooms", len(rep.Rooms))
	}
	return rep.Rooms[0]
}

// replayAll judges obs (every room reported) and returns the report and
// the Judge's Err.
func replayAll(t testing.TB, variant string, opt Options, obs []Observation, end time.Time) (*Report, error) {
	t.Helper()
	opt.AllRooms = true
	r := newRecorder(t, variantConfig(t, variant), opt)
	for _, o := range obs {
		r.Step(o)
	}
	rep := r.Finish(end)
	return rep, r.Err()
}

// healthy: both ranks send TransferInfo, the request runs and completes,
// then decode aborts (a late client abort) and prefill handles it.
var healthy = []string{
	"DecodeSendTransferInfo(d1, <<r, 1>>)",
	"DecodeSendTransferInfo(d2, <<r, 1>>)",
	"SchedulerCreateSender(<<r, 1>>)",
	"BootstrapRecvTransferInfo(d1)",
	"BootstrapRecvTransferInfo(d2)",
	"SchedulerPollBootstrap",
	"SchedulerSend(<<r, 1>>)",
	"DecodeAbort(<<r, 1>>)",
	"BootstrapRecvAbort(d1)",
	"WorkerPost(<<r, 1>>)",
	"BootstrapRecvAbort(d2)",
	"SchedulerPollInFlight",
}

func TestVerdicts(t *testing.T) {
	c, err := variantConfig(t, "upstream"), error(nil)
	if err != nil {
		t.Fatal(err)
	}
	steps := behaviour(t, c, healthy...)
	wireObs, logObs := observations(c, steps)
	all := Merge(wireObs, logObs)
	abortAt := t0.Add(8 * time.Second)
	releasedAt := t0.Add(12 * time.Second)

	tests := []struct {
		name    string
		variant string
		log     bool
		obs     []Observation
		end     time.Time
		want    Verdict
		reason  string
	}{
		{"healthy with log", "upstream", true, all, releasedAt.Add(time.Hour), Satisfied, "released 4s after the abort"},
		{"healthy wire only", "upstream", false, wireObs, releasedAt.Add(time.Hour), PredictedReleased, "every completion of prefill's unseen steps releases the room under upstream: a prediction"},
		{"log cut before release, within deadline", "upstream", true, all[:len(all)-2], abortAt.Add(10 * time.Second), Inconclusive, "before the 5m0s deadline"},
		{"log cut before release, past deadline", "upstream", true, all[:len(all)-2], abortAt.Add(5*time.Minute + 10*time.Second), Inconclusive, "its release is past the log's end"},
		{"no abort", "upstream", true, Merge(wireObs[:2], logObs[:3]), releasedAt, NotAborted, "never aborted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			room := replay(t, tt.variant, Options{Log: tt.log, Deadline: 5 * time.Minute}, tt.obs, tt.end)
			if room.Verdict != tt.want || !strings.Contains(room.Reason, tt.reason) {
				t.Fatalf("verdict %s (%s), want %s (%q)\n%s", room.Verdict, room.Reason, tt.want, tt.reason, room.State)
			}
			if room.Aborted && !room.AbortTime.Equal(abortAt) {
				t.Fatalf("abort time %v, want %v", room.AbortTime, abortAt)
			}
		})
	}
}

// TestInvalid mutates the healthy behaviour's observations: each mutant
// must be invalid, blamed on the mutated event.
func TestInvalid(t *testing.T) {
	c, err := variantConfig(t, "upstream"), error(nil)
	if err != nil {
		t.Fatal(err)
	}
	wireObs, logObs := observations(c, behaviour(t, c, healthy...))
	tests := []struct {
		name   string
		mutate func(w, l []Observation) ([]Observation, []Observation)
		log    bool
		blame  string
	}{
		{"ABORT before its TransferInfo on the same connection", func(w, l []Observation) ([]Observation, []Observation) {
			// Rank d2's ABORT (frame 4) moved before its TransferInfo (frame 2).
			ab := w[3]
			ab.Time = w[1].Time.Add(-time.Millisecond)
			return []Observation{w[0], ab, w[1], w[2]}, l
		}, false, "frame 2 TransferInfo"},
		{"status that skips a step", func(w, l []Observation) ([]Observation, []Observation) {
			l = append([]Observation(nil), l...)
			for i := range l {
				if l[i].Kind == Status && l[i].To == "WaitingForInput" {
					l[i].To = "Success" // skips WaitingForInput and Transferring
					return w, l
				}
			}
			panic("no WaitingForInput")
		}, true, "log line 3 status room 42 Bootstrapping -> Success"},
		{"TransferInfo from a third rank", func(w, l []Observation) ([]Observation, []Observation) {
			extra := w[1]
			extra.Rank, extra.Frame = netip.MustParseAddrPort("10.0.0.9:17000"), 99
			return append([]Observation{w[0], w[1], extra}, w[2:]...), l
		}, false, "frame 99 TransferInfo"},
		{"clear before any poll", func(w, l []Observation) ([]Observation, []Observation) {
			cl := Observation{Kind: Clear, Time: w[0].Time, Room: 42, Log: observe.Log{Line: 77}}
			return w, append([]Observation{cl}, l...)
		}, true, "log line 77 clear"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, l := tt.mutate(wireObs, logObs)
			obs := w
			if tt.log {
				obs = Merge(w, l)
			}
			room := replay(t, "upstream", Options{Log: tt.log}, obs, t0.Add(time.Hour))
			if room.Verdict != Invalid || room.Unexplained == nil || !strings.HasPrefix(room.Unexplained.String(), tt.blame) {
				t.Fatalf("verdict %s (%s), want invalid blaming %q", room.Verdict, room.Reason, tt.blame)
			}
			if room.State == "" {
				t.Fatal("no state printed for the invalid event")
			}
		})
	}
}

// TestLiveRooms replays 1500 rooms one after another (each the healthy
// behaviour, 10 s apart): the rooms held stay bounded by those within
// the deadline (plus one sweep period), and every room is still judged.
func TestLiveRooms(t *testing.T) {
	c, err := variantConfig(t, "upstream"), error(nil)
	if err != nil {
		t.Fatal(err)
	}
	w, l := observations(c, behaviour(t, c, healthy...))
	for _, log := range []bool{true, false} {
		one := w
		if log {
			one = Merge(w, l)
		}
		r := newRecorder(t, variantConfig(t, "upstream"), Options{Log: log, Deadline: 5 * time.Minute, AllRooms: true})
		const rooms = 1500
		most := 0
		var last time.Time
		for g := 0; g < rooms; g++ {
			for _, o := range one {
				o.Room = int64(g)
				o.Time = o.Time.Add(time.Duration(g) * 10 * time.Second)
				last = o.Time
				r.Step(o)
				most = max(most, r.Stats().Held)
			}
		}
		// Idle is twice the deadline: the rooms of the last 10 minutes.
		if bound := 62; most > bound {
			t.Errorf("log %v: %d rooms held at once, want at most %d", log, most, bound)
		}
		rep := r.Finish(last.Add(time.Hour))
		want := Satisfied
		if !log {
			want = PredictedReleased
		}
		if n := rep.Count(want); n != rooms || len(rep.Rooms) != rooms {
			t.Errorf("log %v: %d rooms, %d %s, want %d", log, len(rep.Rooms), n, want, rooms)
		}
	}
}

// TestAckVariant: in a variant that acknowledges ABORTs, the ABORT_ACKs on
// the wire and the status change of the same step in the log are one
// step, whichever source shows it first.
func TestAckVariant(t *testing.T) {
	c, err := variantConfig(t, "fixed-deferred"), error(nil)
	if err != nil {
		t.Fatal(err)
	}
	w, l := observations(c, behaviour(t, c, healthy...))
	acks := 0
	for _, o := range w {
		if o.Kind == AbortAck {
			acks++
		}
	}
	if acks != 2 {
		t.Fatalf("%d ABORT_ACKs in the behaviour", acks)
	}
	end := t0.Add(time.Hour)
	if room := replay(t, "fixed-deferred", Options{Log: true}, Merge(w, l), end); room.Verdict != Satisfied {
		t.Errorf("with log: %s (%s)", room.Verdict, room.Reason)
	}
	// The log line first: it is written before the ACK is sent.
	if room := replay(t, "fixed-deferred", Options{Log: true}, Merge(l, w), end); room.Verdict != Satisfied {
		t.Errorf("log first: %s (%s)", room.Verdict, room.Reason)
	}
	// From the wire alone the ABORT_ACKs imply the release, but only
	// under the variant: predicted, not satisfied.
	if room := replay(t, "fixed-deferred", Options{}, w, end); room.Verdict != PredictedReleased {
		t.Errorf("wire only: %s (%s)", room.Verdict, room.Reason)
	}
	// An ABORT_ACK to a rank that sent no ABORT yet is invalid.
	bad := slices.Clone(w)
	for i, o := range bad {
		if o.Kind == AbortAck {
			o.Time = bad[0].Time
			bad = slices.Insert(slices.Delete(bad, i, i+1), 1, o)
			break
		}
	}
	if room := replay(t, "fixed-deferred", Options{}, bad, end); room.Verdict != Invalid || room.Unexplained.Kind != AbortAck {
		t.Errorf("early ACK: %s (%s)", room.Verdict, room.Reason)
	}
}
