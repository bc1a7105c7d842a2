package zmtp

import (
	"math/rand/v2"
	"testing"
)

type countHandler struct{ msgs, parts int }

func (h *countHandler) Greeting(Greeting)     {}
func (h *countHandler) Command(Command)       {}
func (h *countHandler) Message(m Message)     { h.msgs++; h.parts += len(m.Parts) }
func (h *countHandler) Diagnostic(Diagnostic) {}

// sglangStream is a long stream of 11-part TransferInfo-like messages of
// about 100-400 bytes, as SGLang's decode ranks send them.
func sglangStream(n int) ([]byte, int) {
	r := rand.New(rand.NewPCG(41, 42))
	b := handshake(1)
	count := 0
	for len(b) < n {
		m := sglangLike(r)
		if len(m) != 11 {
			continue
		}
		b = append(b, encMessage(m...)...)
		count++
	}
	return b, count
}

// BenchmarkDecode decodes SGLang-sized messages fed in 1448-byte segments
// (an Ethernet MSS with TCP timestamps).
func BenchmarkDecode(b *testing.B) { benchDecode(b, Options{}) }

// BenchmarkDecodeReuseParts is BenchmarkDecode with lent parts.
func BenchmarkDecodeReuseParts(b *testing.B) { benchDecode(b, Options{ReuseParts: true}) }

func benchDecode(b *testing.B, opts Options) {
	stream, msgs := sglangStream(4 << 20)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var h countHandler
	for b.Loop() {
		d := NewDecoder(&h, opts)
		for i, frame := 0, 1; i < len(stream); i, frame = i+1448, frame+1 {
			d.Feed(stream[i:min(i+1448, len(stream))], Mark{Frame: frame}, true)
		}
		d.Close(Mark{})
	}
	b.ReportMetric(float64(msgs)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// BenchmarkResyncNoise measures the search on bytes that never sync:
// what a non-ZeroMQ connection seen mid-stream costs.
func BenchmarkResyncNoise(b *testing.B) {
	r := rand.New(rand.NewPCG(43, 44))
	kinds := map[string]func([]byte){
		"random": func(p []byte) { fillRandom(r, p) },
		"int32le": func(p []byte) {
			clear(p)
			for i := 0; i+4 <= len(p); i += 4 {
				p[i], p[i+1] = byte(r.IntN(256)), byte(r.IntN(16))
			}
		},
		"zeros": func(p []byte) { clear(p) },
	}
	for name, fillFn := range kinds {
		b.Run(name, func(b *testing.B) {
			buf := make([]byte, 1<<20)
			fillFn(buf)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			var h countHandler
			for b.Loop() {
				d := NewDecoder(&h, Options{MidStream: true})
				for i := 0; i < len(buf); i += 1448 {
					d.Feed(buf[i:min(i+1448, len(buf))], Mark{}, true)
				}
			}
		})
	}
}
