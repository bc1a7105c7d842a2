package wire

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// truthMessage is one line of traces/testdata/captures/*.truth.jsonl: a
// message that the capture generator (traces/testdata/make_captures.py)
// really sent through libzmq, built with Python's struct.pack, so it checks
// this decoder against an encoder written independently of it.
type truthMessage struct {
	File  string
	Kind  string   `json:"kind"`
	Parts []string `json:"parts"`
}

func readTruth(t *testing.T) []truthMessage {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "captures", "*.truth.jsonl"))
	if len(files) == 0 {
		t.Fatal("no ground truth in ../testdata/captures: it is committed, so this is a broken checkout")
	}
	var out []truthMessage
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			m := truthMessage{File: filepath.Base(name)}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, m)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return out
}

func (m truthMessage) parts(t *testing.T) [][]byte {
	parts := make([][]byte, len(m.Parts))
	for i, p := range m.Parts {
		b, err := base64.StdEncoding.DecodeString(p)
		if err != nil {
			t.Fatalf("%s: part %d: %v", m.File, i, err)
		}
		parts[i] = b
	}
	return parts
}

// truthSeeds returns one real message per generator kind and frame count.
func truthSeeds(t *testing.T) [][][]byte {
	seen := map[string]bool{}
	var out [][][]byte
	for _, m := range readTruth(t) {
		key := fmt.Sprint(m.Kind, len(m.Parts))
		if !seen[key] {
			seen[key] = true
			out = append(out, m.parts(t))
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
		got := Decode(m.parts(t))
		if got.Kind() != Kind(m.Kind) {
			t.Errorf("%s: %s with %d frames decodes as %s: %s", m.File, m.Kind, len(m.Parts), got.Kind(), got.Summary())
		}
		counts[got.Kind()]++
	}
	t.Logf("decoded: %v", counts)
}
