package zmtp

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestHandshakeAndMessages(t *testing.T) {
	msgs := [][][]byte{
		{[]byte("hello")},
		{[]byte("NixlMsgGuard"), []byte("42"), nil, []byte("x")},
		{bytes.Repeat([]byte{0xAB}, 255), bytes.Repeat([]byte{1}, 256)},
		{bytes.Repeat([]byte("k"), 70000)}, // over 64 KiB
		{nil},
		{[]byte("tail"), bytes.Repeat([]byte{0}, 1000)},
	}
	for _, minor := range []byte{0, 1} {
		s := buildStream(handshake(minor), msgs)
		splits := []struct {
			name  string
			sizes []int
		}{
			{"whole", []int{len(s.bytes)}},
			{"bytewise", []int{1}},
			{"greeting-split", []int{1, 9, 1, 53, 3, 1448}},
			{"segments", []int{1448}},
		}
		for _, sp := range splits {
			t.Run(sp.name+"/3."+string('0'+minor), func(t *testing.T) {
				var r recorder
				d := NewDecoder(&r, Options{})
				feedChunks(d, s.bytes, sp.sizes...)
				d.Close(mark(0))
				synced := d.Synced()
				if len(r.diags) != 0 {
					t.Fatalf("diagnostics: %v", r.diags)
				}
				if len(r.greetings) != 1 {
					t.Fatalf("%d greetings", len(r.greetings))
				}
				g := r.greetings[0]
				if g.Major != 3 || g.Minor != minor || g.Mechanism != "NULL" || g.AsServer {
					t.Errorf("greeting %+v", g)
				}
				if len(r.commands) != 1 || r.commands[0].Name != "READY" {
					t.Fatalf("commands %+v", r.commands)
				}
				if v, _ := r.commands[0].Property("socket-type"); v != "PUSH" {
					t.Errorf("Socket-Type %q", v)
				}
				if d.PeerSocketType() != "PUSH" || !synced {
					t.Errorf("PeerSocketType %q Synced %v", d.PeerSocketType(), synced)
				}
				if got := r.parts(); len(got) != len(msgs) || checkSuffix(t, got, msgs, "") != 0 {
					t.Fatalf("got %d messages, want %d", len(got), len(msgs))
				}
			})
		}
	}
}

func TestRandomSplits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var msgs [][][]byte
	for range 300 {
		if r.IntN(2) == 0 {
			msgs = append(msgs, sglangLike(r))
		} else {
			msgs = append(msgs, randomParts(r))
		}
	}
	s := buildStream(handshake(1), msgs)
	for trial := range 20 {
		var rec recorder
		d := NewDecoder(&rec, Options{})
		feedRandom(d, s.bytes, r, 1+r.IntN(3000))
		d.Close(mark(0))
		if len(rec.diags) != 0 {
			t.Fatalf("trial %d: diagnostics %v", trial, rec.diags)
		}
		if got := rec.parts(); len(got) != len(msgs) || checkSuffix(t, got, msgs, "random splits") != 0 {
			t.Fatalf("trial %d: %d messages, want %d", trial, len(got), len(msgs))
		}
	}
}

// Marks must name the capture frames holding a message's first and last byte.
func TestMarks(t *testing.T) {
	hs := handshake(1)
	m1 := encMessage([]byte("abc"), []byte("def"))
	m2 := encMessage([]byte("x"))
	var r recorder
	d := NewDecoder(&r, Options{})
	d.Feed(hs, mark(1), true)
	d.Feed(m1[:3], mark(2), true)   // flags, size, first body byte
	d.Feed(m1[3:], mark(3), true)   // rest of m1
	d.Feed(m2[:1], mark(4), true)   // flags of m2
	d.Feed(m2[1:], mark(5), true)   // rest of m2
	d.Feed([]byte{}, mark(6), true) // empty feeds are harmless
	if len(r.messages) != 2 {
		t.Fatalf("%d messages", len(r.messages))
	}
	if f, l := r.messages[0].First.Frame, r.messages[0].Last.Frame; f != 2 || l != 3 {
		t.Errorf("message 1 frames %d..%d, want 2..3", f, l)
	}
	if f, l := r.messages[1].First.Frame, r.messages[1].Last.Frame; f != 4 || l != 5 {
		t.Errorf("message 2 frames %d..%d, want 4..5", f, l)
	}
	if r.greetings[0].First.Frame != 1 || r.greetings[0].Last.Frame != 1 {
		t.Errorf("greeting marks %+v", r.greetings[0])
	}
}

// Parts handed out must stay intact whatever the decoder and the caller do
// afterwards.
func TestPartsOwned(t *testing.T) {
	s := buildStream(handshake(1), [][][]byte{
		{[]byte("first"), []byte("second")},
		{[]byte("third")},
	})
	in := append([]byte(nil), s.bytes...)
	var r recorder
	d := NewDecoder(&r, Options{})
	d.Feed(in, mark(1), true)
	for i := range in {
		in[i] = 0xEE
	}
	d.Feed(encMessage([]byte("fourth!")), mark(2), true)
	p := r.messages[0].Parts
	_ = append(p[0], "XXXX"...) // must not clobber part 2
	if string(p[0]) != "first" || string(p[1]) != "second" || string(r.messages[1].Parts[0]) != "third" {
		t.Fatalf("parts changed: %q %q %q", p[0], p[1], r.messages[1].Parts[0])
	}
}

func TestCommands(t *testing.T) {
	tests := []struct {
		name  string
		frame []byte
		check func(t *testing.T, c Command)
		diag  bool
	}{
		{"ping", encCommand("PING", []byte{0x01, 0x2C, 'c', 't', 'x'}), func(t *testing.T, c Command) {
			if c.TTL != 300 || string(c.Context) != "ctx" {
				t.Errorf("PING %+v", c)
			}
		}, false},
		{"pong", encCommand("PONG", []byte("ctx")), func(t *testing.T, c Command) {
			if string(c.Context) != "ctx" {
				t.Errorf("PONG %+v", c)
			}
		}, false},
		{"subscribe", encCommand("SUBSCRIBE", []byte("topic")), func(t *testing.T, c Command) {
			if string(c.Topic) != "topic" {
				t.Errorf("SUBSCRIBE %+v", c)
			}
		}, false},
		{"cancel", encCommand("CANCEL", nil), func(t *testing.T, c Command) {
			if c.Name != "CANCEL" || len(c.Topic) != 0 {
				t.Errorf("CANCEL %+v", c)
			}
		}, false},
		{"error", encCommand("ERROR", append([]byte{6}, "denied"...)), func(t *testing.T, c Command) {
			if c.Reason != "denied" {
				t.Errorf("ERROR %+v", c)
			}
		}, false},
		{"unknown kept", encCommand("X-CUSTOM", []byte{1, 2}), func(t *testing.T, c Command) {
			if c.Name != "X-CUSTOM" || !bytes.Equal(c.Data, []byte{1, 2}) {
				t.Errorf("custom %+v", c)
			}
		}, false},
		{"long READY", encReady("Socket-Type", "PULL", "Identity", strings.Repeat("i", 300)), func(t *testing.T, c Command) {
			if v, _ := c.Property("Identity"); len(v) != 300 {
				t.Errorf("Identity of %d bytes", len(v))
			}
		}, false},
		{"READY value overruns", encCommand("READY", append(encMetadata("Socket-Type", "PUSH"), 3, 'a', 'b', 'c', 0, 0, 0, 9)), func(t *testing.T, c Command) {
			if v, _ := c.Property("Socket-Type"); v != "PUSH" {
				t.Errorf("properties before the error lost: %+v", c.Properties)
			}
		}, true},
		{"ERROR reason overruns", encCommand("ERROR", []byte{9, 'x'}), nil, true},
		{"PING without TTL", encCommand("PING", []byte{1}), nil, true},
		{"name overruns body", encFrame(flagCommand, []byte{9, 'A'}), nil, true},
		{"empty command", encFrame(flagCommand, nil), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			d := NewDecoder(&r, Options{})
			stream := append(handshake(1), tt.frame...)
			stream = append(stream, encMessage([]byte("after"))...)
			feedChunks(d, stream, 1)
			if len(r.commands) != 2 {
				t.Fatalf("%d commands", len(r.commands))
			}
			if tt.check != nil {
				tt.check(t, r.commands[1])
			}
			if got := r.count(KindMalformedCommand) == 1; got != tt.diag || len(r.diags) > 1 {
				t.Errorf("diagnostics %v, want malformed command: %v", r.diags, tt.diag)
			}
			if len(r.messages) != 1 || string(r.messages[0].Parts[0]) != "after" {
				t.Errorf("framing lost after the command: %v", r.parts())
			}
		})
	}
}

// Streams that are not ZMTP 3.x are reported once and then ignored.
func TestNotSupported(t *testing.T) {
	zmtp2 := append([]byte{0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 1, 8}, encFrame(0, []byte("id"))...)
	tests := []struct {
		name   string
		stream []byte
		kind   Kind
	}{
		{"ZMTP 2.0", zmtp2, KindUnsupported},
		{"ZMTP 1.0 long identity", []byte{0xFF, 0, 0, 0, 0, 0, 0, 0, 3, 0, 'a', 'b'}, KindUnsupported},
		{"ZMTP 1.0 anonymous", []byte{0x01, 0x00, 0x05, 0x00, 'h', 'e', 'l', 'l'}, KindNotZMTP},
		{"HTTP", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), KindNotZMTP},
		{"CURVE", append(encGreeting(3, 0, "CURVE", true), encCommand("HELLO", make([]byte, 190))...), KindUnsupported},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 1448} {
			var r recorder
			d := NewDecoder(&r, Options{})
			feedChunks(d, tt.stream, size)
			d.Close(mark(99))
			if len(r.diags) != 1 || r.diags[0].Kind != tt.kind {
				t.Errorf("%s/%d: diagnostics %v, want one %v", tt.name, size, r.diags, tt.kind)
			}
			if r.diags[0].Mark.Frame == 0 {
				t.Errorf("%s: diagnostic without a frame number", tt.name)
			}
			if len(r.messages)+len(r.commands) != 0 || d.Synced() {
				t.Errorf("%s: decoded something from an unsupported stream", tt.name)
			}
		}
	}
}

func TestTruncated(t *testing.T) {
	full := append(handshake(1), encMessage([]byte("one"), bytes.Repeat([]byte("2"), 300))...)
	tests := []struct {
		name string
		cut  int
		msgs int
		kind []Kind
	}{
		{"inside greeting", 30, 0, []Kind{KindTruncated}},
		{"at a boundary", len(handshake(1)), 0, nil},
		{"inside header", len(handshake(1)) + 6, 0, []Kind{KindTruncated, KindDroppedMessage}},
		{"inside body", len(full) - 10, 0, []Kind{KindTruncated, KindDroppedMessage}},
		{"complete", len(full), 1, nil},
	}
	for _, tt := range tests {
		var r recorder
		d := NewDecoder(&r, Options{})
		feedChunks(d, full[:tt.cut], 7)
		d.Close(mark(1000))
		if len(r.messages) != tt.msgs || !equalKinds(r.kinds(), tt.kind) {
			t.Errorf("%s: %d messages, diagnostics %v; want %d, %v", tt.name, len(r.messages), r.diags, tt.msgs, tt.kind)
		}
		for _, dg := range r.diags {
			if dg.Mark.Frame != 1000 {
				t.Errorf("%s: truncation reported at frame %d, want the close mark", tt.name, dg.Mark.Frame)
			}
		}
		d.Feed([]byte{1, 2, 3}, mark(1001), true) // after Close: ignored
	}
}

func equalKinds(a, b []Kind) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestOversize(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var after [][][]byte
	for range 20 {
		after = append(after, sglangLike(r))
	}
	huge := []byte{flagMore | flagLong, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
	before := encMessage([]byte("complete"))
	partial := encFrame(flagMore, []byte("lost part"))
	s := buildStream(nil, after)
	stream := append(append(append(append(handshake(1), before...), partial...), huge...), s.bytes...)
	for _, size := range []int{1, 5, 1448} {
		var rec recorder
		d := NewDecoder(&rec, Options{})
		feedChunks(d, stream, size)
		d.Close(mark(0))
		got := rec.parts()
		if len(got) == 0 || string(got[0][0]) != "complete" {
			t.Fatalf("size %d: message before the oversize frame lost", size)
		}
		k := checkSuffix(t, got[1:], after, "after oversize")
		if k > 2 {
			t.Errorf("size %d: %d messages lost after the oversize frame", size, k)
		}
		want := []Kind{KindOversize, KindDroppedMessage, KindResynced}
		if !equalKinds(rec.kinds(), want) {
			t.Errorf("size %d: diagnostics %v, want kinds %v", size, rec.diags, want)
		}
		if rec.diags[0].Offset != int64(len(handshake(1))+len(before)+len(partial)) {
			t.Errorf("oversize reported at offset %d", rec.diags[0].Offset)
		}
	}
}

// A declared size is never allocated, whatever it says.
func TestOversizeDoesNotAllocate(t *testing.T) {
	hs := handshake(1)
	huge := []byte{flagLong, 0, 0, 0, 0x10, 0, 0, 0, 0} // 64 GiB
	var r recorder
	allocs := testing.AllocsPerRun(20, func() {
		d := NewDecoder(&r, Options{MaxFrameSize: 1 << 40})
		d.Feed(hs, mark(1), true)
		d.Feed(huge, mark(2), true)
		d.Feed(make([]byte, 512), mark(3), true)
	})
	if allocs > 20 {
		t.Errorf("%v allocations for a 64 GiB frame of which 512 bytes arrived", allocs)
	}
}

func TestMaxMessageSize(t *testing.T) {
	msgs := [][][]byte{
		{[]byte("small")},
		{bytes.Repeat([]byte("a"), 600), bytes.Repeat([]byte("b"), 600)},
		{[]byte("next")},
	}
	s := buildStream(handshake(1), msgs)
	var r recorder
	d := NewDecoder(&r, Options{MaxMessageSize: 1000})
	feedChunks(d, s.bytes, 100)
	got := r.parts()
	if len(got) != 2 || string(got[0][0]) != "small" || string(got[1][0]) != "next" {
		t.Fatalf("messages %v", got)
	}
	if !equalKinds(r.kinds(), []Kind{KindOversize}) || !d.Synced() {
		t.Errorf("diagnostics %v", r.diags)
	}
}

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
