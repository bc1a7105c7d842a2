package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite testdata/fuzz/FuzzDecode from the seed messages")

// joinParts and splitParts map a multipart message to one fuzz input and
// back: each part is a uvarint length and its bytes. A length that runs past
// the end takes what is left, so every input is some message.
func joinParts(parts [][]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return b
}

func splitParts(data []byte) [][]byte {
	parts := [][]byte{}
	for len(data) > 0 {
		n, k := binary.Uvarint(data)
		if k <= 0 {
			parts = append(parts, data)
			break
		}
		data = data[k:]
		if n > uint64(len(data)) {
			n = uint64(len(data))
		}
		parts = append(parts, data[:n])
		data = data[n:]
	}
	return parts
}

// seedMessages is one of each form and of the interesting malformed ones.
func seedMessages() [][][]byte {
	seeds := [][][]byte{
		nixlRegistration(),
		nixlRegistration()[:13],
		nixlTransferInfo(123456789, []int32{1, 2, 3}, packI32Lists([]int32{9, 10}), "16", "0"),
		nixlTransferInfo(42, nil, []byte{}, "", "1"),
		nixlTransferInfo(7, []int32{1}, nil, "", "")[:8],
		msg("ABORT", 99, "10.0.0.2", 41000),
		msg("ABORT", 99),
		msg("ABORT_ACK", 99, 3),
		msg("ABORT_ACK", 99),
		msg("WATERMARK", 3, 4096, "sess-a"),
		msg("STAGING_REQ", 11, 0, 4, "sess-a"),
		msg("STAGING_RSP", 11, 0, 128, 2, 640, "sess-a"),
		mooncakeRegistration(),
		mooncakeTransferInfo(77),
		msg(77, 4, 1),
		msg(77, 0, 3, "kv chunk send failed"),
		msg("AUX_DATA", 77, 0, 5, []byte{0, 0, 0, 3}, []byte{0xaa, 0xbb, 0xcc}),
		msg("CHUNK_READY", 17, 2, 8, 4, "s", 3),
		nixlTransferInfo(5, []int32{1}, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, "0", "0"),
		nixlTransferInfo(5, []int32{1}, []byte{1, 0, 0, 0, 3, 0, 0, 0, 1, 2, 3}, "0", "0"),
		msg("NixlMsgGuard", "9223372036854775808", "ip", 1, "a", []byte{1, 2, 3}, 0, 1),
		{},
		{{}},
	}
	return seeds
}

// TestSplitParts checks that the fuzz input mapping round-trips, so seeds
// reach the fuzz function as the messages they were built from.
func TestSplitParts(t *testing.T) {
	for i, parts := range seedMessages() {
		got := splitParts(joinParts(parts))
		if len(got) != len(parts) {
			t.Fatalf("seed %d: %d parts back, want %d", i, len(got), len(parts))
		}
		for j := range parts {
			if string(got[j]) != string(parts[j]) {
				t.Fatalf("seed %d part %d: got %q, want %q", i, j, got[j], parts[j])
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, parts := range seedMessages() {
		f.Add(joinParts(parts))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parts := splitParts(data)
		m := Decode(parts)
		if again := Decode(parts); !reflect.DeepEqual(m, again) {
			t.Fatalf("Decode is not deterministic:\n%#v\n%#v", m, again)
		}
		var d Decoder
		if _, ok := m.(*Unknown); !ok {
			pooled := d.Decode(parts)
			d.Decode(parts) // carved next to the first: must not touch it
			if !reflect.DeepEqual(m, pooled) {
				t.Fatalf("Decoder.Decode differs from Decode:\n%#v\n%#v", pooled, m)
			}
		}
		// A reusing Decoder, its memory dirtied by a first decode (of a
		// seed and of this input), still gives Decode's value.
		rd := Decoder{Reuse: true}
		rd.Decode(reuseDirt)
		rd.Decode(parts)
		if again := rd.Decode(parts); !reflect.DeepEqual(m, again) {
			t.Fatalf("Decoder{Reuse: true}.Decode differs from Decode:\n%#v\n%#v", again, m)
		}
		j, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("json.Marshal(%T): %v", m, err)
		}
		if a, err := AppendJSON(nil, m); err != nil || string(a) != string(j) {
			t.Fatalf("AppendJSON(%T) = %s, %v; json.Marshal: %s", m, a, err, j)
		}
		_ = m.Summary()
		room, hasRoom := m.Room()
		u, isUnknown := m.(*Unknown)
		switch {
		case isUnknown:
			if u.Reason == "" || u.Reason != u.Err.Error() {
				t.Fatalf("Unknown without a reason: %#v", u)
			}
			if !errors.Is(u.Err, ErrNoParts) && !errors.Is(u.Err, ErrUnrecognized) &&
				!errors.Is(u.Err, ErrFrameCount) && !errors.Is(u.Err, ErrMalformed) {
				t.Fatalf("Unknown error wraps no sentinel: %v", u.Err)
			}
			if hasRoom {
				t.Fatalf("Unknown has room %d", room)
			}
		default:
			if m.Kind().Direction() == "" {
				t.Fatalf("decoded kind %q has no direction", m.Kind())
			}
			// Every decoded message was identified by its leading frame, and
			// one with a room carries it in frame 0 or 1.
			if hasRoom {
				r0, err0 := parseInt(parts[0])
				r1, err1 := parseInt(parts[1])
				if !(err0 == nil && r0 == room) && !(err1 == nil && r1 == room) {
					t.Fatalf("room %d is in neither frame 0 %q nor frame 1 %q", room, parts[0], parts[1])
				}
			}
		}
	})
}

// TestWriteCorpus writes the seeds as committed corpus files when run with
// -update-corpus, and otherwise checks that every seed has its file.
func TestWriteCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzDecode")
	seeds := seedMessages()
	if *updateCorpus {
		// Real messages from the capture generator's ground truth, one per
		// kind and frame count. Only written, never checked: that file
		// belongs to the captures and may be regenerated.
		seeds = append(seeds, truthSeeds(t)...)
	}
	for i, parts := range seeds {
		data := joinParts(parts)
		name := fmt.Sprintf("seed-%x", sha256.Sum256(data))[:21]
		path := filepath.Join(dir, name)
		content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if *updateCorpus || i >= len(seedMessages()) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("seed corpus file missing (run go test -run TestWriteCorpus -update-corpus): %v", err)
		}
		if string(got) != content {
			t.Fatalf("%s is stale (run go test -run TestWriteCorpus -update-corpus)", path)
		}
	}
}
