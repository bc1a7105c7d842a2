// Package truth reads the ground truth of the committed captures
// (traces/testdata/captures/NAME.truth.jsonl): every message the capture
// generator (traces/testdata/make_captures.py) really sent through
// libzmq, one JSON object a line, built with Python's struct.pack, so
// that the decoders are checked against an encoder written
// independently of them. The tests of capture, zmtp, wire and decode
// read it through this package.
package truth

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Message is one message the generator sent.
type Message struct {
	// File is the base name of the truth file it was read from.
	File string `json:"-"`
	// Seq numbers the messages of a connection.
	Seq int `json:"seq"`
	// Conn is the connection it was sent on, "SRC->DST".
	Conn string `json:"conn"`
	// Kind is the kind the generator meant to send, as traces/wire names
	// message kinds.
	Kind string `json:"kind"`
	// Parts are the message's frames, base64.
	Parts []string `json:"parts"`
	// Before says it was sent before the capture began.
	Before bool `json:"before_capture"`
}

// Bytes returns the message's frames.
func (m *Message) Bytes() ([][]byte, error) {
	out := make([][]byte, len(m.Parts))
	for i, p := range m.Parts {
		b, err := base64.StdEncoding.DecodeString(p)
		if err != nil {
			return nil, fmt.Errorf("%s: seq %d: part %d: %w", m.File, m.Seq, i, err)
		}
		out[i] = b
	}
	return out, nil
}

// Path is the truth file of the capture at capture (NAME.pcap or
// NAME.pcapng).
func Path(capture string) string {
	return strings.TrimSuffix(strings.TrimSuffix(capture, ".pcapng"), ".pcap") + ".truth.jsonl"
}

// Of reads the truth of the capture at capture.
func Of(capture string) ([]Message, error) { return Read(Path(capture)) }

// Read reads a truth file.
func Read(path string) ([]Message, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Message
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		m := Message{File: filepath.Base(path)}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// All reads the truth files in dir, in name order; a folder without any
// is an error (they are committed: a broken checkout).
func All(dir string) ([]Message, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.truth.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no ground truth (*.truth.jsonl) in %s: it is committed, so this is a broken checkout", dir)
	}
	var out []Message
	for _, f := range files {
		ms, err := Read(f)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}
