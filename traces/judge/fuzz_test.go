package judge

import (
	"net/netip"
	"testing"
	"time"

	"github.com/roomspec/roomspec/traces/observe"
)

var fuzzStatuses = []string{"Absent", "Bootstrapping", "WaitingForInput", "Transferring", "Success", "Failed"}

// FuzzReplay feeds arbitrary observation sequences (4 bytes each: kind,
// room, rank or status, required count or status; the high bits of the
// first byte pick the log, mid-stream connections and a second prefill
// endpoint) to a Replayer: it must never panic, and every room gets a
// verdict, also when they are streamed.
func FuzzReplay(f *testing.F) {
	f.Add([]byte{0, 0, 0, 2, 0, 0, 1, 2, 1, 0, 0, 0, 1, 0, 1, 0})
	f.Add([]byte{1, 1, 0, 0, 4, 1, 0, 1, 5, 1, 0, 1, 6, 1, 0, 0})
	f.Add([]byte{0, 2, 0, 9, 2, 2, 2, 2, 3, 2, 1, 3})
	variants := []string{"upstream", "fork-90a52f44a", "fixed", "mooncake", "pre-30352"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 || len(data) > 400 {
			return
		}
		cfg := variantConfig(t, variants[int(data[0])%len(variants)])
		log, mid, two := data[0]&0x80 != 0, data[0]&0x40 != 0, data[0]&0x20 != 0
		opt := Options{Log: log, MaxHidden: 12, MaxStates: 5000, Deadline: time.Second, AllRooms: data[0]&0x10 != 0}
		r := newRecorder(t, cfg, opt)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 1; i+4 <= len(data); i += 4 {
			b := data[i : i+4]
			now = now.Add(time.Duration(b[3]) * time.Millisecond)
			o := Observation{Kind: Kind(b[0] % 8), Time: now, Room: int64(b[1] % 3),
				Wire: observe.Wire{Frame: i, Rank: netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 0, b[2] % 4}), 17000),
					Required: int(b[3]%4) + 1},
				Log: observe.Log{Line: i, From: fuzzStatuses[int(b[2])%len(fuzzStatuses)], To: fuzzStatuses[int(b[3])%len(fuzzStatuses)],
					Status: fuzzStatuses[int(b[3])%len(fuzzStatuses)], Queue: []string{"bootstrap", "inflight", "x"}[int(b[2])%3]}}
			o.Src = o.Rank
			o.RankFromConn = b[2]&0x40 != 0
			o.Stream = int(b[2]%4) + 1
			o.MidStream = mid
			if two && b[2]&0x80 != 0 {
				o.Dst = netip.MustParseAddrPort("10.1.0.2:5000")
			}
			r.Step(o)
		}
		rep := r.Finish(now.Add(time.Duration(data[0]) * time.Second))
		for _, room := range rep.Rooms {
			if room.Verdict == "" {
				t.Fatalf("room %d has no verdict", room.Room)
			}
		}
		if n := len(rep.Rooms); n < rep.Aborted || n > rep.Total || opt.AllRooms && n != rep.Total {
			t.Fatalf("%d rooms given a verdict (all %v); %d aborted of %d", n, opt.AllRooms, rep.Aborted, rep.Total)
		}
		total := 0
		for _, n := range rep.Verdicts {
			total += n
		}
		if total != rep.Total {
			t.Fatalf("verdicts count %d rooms, the report %d", total, rep.Total)
		}
	})
}
