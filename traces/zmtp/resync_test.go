package zmtp

// These tests cover how the decoder finds its way back to frame boundaries
// after malformed input, gaps and mid-stream starts.

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestMalformedFrameResyncs(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var after [][][]byte
	for range 30 {
		after = append(after, sglangLike(r))
	}
	s := buildStream(nil, after)
	for _, garbage := range [][]byte{
		{0x80},
		{0x05, 0x03, 'a', 'b', 'c'},
		[]byte("\xf0 garbage in the stream \x00\x00\x00\x00\x00\x00\x00\x00"),
	} {
		stream := append(append(append(handshake(1), encMessage([]byte("ok"))...), garbage...), s.bytes...)
		var rec recorder
		d := NewDecoder(&rec, Options{})
		feedChunks(d, stream, 1448)
		got := rec.parts()
		if len(got) == 0 || string(got[0][0]) != "ok" {
			t.Fatalf("garbage %q: message before it lost", garbage)
		}
		if k := checkSuffix(t, got[1:], after, "after garbage"); k > 2 {
			t.Errorf("garbage %q: %d messages lost", garbage, k)
		}
		if rec.count(KindMalformedFrame) != 1 || rec.count(KindResynced) != 1 {
			t.Errorf("garbage %q: diagnostics %v", garbage, rec.diags)
		}
	}
}

// A capture that starts inside the stream resynchronizes, emits only
// messages that were sent, and misses none after the resync point.
func TestMidStream(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	gens := []struct {
		name string
		gen  func(*rand.Rand) [][]byte
	}{{"sglang", sglangLike}, {"random", randomParts}}
	for _, g := range gens {
		name, gen := g.name, g.gen
		var msgs [][][]byte
		for range 100 {
			msgs = append(msgs, gen(r))
		}
		s := buildStream(nil, msgs)
		limit := s.starts[50]
		for off := 0; off < limit; off += 1 + off/500 {
			for _, opts := range []Options{{MidStream: true}, {MidStream: true, SegmentStartsOnly: true}} {
				if opts.SegmentStartsOnly && off%7 != 0 {
					continue
				}
				var rec recorder
				d := NewDecoder(&rec, opts)
				feedChunks(d, s.bytes[off:], 1448)
				d.Close(mark(0))
				got := rec.parts()
				k := checkSuffix(t, got, msgs, fmt.Sprintf("%s offset %d %+v", name, off, opts))
				if opts.SegmentStartsOnly && rec.count(KindNoSync) == 1 && len(got) == 0 {
					// No cut fell on a frame boundary: honest failure.
					continue
				}
				if rec.count(KindResynced) != 1 || len(rec.diags) != 1 {
					t.Fatalf("%s offset %d: diagnostics %v", name, off, rec.diags)
				}
				first := firstAfter(s.starts, off)
				if k < first {
					t.Fatalf("%s offset %d: message %d emitted but its start was not captured", name, off, k)
				}
				// Segment-only resync waits for a frame-aligned segment
				// start; the by-offset search must find one within a few
				// messages.
				if !opts.SegmentStartsOnly && k > first+12 {
					t.Errorf("%s offset %d: resync lost %d messages", name, off, k-first)
				}
				rd := rec.diags[0]
				if rd.Skipped != int64(s.starts[k]-off) {
					t.Errorf("%s offset %d: Skipped %d, want %d", name, off, rd.Skipped, s.starts[k]-off)
				}
				if !d.Synced() && len(got) == 0 {
					t.Errorf("%s offset %d: not synced", name, off)
				}
			}
		}
	}
}

func firstAfter(starts []int, off int) int {
	for i, s := range starts {
		if s >= off {
			return i
		}
	}
	return len(starts)
}

// Bytes lost in the middle of the stream: messages before the gap are
// emitted, the one cut by it is dropped, and decoding resumes after it.
func TestGap(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var msgs [][][]byte
	for range 200 {
		msgs = append(msgs, sglangLike(r))
	}
	s := buildStream(handshake(1), msgs)
	for trial := range 200 {
		from := len(handshake(1)) + r.IntN(len(s.bytes)/2)
		to := from + 1 + r.IntN(5000)
		var rec recorder
		d := NewDecoder(&rec, Options{})
		n := feedChunks(d, s.bytes[:from], 1448)
		d.Gap(mark(n + 1))
		feedChunks(d, s.bytes[to:], 1448)
		d.Close(mark(0))
		got := rec.parts()
		// Messages completed before the gap come first, unchanged.
		before := 0
		for before < len(msgs) && s.starts[before]+len(encMessage(msgs[before]...)) <= from {
			before++
		}
		if len(got) < before || checkSuffix(t, got[:before], msgs[:before], "before gap") != 0 {
			t.Fatalf("trial %d: messages before the gap lost", trial)
		}
		k := checkSuffix(t, got[before:], msgs, "after gap")
		if first := firstAfter(s.starts, to); k < first || k > first+12 {
			t.Fatalf("trial %d: resumed at message %d, first whole message after the gap is %d", trial, k, first)
		}
		if rec.count(KindGap) != 1 || rec.count(KindResynced) != 1 {
			t.Fatalf("trial %d: diagnostics %v", trial, rec.diags)
		}
		// A message counts as cut once its first frame header is complete
		// (every first part here has a 2-byte header).
		cut := before < len(msgs) && s.starts[before]+2 <= from
		if got := rec.count(KindDroppedMessage) == 1; got != cut {
			t.Fatalf("trial %d: dropped-message diagnostic %v, message cut by the gap %v", trial, got, cut)
		}
	}
}

// A gap inside the greeting, and a gap while still searching.
func TestGapEdgeCases(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var msgs [][][]byte
	for range 50 {
		msgs = append(msgs, sglangLike(r))
	}
	s := buildStream(handshake(1), msgs)

	var rec recorder
	d := NewDecoder(&rec, Options{})
	d.Feed(s.bytes[:20], mark(1), true)
	d.Gap(mark(2))
	feedChunks(d, s.bytes[900:], 1448)
	if checkSuffix(t, rec.parts(), msgs, "gap in greeting"); len(rec.messages) == 0 {
		t.Errorf("nothing decoded after a gap in the greeting: %v", rec.diags)
	}

	rec = recorder{}
	d = NewDecoder(&rec, Options{MidStream: true})
	d.Feed(s.bytes[500:503], mark(1), true)
	d.Gap(mark(2))
	d.Feed(s.bytes[700:701], mark(3), true)
	d.Gap(mark(4))
	feedChunks(d, s.bytes[1000:], 1448)
	d.Close(mark(0))
	if checkSuffix(t, rec.parts(), msgs, "gap while searching"); len(rec.messages) == 0 {
		t.Errorf("nothing decoded: %v", rec.diags)
	}
	if rec.count(KindGap) != 2 || rec.count(KindResynced) != 1 {
		t.Errorf("diagnostics %v", rec.diags)
	}

	// Never synced: Close says so, with the bytes it skipped.
	rec = recorder{}
	d = NewDecoder(&rec, Options{MidStream: true})
	d.Feed([]byte("not zmtp at all, just some text going on and on"), mark(1), true)
	d.Close(mark(2))
	if !equalKinds(rec.kinds(), []Kind{KindNoSync}) || rec.diags[0].Skipped != 47 {
		t.Errorf("diagnostics %v", rec.diags)
	}
}

// Resync buffering stays within the window whatever the input.
func TestResyncMemoryBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	opts := Options{MidStream: true, ResyncWindow: 16 << 10}
	var rec recorder
	d := NewDecoder(&rec, opts)
	inputs := map[string]func([]byte){
		"zeros":  func(b []byte) { clear(b) },
		"random": func(b []byte) { fillRandom(r, b) },
		"ones":   func(b []byte) { fill(b, 1) },
		// Fake long headers claiming ~60 KiB keep walkers alive.
		"fake long": func(b []byte) {
			clear(b)
			for i := 0; i+9 < len(b); i += 97 {
				copy(b[i:], []byte{flagLong, 0, 0, 0, 0, 0, 0, 0xF0, 0})
			}
		},
	}
	for name, fillFn := range inputs {
		buf := make([]byte, 100<<10)
		for range 20 {
			fillFn(buf)
			d.Feed(buf, mark(1), true)
			if n := len(d.rs.buf); n > opts.ResyncWindow+resyncPiece {
				t.Fatalf("%s: resync buffer %d bytes", name, n)
			}
			if len(d.rs.walkers) > maxWalkers {
				t.Fatalf("%s: %d walkers", name, len(d.rs.walkers))
			}
		}
	}
	if len(rec.messages) != 0 {
		t.Errorf("%d messages decoded from noise", len(rec.messages))
	}
}

func fillRandom(r *rand.Rand, b []byte) {
	for i := range b {
		b[i] = byte(r.Uint32())
	}
}

func fill(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// Resynchronizing from every start offset of streams whose content looks
// like frames (random and mostly-zero binary parts) never emits a message
// that was not sent. This is the measurement behind DefaultResyncChain.
func TestResyncFalsePositives(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	gens := []struct {
		name string
		gen  func(*rand.Rand) [][]byte
	}{{"sglang", sglangLike}, {"random", randomParts}}
	for _, g := range gens {
		r := rand.New(rand.NewPCG(21, 22))
		var msgs [][][]byte
		for range 60 {
			msgs = append(msgs, g.gen(r))
		}
		s := buildStream(nil, msgs)
		lost, n := 0, 0
		for off := 0; off < s.starts[30]; off++ {
			var rec recorder
			d := NewDecoder(&rec, Options{MidStream: true})
			feedChunks(d, s.bytes[off:], 1448)
			k := checkSuffix(t, rec.parts(), msgs, fmt.Sprintf("%s offset %d", g.name, off))
			lost += k - firstAfter(s.starts, off)
			n++
		}
		t.Logf("%s: %d start offsets, on average %.2f whole messages skipped", g.name, n, float64(lost)/float64(n))
	}
}

// The ZMTP rows of issue 6's malformed-input list: each gives a diagnostic
// naming the capture frame, never a panic, bounded memory, and what can
// still be decoded is.
func TestMalformedInput(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	var msgs [][][]byte
	for range 40 {
		msgs = append(msgs, sglangLike(r))
	}
	s := buildStream(handshake(1), msgs)
	hs := len(handshake(1))
	noise := make([]byte, 50000)
	fillRandom(r, noise)
	// Each chunk is one capture frame; chunk i has frame number i+1.
	type chunk struct {
		data []byte
		gap  bool // a Gap before this chunk
	}
	tests := []struct {
		name      string
		opts      Options
		chunks    []chunk
		kinds     []Kind // diagnostic kinds, in order
		frame     int    // capture frame of the first diagnostic
		wantFirst int    // messages emitted before the trouble
		wantAfter bool   // and the sent messages after it (a suffix)
	}{
		{"truncated greeting", Options{}, []chunk{{data: s.bytes[:40]}}, []Kind{KindTruncated}, 2, 0, false},
		{"truncated frame", Options{}, []chunk{{data: s.bytes[:hs]}, {data: s.bytes[hs : s.starts[2]+30]}},
			[]Kind{KindTruncated, KindDroppedMessage}, 3, 2, false},
		{"garbage bytes", Options{}, []chunk{{data: s.bytes[:s.starts[3]]}, {data: []byte("\xffGARBAGE\x00\x07")}, {data: s.bytes[s.starts[3]:]}},
			[]Kind{KindMalformedFrame, KindResynced}, 2, 3, true},
		{"huge declared size", Options{}, []chunk{{data: s.bytes[:s.starts[3]]}, {data: []byte{flagLong, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0}}, {data: s.bytes[s.starts[3]:]}},
			[]Kind{KindOversize, KindResynced}, 2, 3, true},
		{"gap in the stream", Options{}, []chunk{{data: s.bytes[:s.starts[5]+40]}, {data: s.bytes[s.starts[9]+7:], gap: true}},
			[]Kind{KindGap, KindDroppedMessage, KindResynced}, 2, 5, true},
		{"not ZMTP", Options{}, []chunk{{data: []byte("SSH-2.0-OpenSSH_9.2\r\n")}, {data: noise}}, []Kind{KindNotZMTP}, 1, 0, false},
		{"not ZMTP, mid-stream", Options{MidStream: true}, []chunk{{data: noise}, {data: noise}}, []Kind{KindNoSync}, 3, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec recorder
			d := NewDecoder(&rec, tt.opts)
			for i, c := range tt.chunks {
				if c.gap {
					d.Gap(mark(i + 1))
				}
				d.Feed(c.data, mark(i+1), true)
				if len(d.rs.buf) > d.opts.ResyncWindow+resyncPiece || d.msgLen() > len(s.bytes) {
					t.Fatalf("buffers grew to %d and %d bytes", len(d.rs.buf), d.msgLen())
				}
			}
			d.Close(mark(len(tt.chunks) + 1))
			if !equalKinds(rec.kinds(), tt.kinds) {
				t.Fatalf("diagnostics %v, want kinds %v", rec.diags, tt.kinds)
			}
			if rec.diags[0].Mark.Frame != tt.frame {
				t.Errorf("first diagnostic in frame %d, want %d: %v", rec.diags[0].Mark.Frame, tt.frame, rec.diags[0])
			}
			got := rec.parts()
			if len(got) < tt.wantFirst || checkSuffix(t, got[:tt.wantFirst], msgs[:tt.wantFirst], "before") != 0 {
				t.Fatalf("%d messages, want the first %d intact", len(got), tt.wantFirst)
			}
			rest := got[tt.wantFirst:]
			if tt.wantAfter {
				if k := checkSuffix(t, rest, msgs, "after"); len(rest) == 0 || k > len(msgs)-20 {
					t.Errorf("only %d messages after the trouble", len(rest))
				}
			} else if len(rest) != 0 {
				t.Errorf("%d messages after the trouble, want none", len(rest))
			}
		})
	}
}

// Large frames: resync needs ResyncChain of them after the boundary inside
// the window. Frames of 30 000 bytes fit (6 × 30 000 < 256 KiB); frames of
// 70 000 do not, and the decoder then honestly never syncs.
func TestResyncLargeFrames(t *testing.T) {
	for _, tt := range []struct {
		size int
		sync bool
	}{{30000, true}, {70000, false}} {
		r := rand.New(rand.NewPCG(17, 18))
		var msgs [][][]byte
		for range 20 {
			p := make([]byte, tt.size)
			fillRandom(r, p)
			msgs = append(msgs, [][]byte{p})
		}
		s := buildStream(nil, msgs)
		var rec recorder
		d := NewDecoder(&rec, Options{MidStream: true})
		feedChunks(d, s.bytes[1000:], 1448)
		d.Close(mark(0))
		k := checkSuffix(t, rec.parts(), msgs, fmt.Sprint(tt.size))
		if synced := len(rec.messages) > 0; synced != tt.sync {
			t.Errorf("frames of %d bytes: synced %v after skipping %d messages, want %v: %v", tt.size, synced, k, tt.sync, rec.diags)
		}
	}
}
