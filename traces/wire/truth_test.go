package wire

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/roomspec/roomspec/internal/truth"
)

// truthMessage is a message of the committed captures' ground truth
// (internal/truth): one that the capture generator really sent through
// libzmq, built with Python's struct.pack, so it checks this decoder
// against an encoder written independently of it.
type truthMessage = truth.Message

func readTruth(t *testing.T) []truthMessage {
	t.Helper()
	out, err := truth.All(filepath.Join("..", "testdata", "captures"))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// parts returns m's frames.
func parts(t *testing.T, m truthMessage) [][]byte {
	t.Helper()
	b, err := m.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// truthSeeds returns one real message per generator kind and frame count.
func truthSeeds(t *testing.T) [][][]byte {
	seen := map[string]bool{}
	var out [][][]byte
	for _, m := range readTruth(t) {
		key := fmt.Sprint(m.Kind, len(m.Parts))
		if !seen[key] {
			seen[key] = true
			out = append(out, parts(t, m))
		}
	}
	return out
}

// TestTruthCaptures decodes every message of the committed captures' ground
// truth, which names the kind the generator meant to send with this
// package's kind names: each must decode to exactly that kind.
func TestTruthCaptures(t *testing.T) {
	counts := map[Kind]int{}
	for _, m := range readTruth(t) {
		got := Decode(parts(t, m))
		if got.Kind() != Kind(m.Kind) {
			t.Errorf("%s: %s with %d frames decodes as %s: %s", m.File, m.Kind, len(m.Parts), got.Kind(), got.Summary())
		}
		counts[got.Kind()]++
	}
	t.Logf("decoded: %v", counts)
}
