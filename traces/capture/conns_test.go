package capture

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
)

// conns.pcap is made by make_conns.py with the kernel's TCP on loopback:
// 3 connections closed by FIN/FIN/ACK, 3 refused (SYN, RST/ACK) and 2
// reset after exchanging bytes, one after the other.
const connsPcap = "../testdata/conns/conns.pcap"

// life is what the events said of one direction's life.
type life struct {
	name         string // src->dst
	conn         int
	starts, ends int
	endFrame     int
	stateAtStart any  // Half.State when it started
	foreignEnd   bool // Half.State at End was not this life
}

// lifeLog holds the directions by Half.ID: a *Half is reused once its
// connection is released.
type lifeLog map[int]*life

// runRecords feeds recs to a new Assembler and logs each direction's
// starts and ends.
func runRecords(t *testing.T, recs []Record, opt Options) (Stats, lifeLog, []Diagnostic) {
	t.Helper()
	var diags []Diagnostic
	opt.Diagnose = func(d Diagnostic) { diags = append(diags, d) }
	l := lifeLog{}
	a := NewAssembler(opt, func(e *Event) {
		d := l[e.Half.ID]
		if d == nil {
			d = &life{name: e.Half.String(), conn: e.Half.Conn}
			l[e.Half.ID] = d
		}
		switch e.Kind {
		case EventStart:
			d.starts++
			d.stateAtStart = e.Half.State
			e.Half.State = d
		case EventEnd:
			d.ends++
			d.endFrame = e.Frame
			// The Half is the same one (and State ours) from Start to
			// End, even when its memory held another direction before.
			d.foreignEnd = e.Half.State != d
		}
	})
	for _, r := range recs {
		a.Packet(r)
	}
	a.Close()
	return a.Stats(), l, diags
}

// readRecords returns the records of path for which keep (given the TCP
// header) is true; the records are copies.
func readRecords(t *testing.T, path string, keep func(*layers.TCP) bool) []Record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	for {
		r, err := rd.Next()
		if err != nil {
			break
		}
		ip, err := parseLink(r.Link, r.Data)
		if err != nil {
			t.Fatalf("frame %d: %v", r.Frame, err)
		}
		var tcp layers.TCP
		if err := tcp.DecodeFromBytes(ip.tcp, gopacket.NilDecodeFeedback); err != nil {
			t.Fatalf("frame %d: %v", r.Frame, err)
		}
		if keep(&tcp) {
			r.Data = bytes.Clone(r.Data)
			out = append(out, r)
		}
	}
	return out
}

func all(*layers.TCP) bool { return true }

// synOnly keeps the first SYN of each connection, as a capture that missed
// every reply would show it.
func synOnly(t *layers.TCP) bool { return t.SYN && !t.ACK }

// Connections are counted once and released at their end: FIN in both
// directions or a RST in either, so that no more than one is ever open in
// a capture of connections made one after the other.
func TestConnectionsReleasedAtFINAndRST(t *testing.T) {
	recs := readRecords(t, connsPcap, all)
	st, l, diags := runRecords(t, recs, Options{})
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	if st.Connections != 8 {
		t.Errorf("%d connections, want 8 (3 closed by FIN, 3 refused, 2 reset)", st.Connections)
	}
	if st.MaxOpen != 1 {
		t.Errorf("at most %d connections open at once, want 1: a closed connection was kept", st.MaxOpen)
	}
	if st.Expired != 0 || st.Evicted != 0 {
		t.Errorf("%d expired, %d evicted; want none", st.Expired, st.Evicted)
	}
	if st.Halves != 13 {
		t.Errorf("%d directions, want 13 (a refused connection has one: its RST carries no byte)", st.Halves)
	}
	last := recs[len(recs)-1].Frame
	for _, d := range l {
		if d.starts != 1 || d.ends != 1 {
			t.Errorf("%v: %d starts, %d ends", d.name, d.starts, d.ends)
		}
		// The last connection ends at its own RST, not at the end of
		// the capture: a frame only equal to the last one if the RST is.
		if d.endFrame == 0 || d.endFrame > last {
			t.Errorf("%v: ended at frame %d", d.name, d.endFrame)
		}
		// Released connections are reused, and a reused Half starts
		// with no State of its former direction.
		if d.stateAtStart != nil || d.foreignEnd {
			t.Errorf("%v: State %v at start, ended with another's State: %v", d.name, d.stateAtStart, d.foreignEnd)
		}
	}
}

// Half-open connections (SYNs whose replies the capture missed) are
// closed after CloseAfter idle in capture time.
func TestIdleConnectionsExpire(t *testing.T) {
	recs := readRecords(t, connsPcap, synOnly)
	if len(recs) != 8 {
		t.Fatalf("%d SYNs, want 8", len(recs))
	}
	gap := time.Duration(1 << 62)
	for i := 1; i < len(recs); i++ {
		gap = min(gap, recs[i].Time.Sub(recs[i-1].Time))
	}
	st, l, _ := runRecords(t, recs, Options{})
	if st.MaxOpen != 8 || st.Expired != 0 {
		t.Errorf("default CloseAfter: %d open at most, %d expired; want 8 and 0", st.MaxOpen, st.Expired)
	}
	// The make_conns.py capture has its refused connections a few
	// microseconds apart and the others 50 ms apart: expire what is idle
	// for less than the smallest gap, and each SYN finds the connection
	// before it expired.
	if gap <= 0 {
		t.Fatalf("SYNs not in time order")
	}
	st, l, _ = runRecords(t, recs, Options{CloseAfter: gap})
	if st.MaxOpen != 1 || st.Expired != 7 {
		t.Errorf("CloseAfter %v: %d open at most, %d expired; want 1 and 7", gap, st.MaxOpen, st.Expired)
	}
	for _, d := range l {
		if d.ends != 1 {
			t.Errorf("%v: %d ends", d.name, d.ends)
		}
	}
}

// Past MaxConns the connection idle longest is closed: one diagnostic
// says so, and Stats counts every eviction.
func TestConnectionCapEvictsIdlest(t *testing.T) {
	recs := readRecords(t, connsPcap, synOnly)
	st, l, diags := runRecords(t, recs, Options{MaxConns: 3})
	if st.MaxOpen != 3 || st.Evicted != 5 || st.Connections != 8 {
		t.Errorf("%d open at most, %d evicted, %d connections; want 3, 5, 8", st.MaxOpen, st.Evicted, st.Connections)
	}
	if len(diags) != 1 || !strings.Contains(diags[0].Msg, "3 connections open at once") || diags[0].Frame != recs[3].Frame {
		t.Errorf("diagnostics %v; want one, at frame %d, saying 3 connections were open", diags, recs[3].Frame)
	}
	// The connections of the first five SYNs are evicted, oldest first,
	// when the 4th to 8th arrive; the last three end with the capture.
	ended := 0
	for _, d := range l {
		if d.ends == 0 {
			continue
		}
		ended++
		want := recs[len(recs)-1].Frame
		if d.conn < 5 {
			want = recs[d.conn+3].Frame
		}
		if d.endFrame != want {
			t.Errorf("connection %d ended at frame %d, want %d", d.conn, d.endFrame, want)
		}
	}
	if ended != 8 {
		t.Errorf("%d directions ended, want 8", ended)
	}
}

// A released connection's memory goes to the next one, so a capture of
// short connections makes no garbage per connection: replaying the
// connections of conns.pcap again and again on one Assembler allocates
// nothing once the first round has.
func TestReleasedConnectionsAllocateNothing(t *testing.T) {
	recs := readRecords(t, connsPcap, all)
	a := NewAssembler(Options{}, func(*Event) {})
	// Each round comes later than the one before (capture time going
	// back would be diagnosed).
	span := recs[len(recs)-1].Time.Sub(recs[0].Time) + time.Millisecond
	round := func() {
		for i := range recs {
			a.Packet(recs[i])
			recs[i].Time = recs[i].Time.Add(span)
		}
	}
	if n := testing.AllocsPerRun(20, round); n != 0 {
		t.Errorf("%v allocations per round of 8 connections, want 0", n)
	}
	// AllocsPerRun runs round once more to warm up.
	if st := a.Stats(); st.Connections != 8*21 || st.MaxOpen != 1 {
		t.Errorf("%d connections, at most %d open; want %d and 1", st.Connections, st.MaxOpen, 8*21)
	}
}
