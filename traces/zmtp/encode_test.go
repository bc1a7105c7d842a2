package zmtp

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// This file encodes ZMTP per RFC 23/37 for the tests: greetings, frames,
// commands and messages, plus a recording Handler and feeding helpers.

func encGreeting(major, minor byte, mech string, server bool) []byte {
	g := make([]byte, greetingSize)
	g[0] = 0xFF
	// Padding bytes 1..8 are never validated; put noise there to prove it.
	copy(g[1:9], []byte{0, 0, 0, 0, 0, 0, 0, 1})
	g[9] = 0x7F
	g[10], g[11] = major, minor
	copy(g[12:32], mech)
	if server {
		g[32] = 1
	}
	return g
}

// encFrame encodes one frame with the shortest size field, as libzmq does.
func encFrame(flags byte, body []byte) []byte {
	var b []byte
	if len(body) > 255 {
		b = append(b, flags|flagLong)
		b = binary.BigEndian.AppendUint64(b, uint64(len(body)))
	} else {
		b = append(b, flags, byte(len(body)))
	}
	return append(b, body...)
}

func encMessage(parts ...[]byte) []byte {
	var b []byte
	for i, p := range parts {
		var f byte
		if i < len(parts)-1 {
			f = flagMore
		}
		b = append(b, encFrame(f, p)...)
	}
	return b
}

func encCommand(name string, data []byte) []byte {
	body := append([]byte{byte(len(name))}, name...)
	return encFrame(flagCommand, append(body, data...))
}

func encMetadata(kv ...string) []byte {
	var b []byte
	for i := 0; i+1 < len(kv); i += 2 {
		b = append(b, byte(len(kv[i])))
		b = append(b, kv[i]...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(kv[i+1])))
		b = append(b, kv[i+1]...)
	}
	return b
}

func encReady(kv ...string) []byte { return encCommand("READY", encMetadata(kv...)) }

// sglangLike returns a message shaped like SGLang control traffic: an
// 11-part TransferInfo with little-endian page indices (zero-heavy binary),
// or a 4-part ABORT.
func sglangLike(r *rand.Rand) [][]byte {
	room := strconv.Itoa(r.IntN(1 << 30))
	if r.IntN(5) == 0 {
		return [][]byte{[]byte("ABORT"), []byte(room), []byte("10.0.0." + strconv.Itoa(r.IntN(255))), []byte(strconv.Itoa(49152 + r.IntN(16000)))}
	}
	pages := make([]byte, 0, 256)
	n := r.IntN(64)
	start := r.IntN(5000)
	for i := 0; i < n; i++ {
		pages = binary.LittleEndian.AppendUint32(pages, uint32(start+i))
	}
	var state []byte
	if r.IntN(3) == 0 {
		state = binary.LittleEndian.AppendUint32(nil, 1)
		state = binary.LittleEndian.AppendUint32(state, 8)
		state = binary.LittleEndian.AppendUint64(state, uint64(r.IntN(100)))
	}
	return [][]byte{
		[]byte("NixlMsgGuard"), []byte(room), []byte("10.0.0." + strconv.Itoa(r.IntN(255))),
		[]byte(strconv.Itoa(49152 + r.IntN(16000))), []byte("agent-" + strconv.Itoa(r.IntN(8))),
		pages, []byte(strconv.Itoa(r.IntN(1000))), []byte("1"), state, []byte("0"), []byte("0"),
	}
}

// randomParts returns a message of random binary parts, many of them
// mostly zero, the hardest content for resynchronization.
func randomParts(r *rand.Rand) [][]byte {
	parts := make([][]byte, 1+r.IntN(6))
	for i := range parts {
		p := make([]byte, r.IntN(300))
		switch r.IntN(3) {
		case 0:
			for j := range p {
				p[j] = byte(r.IntN(256))
			}
		case 1:
			for j := 0; j < len(p); j += 4 {
				p[j] = byte(r.IntN(8))
			}
		}
		parts[i] = p
	}
	return parts
}

type wireStream struct {
	bytes []byte
	msgs  [][][]byte
	// starts[i] is the offset of message i's first byte.
	starts []int
}

func buildStream(prefix []byte, msgs [][][]byte) wireStream {
	s := wireStream{bytes: append([]byte(nil), prefix...), msgs: msgs}
	for _, m := range msgs {
		s.starts = append(s.starts, len(s.bytes))
		s.bytes = append(s.bytes, encMessage(m...)...)
	}
	return s
}

func handshake(minor byte) []byte {
	b := encGreeting(3, minor, "NULL", false)
	return append(b, encReady("Socket-Type", "PUSH", "Identity", "")...)
}

// recorder is a Handler that keeps everything.
type recorder struct {
	greetings []Greeting
	commands  []Command
	messages  []Message
	diags     []Diagnostic
}

func (r *recorder) Greeting(g Greeting)     { r.greetings = append(r.greetings, g) }
func (r *recorder) Command(c Command)       { r.commands = append(r.commands, c) }
func (r *recorder) Message(m Message)       { r.messages = append(r.messages, m) }
func (r *recorder) Diagnostic(d Diagnostic) { r.diags = append(r.diags, d) }

func (r *recorder) kinds() []Kind {
	var k []Kind
	for _, d := range r.diags {
		k = append(k, d.Kind)
	}
	return k
}

func (r *recorder) count(k Kind) int {
	n := 0
	for _, d := range r.diags {
		if d.Kind == k {
			n++
		}
	}
	return n
}

func (r *recorder) parts() [][][]byte {
	var out [][][]byte
	for _, m := range r.messages {
		out = append(out, m.Parts)
	}
	return out
}

func mark(frame int) Mark {
	return Mark{Frame: frame, Time: time.Unix(1700000000, 0).Add(time.Duration(frame) * time.Millisecond)}
}

// feedChunks feeds b cut at the given sizes (the last size repeats); chunk
// i gets Mark frame i+1 and is a segment start.
func feedChunks(d *Decoder, b []byte, sizes ...int) int {
	frame := 0
	for i := 0; len(b) > 0; i++ {
		n := sizes[min(i, len(sizes)-1)]
		n = min(max(n, 1), len(b))
		frame++
		d.Feed(b[:n], mark(frame), true)
		b = b[n:]
	}
	return frame
}

func feedRandom(d *Decoder, b []byte, r *rand.Rand, maxChunk int) int {
	frame := 0
	for len(b) > 0 {
		n := min(1+r.IntN(maxChunk), len(b))
		frame++
		d.Feed(b[:n], mark(frame), true)
		b = b[n:]
	}
	return frame
}

func equalParts(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// checkSuffix requires got to be exactly want[k:] for some k and returns k.
func checkSuffix(t *testing.T, got, want [][][]byte, ctx string) int {
	t.Helper()
	if len(got) > len(want) {
		t.Fatalf("%s: %d messages emitted, only %d sent", ctx, len(got), len(want))
	}
	k := len(want) - len(got)
	for i := range got {
		if !equalParts(got[i], want[k+i]) {
			t.Fatalf("%s: message %d of %d emitted is not sent message %d: %s", ctx, i, len(got), k+i, describe(got[i]))
		}
	}
	return k
}

func describe(parts [][]byte) string {
	s := fmt.Sprintf("%d parts:", len(parts))
	for i, p := range parts {
		if i == 4 {
			s += " ..."
			break
		}
		s += fmt.Sprintf(" %q", p[:min(len(p), 16)])
	}
	return s
}
