package capture_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/roomspec/roomspec/internal/pcapcut"
	"github.com/roomspec/roomspec/traces/capture"
)

// event is what an Event says, kept.
type event struct {
	Kind    capture.EventKind
	Half    int
	Frame   int
	Data    string
	Lost    int
	Pending int
}

func events(t *testing.T, src capture.Records) ([]event, capture.Result, []capture.Diagnostic) {
	t.Helper()
	var out []event
	var diags []capture.Diagnostic
	res := capture.RunRecords(src, capture.Options{Diagnose: func(d capture.Diagnostic) { diags = append(diags, d) }}, func(e *capture.Event) {
		out = append(out, event{e.Kind, e.Half.ID, e.Frame, string(e.Data), e.Lost, e.Pending})
	})
	return out, res, diags
}

func inputs(names []string, parts [][]byte) []capture.Input {
	in := make([]capture.Input, len(parts))
	for i, p := range parts {
		in[i] = capture.Input{Name: names[i], Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(p)), nil }}
	}
	return in
}

// TestFilesOneCapture: a capture cut into two or three files at every
// tenth of its packets, the files given in any order, reassembles to the
// very events of the whole file: TCP state carries across the cuts, the
// files are read in the order of their first packets, and frame numbers
// count over the files, each one's Position naming its file and its
// frame number there.
func TestFilesOneCapture(t *testing.T) {
	files, _ := filepath.Glob("../testdata/captures/*.pcap*")
	scen, _ := filepath.Glob("../testdata/scenarios/*.pcap")
	files = append(files, scen...)
	r := rand.New(rand.NewPCG(25, 22))
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := capture.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		want, _, wantDiags := events(t, rd)
		n, err := pcapcut.Count(data)
		if err != nil {
			t.Fatal(err)
		}
		for tenth := 1; tenth < 10; tenth++ {
			at := n * tenth / 10
			cuts := [][]int{{at}}
			if tenth < 9 {
				cuts = append(cuts, []int{at, at + (n-at)/2})
			}
			for _, cut := range cuts {
				name := fmt.Sprintf("%s cut at %v", filepath.Base(path), cut)
				parts, err := pcapcut.Cut(data, cut...)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				names := make([]string, len(parts))
				for i := range parts {
					names[i] = fmt.Sprintf("part%d", i)
				}
				in := inputs(names, parts)
				r.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
				// Standard input can be read once only.
				in[0].Once = true
				fs, err := capture.OpenFiles(in)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got, res, diags := events(t, fs)
				if res.Err != nil {
					t.Errorf("%s: %v", name, res.Err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: events differ from the whole file's (-whole +cut):\n%s", name, diff)
					continue
				}
				if diff := cmp.Diff(wantDiags, diags); diff != "" {
					t.Errorf("%s: diagnostics differ (-whole +cut):\n%s", name, diff)
				}
				if got := fs.Names(); !slicesSorted(got) {
					t.Errorf("%s: files read in the order %v", name, got)
				}
				bounds := append([]int{0}, cut...)
				for _, e := range got {
					k := 0
					for k+1 < len(bounds) && e.Frame > bounds[k+1] {
						k++
					}
					want := capture.Position{File: names[k], Frame: e.Frame - bounds[k]}
					if pos := fs.Position(e.Frame); pos != want {
						t.Fatalf("%s: frame %d is at %v, want %v", name, e.Frame, pos, want)
					}
				}
			}
		}
	}
}

func slicesSorted(names []string) bool {
	for i := 1; i < len(names); i++ {
		if names[i] < names[i-1] {
			return false
		}
	}
	return true
}

// TestFilesDamage: a file cut short in the middle of a capture is said
// (its name and the capture's frame number) and reading goes on with the
// next file; a file that is not a capture is refused up front, by name.
func TestFilesDamage(t *testing.T) {
	data, err := os.ReadFile("../testdata/captures/sll2.pcap")
	if err != nil {
		t.Fatal(err)
	}
	parts, err := pcapcut.Cut(data, 10, 20)
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := capture.NewReader(bytes.NewReader(data))
	_, wholeRes, _ := events(t, whole)
	parts[1] = parts[1][:len(parts[1])-7] // the last record of the middle file cut short
	fs, err := capture.OpenFiles(inputs([]string{"a", "b", "c"}, parts))
	if err != nil {
		t.Fatal(err)
	}
	_, res, diags := events(t, fs)
	var re *capture.RecordError
	if !errors.As(res.Err, &re) || re.Frame != 20 || !errors.Is(res.Err, capture.ErrTruncated) {
		t.Fatalf("Err = %v, want a truncated record at frame 20", res.Err)
	}
	found := false
	for _, d := range diags {
		if d.Frame == 20 && strings.Contains(d.Msg, "b: ") && strings.Contains(d.Msg, "going on with the next file") {
			found = true
		}
	}
	if !found {
		t.Errorf("no diagnostic at frame 20 naming b and going on: %v", diags)
	}
	if res.Stats.Frames != wholeRes.Stats.Frames-1 {
		t.Errorf("%d frames read, want %d (all but the damaged one)", res.Stats.Frames, wholeRes.Stats.Frames-1)
	}
	if pos := fs.Position(21); pos != (capture.Position{File: "c", Frame: 1}) {
		t.Errorf("frame 21 is at %v, want c:1", pos)
	}

	in := inputs([]string{"a", "junk"}, [][]byte{parts[0], []byte("not a capture at all")})
	if _, err := capture.OpenFiles(in); !errors.Is(err, capture.ErrNotCapture) || !strings.HasPrefix(err.Error(), "junk: ") {
		t.Errorf("OpenFiles with a file that is not a capture: %v", err)
	}
}
