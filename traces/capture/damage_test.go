package capture

import (
	"strings"
	"testing"
	"time"
)

// run feeds recs to a new Assembler and returns the diagnostics, the
// bytes delivered per direction and the stats.
func run(t *testing.T, recs []Record) ([]Diagnostic, map[string]string, Stats) {
	t.Helper()
	var diags []Diagnostic
	got := map[string]string{}
	a := NewAssembler(Options{Diagnose: func(d Diagnostic) { diags = append(diags, d) }}, func(e *Event) {
		if e.Kind == EventData {
			got[e.Half.String()] += string(e.Data)
		}
	})
	for _, r := range recs {
		a.Packet(r)
	}
	a.Close()
	return diags, got, a.Stats()
}

func kinds(diags []Diagnostic) []DiagKind {
	out := make([]DiagKind, len(diags))
	for i, d := range diags {
		out[i] = d.Kind
	}
	return out
}

const c2s = "10.0.0.1:4000->10.0.0.2:5555"

// TestFragments: an IPv4 datagram sent as fragments, in any order, is
// reassembled into its TCP segment; fragments of a datagram that never
// completes are said at the end.
func TestFragments(t *testing.T) {
	payload := []byte(strings.Repeat("0123456789abcdef", 8))
	whole := seg{src: "10.0.0.1:4000", dst: "10.0.0.2:5555", seq: 101, payload: payload}
	tcp := tcpBytes(t, whole)
	frag := func(off, n int, more bool, id uint16) seg {
		s := whole
		s.rawIPPayload, s.fragOff, s.moreFrags, s.ipID = tcp[off:off+n], uint16(off/8), more, id
		return s
	}
	n := len(tcp)
	syn := seg{src: "10.0.0.1:4000", dst: "10.0.0.2:5555", seq: 100, syn: true}
	recs := records(t, syn, frag(48, n-48, false, 7), frag(0, 24, true, 7), frag(24, 24, true, 7))
	diags, got, st := run(t, recs)
	if got[c2s] != string(payload) || len(diags) != 0 || st.Fragments != 3 || st.Defragmented != 1 {
		t.Errorf("delivered %q, diagnostics %v, %d fragments, %d datagrams", got[c2s], diags, st.Fragments, st.Defragmented)
	}

	recs = records(t, syn, frag(0, 24, true, 8))
	diags, _, st = run(t, recs)
	if len(diags) != 1 || diags[0].Kind != DiagFragment || st.Damage.Of(DiagFragment) != 1 {
		t.Errorf("an incomplete datagram: diagnostics %v", diags)
	}
}

// TestRetransmissionConflict: a retransmission that repeats delivered
// bytes is checked against the first copy, one segment at a time or
// several coalesced into one; a faithful one says nothing, one that
// differs is said, and the first copy is what was delivered.
func TestRetransmissionConflict(t *testing.T) {
	at := func(seq uint32, p string) seg {
		return seg{src: "10.0.0.1:4000", dst: "10.0.0.2:5555", seq: seq, payload: []byte(p)}
	}
	syn := seg{src: "10.0.0.1:4000", dst: "10.0.0.2:5555", seq: 100, syn: true}
	for _, tc := range []struct {
		name  string
		segs  []seg
		first int // frame of the first copy that differs, 0 for none
	}{
		{"faithful", []seg{syn, at(101, "hello"), at(101, "hello"), at(106, " world")}, 0},
		{"differs", []seg{syn, at(101, "hello"), at(101, "HELLO"), at(106, " world")}, 2},
		{"coalesced faithful", []seg{syn, at(101, "hello"), at(106, " world"), at(101, "hello world!")}, 0},
		{"coalesced differs", []seg{syn, at(101, "hello"), at(106, " world"), at(101, "hello World!")}, 3},
		{"buffered copy differs", []seg{syn, at(106, " world"), at(101, "hello"), at(106, " World")}, 2},
	} {
		diags, got, _ := run(t, records(t, tc.segs...))
		wantData := "hello world"
		if strings.HasSuffix(tc.name, "!") || strings.HasPrefix(tc.name, "coalesced") {
			wantData = "hello world!"
		}
		if got[c2s] != wantData {
			t.Errorf("%s: delivered %q, want %q", tc.name, got[c2s], wantData)
		}
		switch {
		case tc.first == 0 && len(diags) != 0:
			t.Errorf("%s: diagnostics %v", tc.name, diags)
		case tc.first != 0 && (len(diags) != 1 || diags[0].Kind != DiagRetransmission || !strings.Contains(diags[0].Msg, "frame "+string(rune('0'+tc.first)))):
			t.Errorf("%s: diagnostics %v, want one conflict with frame %d", tc.name, diags, tc.first)
		}
	}
}

// TestTimeJump: capture time that steps back (beyond the jitter of a
// capture on several cores) or forward by an hour is said, once per step.
func TestTimeJump(t *testing.T) {
	s := func(at time.Duration) seg {
		return seg{src: "10.0.0.1:4000", dst: "10.0.0.2:5555", seq: 100, syn: true, at: at}
	}
	for _, tc := range []struct {
		name string
		at   []time.Duration
		want int
	}{
		{"steady", []time.Duration{1, 2 * time.Second, 3 * time.Second}, 0},
		{"jitter", []time.Duration{1, 5 * time.Millisecond, 4 * time.Millisecond, 6 * time.Millisecond}, 0},
		{"back", []time.Duration{1, 10 * time.Second, 5 * time.Second, 6 * time.Second}, 1},
		{"forward", []time.Duration{1, time.Second, 2 * time.Hour, 2*time.Hour + time.Second}, 1},
	} {
		segs := make([]seg, len(tc.at))
		for i, at := range tc.at {
			segs[i] = s(at)
		}
		diags, _, st := run(t, records(t, segs...))
		if st.Damage.Of(DiagTimeJump) != tc.want || len(diags) != tc.want {
			t.Errorf("%s: %d time jumps (%v), want %d", tc.name, st.Damage.Of(DiagTimeJump), diags, tc.want)
		}
	}
}
