package eventlog

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// FuzzParse checks that no line crashes Parse and that every event it
// accepts survives a write and a second read unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"ts":"2026-11-29T15:00:00.123456789Z","host":"p0","role":"prefill","rank":1,"thread":"bootstrap","event":"status","room":42,"from":"Absent","to":"WaitingForInput"}`))
	f.Add([]byte(`{"ts":"2026-11-29T15:00:00Z","event":"chunk_skip","room":3,"chunk":0,"reason":"Failed"}`))
	f.Add([]byte(`{"ts":"2026-11-29T15:00:00Z","event":"gc"}`))
	f.Add([]byte(`{"ts":"2026-11-29T15:00:00Z","event":"poll","room":-1,"status":"Absent","queue":"bootstrap"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Parse(b, 1)
		if err != nil || !e.Known() {
			return
		}
		var buf bytes.Buffer
		if err := NewWriter(&buf).Write(&e); err != nil {
			t.Fatal(err)
		}
		e2, err := Parse(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), 1)
		if err != nil {
			t.Fatalf("rewritten %q: %v", buf.Bytes(), err)
		}
		if !e.Time.Equal(e2.Time) {
			t.Fatalf("time %v became %v", e.Time, e2.Time)
		}
		e2.Time = e.Time
		if d := cmp.Diff(e, e2, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("rewritten %q: (-read +reread)\n%s", buf.Bytes(), d)
		}
	})
}

// FuzzReader reads arbitrary bytes as a log: it ends, never panics, gives
// the lines a Reader in file order gives (the same events, errors and
// stats, only in another order), and, when the clock never stepped back
// and few lines were held, events in time order.
func FuzzReader(f *testing.F) {
	for _, name := range []string{"scenarios/storm-fixed.events.jsonl", "damaged/bom.events.jsonl", "damaged/dup.events.jsonl",
		"damaged/reordered.events.jsonl", "damaged/binary.events.jsonl"} {
		b, err := os.ReadFile("../testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 1<<10)])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sorted, st, errSorted := readLog(t, data, false)
		inOrder, stIn, errIn := readLog(t, data, true)
		if st != stIn || (errSorted == nil) != (errIn == nil) {
			t.Fatalf("stats %+v and %+v, errors %v and %v", st, stIn, errSorted, errIn)
		}
		lines := func(es []Event) []int {
			out := make([]int, len(es))
			for i, e := range es {
				out[i] = e.Line
			}
			slices.Sort(out)
			return out
		}
		if errSorted == nil && !slices.Equal(lines(sorted), lines(inOrder)) {
			t.Fatalf("lines %v, in file order %v", lines(sorted), lines(inOrder))
		}
		if errSorted == nil && st.ClockBack == 0 && len(sorted) < maxHeld {
			for i := 1; i < len(sorted); i++ {
				if sorted[i].Time.Before(sorted[i-1].Time) {
					t.Fatalf("line %d (%v) after line %d (%v)", sorted[i].Line, sorted[i].Time, sorted[i-1].Line, sorted[i-1].Time)
				}
			}
		}
	})
}
