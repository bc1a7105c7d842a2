package decode

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/roomspec/roomspec/internal/truth"
	"github.com/roomspec/roomspec/traces/capture"
)

// truthMsg is a message of a capture's ground truth (internal/truth).
type truthMsg = truth.Message

func captureFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/captures/*.pcap*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures in ../testdata/captures: %v", err)
	}
	return files
}

func readTruth(t testing.TB, capPath string) []truthMsg {
	t.Helper()
	out, err := truth.Of(capPath)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// got is one decoded message reduced to what the ground truth records.
type got struct {
	Kind  string
	Parts []string
}

type runResult struct {
	byConn map[string][]got
	msgs   []*Message
	diags  []Diagnostic
	sum    Summary
}

func decodeBytes(t testing.TB, data []byte, opt Options) runResult {
	t.Helper()
	r := runResult{byConn: map[string][]got{}}
	sum, err := Run(bytes.NewReader(data), opt, func(m *Message) {
		g := got{Kind: string(m.Wire.Kind())}
		for _, p := range m.Parts {
			g.Parts = append(g.Parts, base64.StdEncoding.EncodeToString(p))
		}
		k := m.Src.String() + "->" + m.Dst.String()
		r.byConn[k] = append(r.byConn[k], g)
		r.msgs = append(r.msgs, m)
	}, func(d Diagnostic) { r.diags = append(r.diags, d) })
	if err != nil {
		t.Fatal(err)
	}
	r.sum = sum
	if !opt.Reuse {
		checkReuse(t, data, opt, r)
	}
	return r
}

// rendered is a message as the CLI prints it, in both formats.
func rendered(t testing.TB, m *Message) string {
	t.Helper()
	j, err := m.JSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(j) + "\n" + m.Text(nil)
}

// checkReuse decodes data again with Options.Reuse, and requires the same
// messages, rendered inside the callback, and the same diagnostics and
// summary as the run without it (want); the Clones kept from that run must
// render the same after it, when the lent memory has long been reused.
func checkReuse(t testing.TB, data []byte, opt Options, want runResult) {
	t.Helper()
	opt.Reuse = true
	var lent []string
	var kept []*Message
	var diags []Diagnostic
	sum, err := Run(bytes.NewReader(data), opt, func(m *Message) {
		lent = append(lent, rendered(t, m))
		kept = append(kept, m.Clone())
	}, func(d Diagnostic) { diags = append(diags, d) })
	if err != nil {
		t.Fatal(err)
	}
	if len(lent) != len(want.msgs) {
		t.Fatalf("Reuse: %d messages, without it %d", len(lent), len(want.msgs))
	}
	for i, m := range want.msgs {
		w := rendered(t, m)
		if lent[i] != w {
			t.Fatalf("Reuse: message %d is\n%s\nwithout Reuse\n%s", i, lent[i], w)
		}
		if g := rendered(t, kept[i]); g != w {
			t.Fatalf("Reuse: Clone of message %d is\n%s\nwithout Reuse\n%s", i, g, w)
		}
	}
	if !cmp.Equal(diags, want.diags) || !cmp.Equal(sum, want.sum) {
		t.Fatalf("Reuse: diagnostics or summary differ:\n%v\n%v\n%v\n%v", diags, want.diags, sum, want.sum)
	}
}

func decodeFile(t testing.TB, path string, opt Options) runResult {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decodeBytes(t, data, opt)
}

// TestGroundTruth decodes every committed capture and requires exactly the
// messages the sender sent, per connection, in order, with the intended
// kind. In the mid-stream capture the decoder can only start at the
// resync point it reports: there every message whose first byte lies at or
// after that offset of the captured stream must be decoded, and nothing
// else. (The capture started while the connections were idle, so captured
// offset 0 is the first byte of the first message sent after it; a
// message's offset is the ZMTP-encoded size of those before it.)
func TestGroundTruth(t *testing.T) {
	for _, path := range captureFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r := decodeFile(t, path, Options{})
			want := map[string][]got{}
			firstAfter := map[string]int{}
			for _, m := range readTruth(t, path) {
				if _, ok := firstAfter[m.Conn]; !ok {
					firstAfter[m.Conn] = -1
				}
				if !m.Before && firstAfter[m.Conn] < 0 {
					firstAfter[m.Conn] = len(want[m.Conn])
				}
				want[m.Conn] = append(want[m.Conn], got{Kind: m.Kind, Parts: m.Parts})
			}
			resyncAt := map[string]int64{}
			for _, d := range r.diags {
				if d.Kind == KindResynced {
					resyncAt[d.Conn] = d.Offset
				}
			}
			midstream := false
			for conn, w := range want {
				g := r.byConn[conn]
				if k := firstAfter[conn]; k > 0 {
					midstream = true
					at, ok := resyncAt[conn]
					if !ok {
						t.Errorf("%s: no resync reported", conn)
						continue
					}
					off := int64(0)
					i := k
					for ; i < len(w) && off < at; i++ {
						off += zmtpSize(w[i].Parts)
					}
					if off != at {
						t.Errorf("%s: resync offset %d is not a message boundary (next at %d)", conn, at, off)
					}
					t.Logf("%s: resync at offset %d costs %d of %d messages sent after the capture began", conn, at, i-k, len(w)-k)
					w = w[i:]
				}
				if d := cmp.Diff(w, g); d != "" {
					t.Errorf("%s: messages differ from ground truth (-want +got):\n%s", conn, d)
				}
			}
			for conn := range r.byConn {
				if _, ok := want[conn]; !ok {
					t.Errorf("messages on %s, which the sender never used", conn)
				}
			}
			for _, d := range r.diags {
				if midstream && d.Kind == KindResynced {
					continue
				}
				t.Errorf("unexpected diagnostic: %v", d)
			}
			if r.sum.Unknown != 0 {
				t.Errorf("%d unknown messages", r.sum.Unknown)
			}
			for i := 1; i < len(r.msgs); i++ {
				if r.msgs[i].Frame < r.msgs[i-1].Frame {
					t.Errorf("message %d at frame %d comes after one at frame %d", i, r.msgs[i].Frame, r.msgs[i-1].Frame)
					break
				}
			}
			t.Logf("%v", r.sum)
		})
	}
}

// zmtpSize is the encoded size of a message: each frame has a 2-byte
// header, or 9 bytes when its body exceeds 255 bytes.
func zmtpSize(parts []string) int64 {
	n := int64(0)
	for _, p := range parts {
		b, _ := base64.StdEncoding.DecodeString(p)
		n += int64(len(b)) + 2
		if len(b) > 255 {
			n += 7
		}
	}
	return n
}

// TestProvenance: each message names its stream (one number per
// direction, the same for all its messages) and says whether the capture
// joined that connection mid-stream (exactly the connections with
// messages sent before it); the summary spans the capture's packets.
func TestProvenance(t *testing.T) {
	for _, path := range captureFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r := decodeFile(t, path, Options{})
			before := map[string]bool{}
			for _, m := range readTruth(t, path) {
				before[m.Conn] = before[m.Conn] || m.Before
			}
			streams := map[string]int{}
			owner := map[int]string{}
			for _, m := range r.msgs {
				conn := m.Src.String() + "->" + m.Dst.String()
				if s, ok := streams[conn]; ok && s != m.Stream {
					t.Fatalf("%s: messages on streams %d and %d", conn, s, m.Stream)
				}
				if c, ok := owner[m.Stream]; ok && c != conn {
					t.Fatalf("stream %d carries %s and %s", m.Stream, c, conn)
				}
				streams[conn], owner[m.Stream] = m.Stream, conn
				if m.MidStream != before[conn] {
					t.Fatalf("%s: MidStream %v, want %v (messages before the capture: %v)", conn, m.MidStream, before[conn], before[conn])
				}
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cr, err := capture.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			var first, last time.Time
			for {
				rec, err := cr.Next()
				if err != nil {
					break
				}
				if first.IsZero() || rec.Time.Before(first) {
					first = rec.Time
				}
				if rec.Time.After(last) {
					last = rec.Time
				}
			}
			if !r.sum.Start.Equal(first) || !r.sum.End.Equal(last) {
				t.Fatalf("summary spans %v..%v, the packets %v..%v", r.sum.Start, r.sum.End, first, last)
			}
		})
	}
}
