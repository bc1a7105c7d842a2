package eventlog

import (
	"bytes"
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
