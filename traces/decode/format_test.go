package decode

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/internal/golden"
	"github.com/roomspec/roomspec/traces/capture"
)

// TestFormatGolden pins the text and JSON renderings of a whole capture.
func TestFormatGolden(t *testing.T) {
	for _, name := range []string{"sll2.pcap", "mooncake.pcap"} {
		t.Run(name, func(t *testing.T) {
			r := decodeFile(t, filepath.Join("../testdata/captures", name), Options{})
			var text, js strings.Builder
			for _, m := range r.msgs {
				text.WriteString(m.Text(nil) + "\n")
				b, err := m.JSON(nil)
				if err != nil {
					t.Fatal(err)
				}
				js.Write(b)
				js.WriteString("\n")
			}
			text.WriteString(r.sum.String() + "\n")
			for _, g := range []struct{ ext, got string }{{".txt", text.String()}, {".jsonl", js.String()}} {
				golden.Check(t, filepath.Join("testdata", name+g.ext), []byte(g.got))
			}
		})
	}
}

// TestJSONShape checks the documented JSON contract on every message of
// a capture: types of frame, time, src, dst, kind, room, fields, parts.
func TestJSONShape(t *testing.T) {
	r := decodeFile(t, "../testdata/captures/nixl_ranks.pcap", Options{})
	rooms := 0
	for _, m := range r.msgs {
		b, err := m.JSON(inFile("x.pcap"))
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if _, ok := v["frame"].(float64); !ok {
			t.Errorf("frame not a number: %s", b)
		}
		if s, _ := v["time"].(string); len(s) != len("2006-01-02T15:04:05.000000000Z") {
			t.Errorf("time %q not RFC 3339 with nanoseconds", s)
		}
		if _, ok := v["fields"].(map[string]any); !ok {
			t.Errorf("fields not an object: %s", b)
		}
		if p, _ := v["parts"].([]any); len(p) != len(m.Parts) {
			t.Errorf("parts: %d, want %d", len(p), len(m.Parts))
		}
		room, present := v["room"]
		if !present {
			t.Errorf("room missing: %s", b)
		}
		if room != nil {
			rooms++
		}
		if v["file"] != "x.pcap" || v["src"] == "" || v["kind"] == "" {
			t.Errorf("file/src/kind: %s", b)
		}
	}
	if rooms == 0 {
		t.Error("no message had a room")
	}
}

// fmtText is how Text rendered a message with fmt before AppendText: the
// reference it must match byte for byte.
func fmtText(m *Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s %s → %s %s→%s %s", m.Frame, m.Time.Format(TimeFormat), m.Src, m.Dst,
		orQ(m.SrcSocket), orQ(m.DstSocket), m.Wire.Kind())
	s := m.Wire.Summary()
	if room, ok := m.Wire.Room(); ok {
		r := fmt.Sprintf("room=%d", room)
		s = strings.TrimPrefix(strings.TrimPrefix(s, r), " ")
		b.WriteString(" " + r)
	}
	if s != "" {
		b.WriteString(" ")
		b.WriteString(s)
	}
	return b.String()
}

// TestTextMatchesFmt renders every message of every committed capture and
// compares it with the fmt reference.
func TestTextMatchesFmt(t *testing.T) {
	n := 0
	for _, f := range captureFiles(t) {
		for _, m := range decodeFile(t, f, Options{}).msgs {
			n++
			if got, want := m.Text(nil), fmtText(m); got != want {
				t.Fatalf("%s frame %d:\n got %q\nwant %q", f, m.Frame, got, want)
			}
			if got := string(m.AppendText([]byte("x"), nil)); got != "x"+m.Text(nil) {
				t.Fatalf("AppendText does not append: %q", got)
			}
		}
	}
	t.Logf("%d messages", n)
}

// refJSON is how JSON rendered a message with json.Marshal before
// AppendJSON: the reference it must match byte for byte.
func refJSON(m *Message, at Positions) ([]byte, error) {
	type jsonMessage struct {
		File       string          `json:"file,omitempty"`
		Frame      int             `json:"frame"`
		FirstFile  *string         `json:"first_file,omitempty"`
		FirstFrame int             `json:"first_frame"`
		Time       string          `json:"time"`
		Src        string          `json:"src"`
		Dst        string          `json:"dst"`
		SrcSocket  string          `json:"src_socket,omitempty"`
		DstSocket  string          `json:"dst_socket,omitempty"`
		Kind       string          `json:"kind"`
		Room       *int64          `json:"room"`
		Fields     json.RawMessage `json:"fields"`
		Parts      []string        `json:"parts"`
	}
	fields, err := json.Marshal(m.Wire)
	if err != nil {
		return nil, err
	}
	pos, first := position(at, m.Frame), position(at, m.FirstFrame)
	j := jsonMessage{File: pos.File, Frame: pos.Frame, FirstFrame: first.Frame, Time: m.Time.Format(TimeFormat),
		Src: m.Src.String(), Dst: m.Dst.String(), SrcSocket: m.SrcSocket, DstSocket: m.DstSocket,
		Kind: string(m.Wire.Kind()), Fields: fields, Parts: make([]string, len(m.Parts))}
	if room, ok := m.Wire.Room(); ok {
		j.Room = &room
	}
	if first.File != pos.File {
		j.FirstFile = &first.File
	}
	for i, p := range m.Parts {
		j.Parts[i] = base64.StdEncoding.EncodeToString(p)
	}
	return json.Marshal(j)
}

// TestJSONMatchesMarshal renders every message of every committed
// capture, under file names and socket types that need escaping, and
// compares it with the json.Marshal reference.
func TestJSONMatchesMarshal(t *testing.T) {
	names := []string{"", "x.pcap", "dir/a b.pcapng", "q\"<&>\\\t\u2028\xff.pcap"}
	n := 0
	for _, f := range captureFiles(t) {
		for i, m := range decodeFile(t, f, Options{}).msgs {
			if i%5 == 1 {
				c := *m
				c.SrcSocket, c.DstSocket = names[i%len(names)], "PU<SH>"
				m = &c
			}
			file := names[i%len(names)]
			var at Positions
			if file != "" {
				at = inFile(file)
			}
			if i%7 == 3 {
				// The message began in the file before.
				at = twoFiles{file, m.Frame}
			}
			got, err := m.JSON(at)
			if err != nil {
				t.Fatal(err)
			}
			want, err := refJSON(m, at)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Fatalf("%s frame %d:\n got %s\nwant %s", f, m.Frame, got, want)
			}
			n++
		}
	}
	t.Logf("%d messages", n)
}

// inFile puts every frame in one named file.
type inFile string

func (f inFile) Position(frame int) capture.Position {
	return capture.Position{File: string(f), Frame: frame}
}

// twoFiles puts the frames before from in "before.pcap" and the others in
// file, numbered from 1.
type twoFiles struct {
	file string
	from int
}

func (f twoFiles) Position(frame int) capture.Position {
	if frame < f.from {
		return capture.Position{File: "before.pcap", Frame: frame}
	}
	return capture.Position{File: f.file, Frame: frame - f.from + 1}
}
