package capture

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/internal/golden"
	"github.com/roomspec/roomspec/internal/truth"
)

// captures lists the committed real captures.
func captures(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/captures/*.pcap*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures in ../testdata/captures: %v", err)
	}
	return files
}

// truthMsg is a message of a capture's ground truth (internal/truth).
type truthMsg = truth.Message

func readTruth(t testing.TB, capPath string) []truthMsg {
	t.Helper()
	out, err := truth.Of(capPath)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// halfLog is everything the events said about one direction.
type halfLog struct {
	half      Half // as it was at its first event: the Assembler reuses a *Half after its End
	data      []byte
	chunks    int
	segStarts int
	frames    []int
	gaps      int
	lost      int
	starts    int
	ends      int
}

func collect(t testing.TB, path string, opt Options) (map[string]*halfLog, Result, []Diagnostic) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	logs := map[string]*halfLog{}
	var diags []Diagnostic
	opt.Diagnose = func(d Diagnostic) { diags = append(diags, d) }
	res, err := Run(f, opt, func(e *Event) {
		k := e.Half.String()
		l := logs[k]
		if l == nil {
			l = &halfLog{half: *e.Half}
			logs[k] = l
		}
		switch e.Kind {
		case EventStart:
			l.starts++
		case EventData:
			l.data = append(l.data, e.Data...)
			l.chunks++
			if e.SegmentStart {
				l.segStarts++
			}
			l.frames = append(l.frames, e.Frame)
		case EventGap:
			l.gaps++
			l.lost += e.Lost
		case EventEnd:
			l.ends++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return logs, res, diags
}

// TestRealCapturesCarryEveryPart checks reassembly without any ZMTP
// knowledge: every frame body the sender sent must appear, in order, in
// the reassembled stream of its connection.
func TestRealCapturesCarryEveryPart(t *testing.T) {
	for _, path := range captures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			logs, res, diags := collect(t, path, Options{})
			if res.Err != nil {
				t.Errorf("read error: %v", res.Err)
			}
			for _, d := range diags {
				t.Errorf("unexpected diagnostic: %v", d)
			}
			pos := map[string]int{}
			for i, m := range readTruth(t, path) {
				if m.Before {
					continue
				}
				l := logs[m.Conn]
				if l == nil {
					t.Fatalf("message %d: no stream %s", i, m.Conn)
				}
				for j, p := range m.Parts {
					b, _ := base64.StdEncoding.DecodeString(p)
					k := bytes.Index(l.data[pos[m.Conn]:], b)
					if k < 0 {
						t.Fatalf("message %d part %d (%d bytes) not in stream %s after offset %d", i, j, len(b), m.Conn, pos[m.Conn])
					}
					pos[m.Conn] += k + len(b)
				}
			}
			for k, l := range logs {
				if l.starts != 1 || l.ends != 1 {
					t.Errorf("%s: %d starts, %d ends; want 1 and 1", k, l.starts, l.ends)
				}
				if l.gaps != 0 {
					t.Errorf("%s: %d gaps (%d bytes) in a lossless capture", k, l.gaps, l.lost)
				}
				for i := 1; i < len(l.frames); i++ {
					if l.frames[i] < l.frames[i-1] {
						t.Errorf("%s: frame %d after frame %d", k, l.frames[i], l.frames[i-1])
						break
					}
				}
			}
		})
	}
}

// TestGolden pins the per-direction summary (bytes, chunks, frame range,
// mid-stream flag) of each capture. The frame ranges were checked against
// tshark's conversation list when the golden files were made.
func TestGolden(t *testing.T) {
	for _, path := range captures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			logs, res, _ := collect(t, path, Options{})
			var b strings.Builder
			s := res.Stats
			fmt.Fprintf(&b, "format %v frames %d tcp %d other %d malformed %d connections %d halves %d gaps %d bytes %d\n",
				res.Format, s.Frames, s.TCPSegments, s.Other, s.Malformed, s.Connections, s.Halves, s.Gaps, s.Bytes)
			var ls []*halfLog
			for _, l := range logs {
				ls = append(ls, l)
			}
			sort.Slice(ls, func(i, j int) bool { return ls[i].half.ID < ls[j].half.ID })
			for _, l := range ls {
				first, last := 0, 0
				if len(l.frames) > 0 {
					first, last = l.frames[0], l.frames[len(l.frames)-1]
				}
				fmt.Fprintf(&b, "%d conn %d %s midstream=%v bytes=%d chunks=%d segstarts=%d frames=%d..%d\n",
					l.half.ID, l.half.Conn, l.half.String(), l.half.MidStream, len(l.data), l.chunks, l.segStarts, first, last)
			}
			golden.Check(t, filepath.Join("testdata", filepath.Base(path)+".golden"), []byte(b.String()))
		})
	}
}
