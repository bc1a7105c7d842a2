package eventlog

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParse(t *testing.T) {
	ts := time.Date(2026, 11, 29, 15, 0, 0, 123456789, time.UTC)
	tests := []struct {
		name string
		in   string
		want Event
		err  string
	}{
		{"status", `{"ts":"2026-11-29T15:00:00.123456789Z","host":"p0","role":"prefill","rank":1,"thread":"bootstrap","event":"status","room":42,"from":"Absent","to":"WaitingForInput"}`,
			Event{Line: 7, Time: ts, Host: "p0", Role: "prefill", Rank: 1, Thread: "bootstrap", Event: Status, Room: 42, From: "Absent", To: "WaitingForInput"}, ""},
		{"offset time is made UTC", `{"ts":"2026-11-29T16:00:00.123456789+01:00","event":"clear","room":1}`,
			Event{Line: 7, Time: ts, Event: Clear, Room: 1}, ""},
		{"poll", `{"ts":"2026-11-29T15:00:00.123456789Z","event":"poll","room":3,"status":"Transferring","queue":"inflight"}`,
			Event{Line: 7, Time: ts, Event: Poll, Room: 3, Status: "Transferring", Queue: "inflight"}, ""},
		{"chunk skip", `{"ts":"2026-11-29T15:00:00.123456789Z","event":"chunk_skip","room":3,"chunk":0,"reason":"Failed"}`,
			Event{Line: 7, Time: ts, Event: ChunkSkip, Room: 3, Chunk: 0, Reason: "Failed"}, ""},
		{"unknown event kept", `{"ts":"2026-11-29T15:00:00.123456789Z","event":"gc","pause_ms":3}`,
			Event{Line: 7, Time: ts, Event: "gc", Raw: []byte(`{"ts":"2026-11-29T15:00:00.123456789Z","event":"gc","pause_ms":3}`)}, ""},
		{"not json", `{"ts":`, Event{}, "line 7"},
		{"no ts", `{"event":"clear","room":1}`, Event{}, "no ts"},
		{"bad ts", `{"ts":"yesterday","event":"clear","room":1}`, Event{}, "not RFC 3339"},
		{"no event", `{"ts":"2026-11-29T15:00:00Z","room":1}`, Event{}, "no event"},
		{"no room", `{"ts":"2026-11-29T15:00:00Z","event":"abort"}`, Event{}, "without room"},
		{"bad status", `{"ts":"2026-11-29T15:00:00Z","event":"status","room":1,"from":"Absent","to":"Done"}`, Event{}, "KVPoll"},
		{"bad role", `{"ts":"2026-11-29T15:00:00Z","event":"clear","room":1,"role":"router"}`, Event{}, "role"},
		{"chunk missing", `{"ts":"2026-11-29T15:00:00Z","event":"chunk_enqueue","room":1}`, Event{}, "without chunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in), 7)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "line 7") {
					t.Fatalf("err = %v, want ErrSyntax with %q and line 7", err, tt.err)
				}
				var se *SyntaxError
				if !errors.As(err, &se) || se.Line != 7 || se.Error() != err.Error() {
					t.Fatalf("err = %#v, want the *SyntaxError of line 7", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestReaderLinesAndRecovery(t *testing.T) {
	in := "\n" +
		`{"ts":"2026-11-29T15:00:00Z","event":"sender_create","room":5}` + "\n" +
		"garbage\n" +
		"   \n" +
		`{"ts":"2026-11-29T15:00:01Z","event":"abort","room":5,"role":"decode"}`
	r := NewReader(strings.NewReader(in))
	e, err := r.Next()
	if err != nil || e.Line != 2 || e.Event != SenderCreate {
		t.Fatalf("first: %+v, %v", e, err)
	}
	if _, err := r.Next(); !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("second: err = %v, want line 3", err)
	}
	e, err = r.Next()
	if err != nil || e.Line != 5 || e.Event != Abort {
		t.Fatalf("third: %+v, %v", e, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	base := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	events := []Event{
		{Time: base, Host: "p0", Role: "prefill", Thread: "scheduler", Event: SenderCreate, Room: 9},
		{Time: base.Add(1), Host: "p0", Role: "prefill", Thread: "scheduler", Event: Status, Room: 9, From: Absent, To: "Bootstrapping"},
		{Time: base.Add(2 * time.Second), Rank: 3, Event: ChunkEnqueue, Room: 9, Chunk: 0},
		{Time: base.Add(3 * time.Second), Event: Poll, Room: 9, Status: "Success", Queue: "inflight"},
		{Time: base.Add(4 * time.Second), Event: "gc", Raw: []byte(`{"ts":"2026-11-29T15:00:04Z","event":"gc"}`)},
		{Time: base.Add(5 * time.Second), Event: Clear, Room: 0},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for i := range events {
		if err := w.Write(&events[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.HasPrefix(buf.String(), `{"ts":"2026-11-29T15:00:00.000000000Z"`) {
		t.Fatalf("ts not written with nanoseconds: %s", buf.String())
	}
	got, err := ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		events[i].Line = i + 1
	}
	if d := cmp.Diff(events, got, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("(-want +got)\n%s", d)
	}
}

// A line over MaxLine is an error that names the line and the limit.
func TestLineTooLong(t *testing.T) {
	log := `{"ts":"2026-01-01T00:00:00.000000Z","event":"x"}` + "\n" + strings.Repeat("y", MaxLine+10) + "\n"
	rd := NewReader(strings.NewReader(log))
	rd.Next()
	_, err := rd.Next()
	if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "line 2: line longer than 1048576 bytes") {
		t.Errorf("got %v", err)
	}
}
