package zmtp

import (
	"bytes"
	"math/rand/v2"
	"runtime"
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

// TestMaxParts: a message of more frames than MaxParts is dropped whole,
// said once, and the stream stays in sync, whichever way the bytes come.
func TestMaxParts(t *testing.T) {
	many := make([][]byte, 101)
	for i := range many {
		many[i] = []byte{}
	}
	msgs := [][][]byte{{[]byte("small")}, many, {[]byte("next")}}
	s := buildStream(handshake(1), msgs)
	for _, size := range []int{1, 7, 100, len(s.bytes)} {
		var r recorder
		d := NewDecoder(&r, Options{MaxParts: 100})
		feedChunks(d, s.bytes, size)
		got := r.parts()
		if len(got) != 2 || string(got[0][0]) != "small" || string(got[1][0]) != "next" {
			t.Fatalf("size %d: messages %v", size, got)
		}
		if !equalKinds(r.kinds(), []Kind{KindOversize}) || !d.Synced() || !strings.Contains(r.diags[0].Text, "101 frames, limit 100") {
			t.Errorf("size %d: diagnostics %v", size, r.diags)
		}
	}
}

// TestManyEmptyFramesBounded: one message of 10 million empty frames (20
// MB on the wire) is dropped at DefaultMaxParts, with memory that does
// not grow with its frames (it took 1 GB).
func TestManyEmptyFramesBounded(t *testing.T) {
	chunk := bytes.Repeat([]byte{flagMore, 0}, 32<<10)
	var r recorder
	d := NewDecoder(&r, Options{})
	d.Feed(handshake(1), mark(1), true)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	const frames = 10_000_000
	for fed := 0; fed < frames; fed += len(chunk) / 2 {
		d.Feed(chunk, mark(2), true)
	}
	d.Feed([]byte{0, 0}, mark(3), true) // the last frame
	runtime.ReadMemStats(&m1)
	if !equalKinds(r.kinds(), []Kind{KindOversize}) || len(r.messages) != 0 {
		t.Fatalf("diagnostics %v, %d messages", r.diags, len(r.messages))
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 16<<20 {
		t.Errorf("%d MB allocated for one message of %d empty frames", alloc>>20, frames)
	}
	d.Feed(encMessage([]byte("after")), mark(4), true)
	if len(r.messages) != 1 || !d.Synced() {
		t.Errorf("the message after it: %d messages, synced %v", len(r.messages), d.Synced())
	}
}
