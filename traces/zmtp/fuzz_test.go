package zmtp

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

var writeCorpus = flag.Bool("write-corpus", false, "rewrite the generated seeds in testdata/fuzz")

// fuzzHandler checks the invariants every event must satisfy and keeps a
// private copy of each message to detect later corruption of its parts.
type fuzzHandler struct {
	t      *testing.T
	opts   Options
	frames int // frames fed so far: marks must name one of them
	msgs   []Message
	copies [][][]byte
	diags  []Diagnostic
}

// reuseHandler records copies of what a ReuseParts decoder lends it.
type reuseHandler struct {
	copies [][][]byte
	diags  []Diagnostic
}

func (h *reuseHandler) Greeting(Greeting) {}
func (h *reuseHandler) Command(Command)   {}
func (h *reuseHandler) Message(m Message) {
	cp := make([][]byte, len(m.Parts))
	for i, p := range m.Parts {
		cp[i] = bytes.Clone(p)
	}
	h.copies = append(h.copies, cp)
}
func (h *reuseHandler) Diagnostic(d Diagnostic) { h.diags = append(h.diags, d) }

// sameAsReuse checks that a ReuseParts decoder lent exactly the messages
// and reported exactly the diagnostics of the owning one.
func sameAsReuse(t *testing.T, h *fuzzHandler, r *reuseHandler) {
	t.Helper()
	if len(r.copies) != len(h.copies) {
		t.Fatalf("ReuseParts: %d messages, without it %d", len(r.copies), len(h.copies))
	}
	for i := range h.copies {
		if !equalParts(r.copies[i], h.copies[i]) {
			t.Fatalf("ReuseParts: message %d differs", i)
		}
	}
	if fmt.Sprint(r.diags) != fmt.Sprint(h.diags) {
		t.Fatalf("ReuseParts: diagnostics differ:\n%v\n%v", r.diags, h.diags)
	}
}

func (h *fuzzHandler) checkMark(what string, m Mark) {
	if m.Frame < 0 || m.Frame > h.frames {
		h.t.Fatalf("%s: mark frame %d, only %d fed", what, m.Frame, h.frames)
	}
}

func (h *fuzzHandler) Greeting(g Greeting) {
	h.checkMark("greeting", g.First)
	h.checkMark("greeting", g.Last)
	if g.Major < 3 {
		h.t.Fatalf("greeting version %s reported as supported", g.Version())
	}
}

func (h *fuzzHandler) Command(c Command) {
	h.checkMark("command", c.First)
	h.checkMark("command", c.Last)
	if uint64(len(c.Data)) > h.opts.MaxFrameSize {
		h.t.Fatalf("command data of %d bytes over the frame limit", len(c.Data))
	}
}

func (h *fuzzHandler) Message(m Message) {
	h.checkMark("message", m.First)
	h.checkMark("message", m.Last)
	if len(m.Parts) == 0 {
		h.t.Fatal("message without parts")
	}
	if m.First.Frame > m.Last.Frame {
		h.t.Fatalf("message ends in frame %d before it starts in %d", m.Last.Frame, m.First.Frame)
	}
	total := 0
	cp := make([][]byte, len(m.Parts))
	for i, p := range m.Parts {
		if uint64(len(p)) > h.opts.MaxFrameSize {
			h.t.Fatalf("part of %d bytes over the frame limit", len(p))
		}
		if cap(p) != len(p) {
			h.t.Fatalf("part %d has spare capacity %d: appending to it would overwrite", i, cap(p)-len(p))
		}
		total += len(p)
		cp[i] = bytes.Clone(p)
	}
	if uint64(total) > h.opts.MaxMessageSize {
		h.t.Fatalf("message of %d bytes over the message limit", total)
	}
	h.msgs = append(h.msgs, m)
	h.copies = append(h.copies, cp)
}

func (h *fuzzHandler) Diagnostic(d Diagnostic) {
	h.checkMark("diagnostic "+d.Kind.String(), d.Mark)
	if d.Kind < KindGap || d.Kind > KindNoSync || d.Text == "" {
		h.t.Fatalf("bad diagnostic %#v", d)
	}
	if d.Skipped < 0 {
		h.t.Fatalf("negative skip in %v", d)
	}
	h.diags = append(h.diags, d)
}

// fuzzOptions derives decoder options from a mode byte; small limits make
// the fuzzer reach the oversize and window paths.
func fuzzOptions(mode byte) Options {
	o := Options{MidStream: mode&1 != 0, SegmentStartsOnly: mode&2 != 0, ResyncChain: int(mode>>4) & 7}
	if mode&4 != 0 {
		o.MaxFrameSize, o.MaxMessageSize = 1<<10, 1<<12
	}
	if mode&8 != 0 {
		o.ResyncWindow = 1 << 11
	}
	return o.withDefaults()
}

// FuzzDecoder feeds arbitrary bytes cut at arbitrary points: a cut byte is
// the next chunk's length, zero means a gap. Nothing may panic, memory
// stays within the configured bounds, and every emitted message is
// well-formed and stays intact.
func FuzzDecoder(f *testing.F) {
	for _, s := range generatedSeeds() {
		f.Add(s.data, s.cuts, s.mode)
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte, mode byte) {
		opts := fuzzOptions(mode)
		h := &fuzzHandler{t: t, opts: opts}
		d := NewDecoder(h, opts)
		ropts := opts
		ropts.ReuseParts = true
		rh := &reuseHandler{}
		rd := NewDecoder(rh, ropts)
		in := bytes.Clone(data)
		for i := 0; len(in) > 0; i++ {
			n := len(in)
			if len(cuts) > 0 {
				c := int(cuts[i%len(cuts)])
				if c == 0 {
					h.frames++
					d.Gap(Mark{Frame: h.frames})
					rd.Gap(Mark{Frame: h.frames})
					c = 1 // keep going even when every cut is a gap
				}
				n = min(c, n)
			}
			h.frames++
			d.Feed(in[:n], Mark{Frame: h.frames}, i%3 == 0)
			rd.Feed(in[:n], Mark{Frame: h.frames}, i%3 == 0)
			in = in[n:]
			checkBounds(t, d, opts)
			checkBounds(t, rd, opts)
		}
		h.frames++
		d.Close(Mark{Frame: h.frames})
		rd.Close(Mark{Frame: h.frames})
		sameAsReuse(t, h, rh)
		d.Feed(data, Mark{Frame: h.frames}, true) // ignored after Close
		clear(data)
		for i, m := range h.msgs {
			if !equalParts(m.Parts, h.copies[i]) {
				t.Fatalf("message %d changed after it was emitted", i)
			}
		}
	})
}

func checkBounds(t *testing.T, d *Decoder, o Options) {
	t.Helper()
	if n := len(d.rs.buf); n > o.ResyncWindow+resyncPiece {
		t.Fatalf("resync buffer %d bytes, window %d", n, o.ResyncWindow)
	}
	if n := len(d.rs.walkers); n > maxWalkers {
		t.Fatalf("%d resync walkers", n)
	}
	if n := uint64(d.msgLen()); n > o.MaxMessageSize {
		t.Fatalf("message buffer %d bytes, limit %d", n, o.MaxMessageSize)
	}
	if n := uint64(len(d.cmdBuf)); n > o.MaxFrameSize {
		t.Fatalf("command buffer %d bytes, limit %d", n, o.MaxFrameSize)
	}
}

// FuzzRoundTrip encodes messages built from the input, decodes them in
// chunks cut from the input, and requires exactly the same messages back
// with no diagnostics.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("NixlMsgGuard\x0042\x0010.0.0.1\x00\x00"), []byte{3, 1, 200}, byte(1))
	f.Add(bytes.Repeat([]byte{0, 1, 0, 0}, 200), []byte{1}, byte(0))
	f.Add(bytes.Repeat([]byte("x"), 70000), []byte{255, 7}, byte(2))
	f.Fuzz(func(t *testing.T, data, cuts []byte, sep byte) {
		var msgs [][][]byte
		for _, m := range bytes.Split(data, []byte{sep, sep}) {
			msgs = append(msgs, bytes.Split(m, []byte{sep}))
		}
		s := buildStream(handshake(sep&1), msgs)
		var rec recorder
		d := NewDecoder(&rec, Options{})
		in := s.bytes
		for i := 0; len(in) > 0; i++ {
			n := len(in)
			if len(cuts) > 0 {
				n = min(max(int(cuts[i%len(cuts)]), 1), n)
			}
			d.Feed(in[:n], Mark{Frame: i + 1}, true)
			in = in[n:]
		}
		d.Close(Mark{})
		if len(rec.diags) != 0 {
			t.Fatalf("diagnostics %v", rec.diags)
		}
		got := rec.parts()
		if len(got) != len(msgs) {
			t.Fatalf("%d messages, want %d", len(got), len(msgs))
		}
		for i := range got {
			if !equalParts(got[i], msgs[i]) {
				t.Fatalf("message %d: %s, want %s", i, describe(got[i]), describe(msgs[i]))
			}
		}
	})
}

type seed struct {
	name       string
	data, cuts []byte
	mode       byte
}

// generatedSeeds are encoded streams covering each path of the decoder.
func generatedSeeds() []seed {
	r := rand.New(rand.NewPCG(31, 32))
	var msgs [][][]byte
	for range 12 {
		msgs = append(msgs, sglangLike(r))
	}
	s := buildStream(handshake(1), msgs)
	mid := s.bytes[s.starts[2]+17:]
	zmtp2 := append([]byte{0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 1, 8}, encFrame(0, []byte("id"))...)
	withCommands := append(handshake(1), encCommand("PING", []byte{0, 10, 'c'})...)
	withCommands = append(withCommands, encCommand("SUBSCRIBE", []byte("t"))...)
	withCommands = append(withCommands, encCommand("ERROR", append([]byte{4}, "nope"...))...)
	withCommands = append(withCommands, encMessage([]byte("a"), bytes.Repeat([]byte("b"), 300))...)
	oversize := append(append(handshake(0), encFrame(flagMore, []byte("p"))...), flagLong, 0, 0, 0, 1, 0, 0, 0, 0)
	oversize = append(oversize, s.bytes[s.starts[3]:]...)
	garbage := append(append(handshake(1), []byte("\xf0\x00garbage\x05\x05")...), s.bytes[s.starts[5]:]...)
	return []seed{
		{"stream-whole", s.bytes, nil, 0},
		{"stream-segments", s.bytes, []byte{200, 1, 63}, 0},
		{"stream-gap", s.bytes, []byte{100, 0, 250}, 0},
		{"midstream", mid, []byte{255}, 1},
		{"midstream-segments-only", mid, []byte{90, 255}, 3},
		{"midstream-small-window", mid, []byte{255}, 1 | 8 | 4<<4},
		{"commands", withCommands, []byte{1}, 0},
		{"oversize", oversize, nil, 4},
		{"garbage", garbage, []byte{33}, 0},
		{"zmtp2", zmtp2, nil, 0},
		{"curve", encGreeting(3, 0, "CURVE", false), nil, 0},
		{"truncated", s.bytes[:len(s.bytes)-5], nil, 0},
	}
}

// TestWriteCorpus rewrites the committed seed corpus from the generated
// seeds (go test -run WriteCorpus -write-corpus). Seeds taken from the
// real captures are written by TestRealStreams.
func TestWriteCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("use -write-corpus to rewrite testdata/fuzz")
	}
	for _, s := range generatedSeeds() {
		writeSeed(t, s)
	}
}

func writeSeed(t *testing.T, s seed) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", "FuzzDecoder")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n[]byte(%q)\nbyte(%d)\n", s.data, s.cuts, s.mode)
	if err := os.WriteFile(filepath.Join(dir, s.name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
