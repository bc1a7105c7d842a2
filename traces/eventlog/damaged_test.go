package eventlog

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The damaged logs are made from scenarios/storm-fixed.events.jsonl by
// ../testdata/make_damaged.py.
const damagedBase = "../testdata/scenarios/storm-fixed.events.jsonl"

func damaged(name string) string { return filepath.Join("..", "testdata", "damaged", name) }

// readLog reads every event of data with a Reader (and its stats), or the
// first error; fileOrder keeps the lines in file order.
func readLog(t *testing.T, data []byte, fileOrder bool) ([]Event, Stats, error) {
	t.Helper()
	rd := NewReader(bytes.NewReader(data))
	rd.fileOrder = fileOrder
	var out []Event
	for {
		e, err := rd.Next()
		if err == io.EOF {
			return out, rd.Stats(), nil
		}
		if err != nil {
			return out, rd.Stats(), err
		}
		out = append(out, e)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// same reports whether two logs have the same events (line numbers
// aside).
func same(a, b []Event) bool {
	return slices.EqualFunc(a, b, func(x, y Event) bool {
		x.Line, y.Line = 0, 0
		x.Raw, y.Raw = nil, nil
		return x.Time.Equal(y.Time) && x.Event == y.Event && x.Room == y.Room && x.From == y.From && x.To == y.To && x.Status == y.Status && x.Thread == y.Thread
	})
}

// TestDamagedLogs: a byte order mark is skipped, repeated lines dropped,
// lines out of time order put back in order, and each is said (Stats);
// the events are the undamaged log's.
func TestDamagedLogs(t *testing.T) {
	base, st, err := readLog(t, readFile(t, damagedBase), false)
	if err != nil || st != (Stats{}) || len(base) == 0 {
		t.Fatalf("the base log: %d events, %+v, %v", len(base), st, err)
	}
	for _, tc := range []struct {
		file string
		want func(Stats) bool
	}{
		{"bom.events.jsonl", func(s Stats) bool { return s == Stats{BOM: true} }},
		{"dup.events.jsonl", func(s Stats) bool { return s == Stats{Duplicates: len(base), FirstDuplicate: 2} }},
		{"reordered.events.jsonl", func(s Stats) bool { return s.Reordered > 0 && s.ClockBack == 0 && s.Duplicates == 0 }},
	} {
		got, st, err := readLog(t, readFile(t, damaged(tc.file)), false)
		if err != nil || !same(got, base) || !tc.want(st) {
			t.Errorf("%s: %d events (the base has %d; same: %v), %+v, %v", tc.file, len(got), len(base), same(got, base), st, err)
		}
		for _, note := range st.Notes() {
			t.Logf("%s: %s", tc.file, note)
		}
	}
	// Without reordering (a Follower), the same lines, in file order.
	got, st, _ := readLog(t, readFile(t, damaged("reordered.events.jsonl")), true)
	if same(got, base) || len(got) != len(base) || st.Reordered == 0 {
		t.Errorf("in file order: %d events, %+v", len(got), st)
	}
}

// TestNotALog: a file that is not an event log is refused at once, in
// one error naming why: a capture given as the log, binary data, text
// none of whose lines is an event.
func TestNotALog(t *testing.T) {
	random := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(25, 4))
	for i := range random {
		random[i] = byte(r.IntN(256))
	}
	for _, tc := range []struct {
		name string
		data []byte
		why  string
	}{
		{"a capture", readFile(t, damaged("binary.events.jsonl")), "capture"},
		{"random bytes", random, "binary data"},
		{"text", readFile(t, "../testdata/README.md"), "first 5 lines are not events"},
		{"a pcapng", readFile(t, "../testdata/captures/many_conns.pcapng"), "capture"},
	} {
		events, _, err := readLog(t, tc.data, false)
		if !errors.Is(err, ErrNotLog) || !strings.Contains(err.Error(), tc.why) || len(events) != 0 {
			t.Errorf("%s: %d events, error %v; want ErrNotLog saying %q", tc.name, len(events), err, tc.why)
		}
		// The Follower says the same, once.
		path := filepath.Join(t.TempDir(), "log")
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		f := NewFollower(path)
		errs := 0
		for range 1000 {
			_, err := f.Next()
			if err == io.EOF {
				break
			}
			if errors.Is(err, ErrNotLog) {
				errs++
				break
			}
			if err != nil {
				errs++
			}
		}
		f.Close()
		if errs == 0 || errs > notLogAfter {
			t.Errorf("%s: the Follower gave %d errors before ErrNotLog", tc.name, errs)
		}
	}
}

// TestClockStepBack: a step of the writer's clock back by more than
// ReorderWithin is said, and the lines are left in file order.
func TestClockStepBack(t *testing.T) {
	log := statusLine(1) + "\n" + strings.Replace(statusLine(2), "T15:00:00", "T14:00:00", 1) + "\n" + statusLine(3) + "\n"
	got, st, err := readLog(t, []byte(log), false)
	if err != nil || len(got) != 3 || got[0].Room != 1 || got[1].Room != 2 || st.ClockBack != 1 || st.FirstClockBack != 2 {
		t.Errorf("events %v, %+v, %v", got, st, err)
	}
}

// TestOutlierLine: one line 10 s ahead of the lines around it (the next
// goes back) is given the time of the line before it and marked doubtful,
// not taken for a step of the clock; the lines around it are not doubted.
// A Follower, which has handed it on already, doubts the lines after it
// that are before its time.
func TestOutlierLine(t *testing.T) {
	lines := []string{statusLine(1), statusLine(2), strings.Replace(statusLine(3), "T15:00:00", "T15:00:10", 1), statusLine(4), statusLine(5)}
	log := strings.Join(lines, "\n") + "\n"
	got, st, err := readLog(t, []byte(log), false)
	if err != nil || len(got) != 5 || st.Outliers != 1 || st.FirstOutlier != 3 || st.ClockBack != 0 {
		t.Fatalf("events %v, %+v, %v", got, st, err)
	}
	for i, e := range got {
		if e.Room != int64(i+1) || (e.Doubt != "") != (i == 2) {
			t.Errorf("event %d: room %d, doubt %q", i, e.Room, e.Doubt)
		}
		if i > 0 && e.Time.Before(got[i-1].Time) {
			t.Errorf("event %d at %v, before the one before it", i, e.Time)
		}
	}
	if !got[2].Time.Equal(got[1].Time) || !strings.Contains(got[2].Doubt, "10s ahead") {
		t.Errorf("the outlier: %v, %q", got[2].Time, got[2].Doubt)
	}
	if len(st.Notes()) != 1 {
		t.Errorf("notes %q", st.Notes())
	}

	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	f := NewFollower(path)
	defer f.Close()
	var doubted []int64
	for {
		e, err := f.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if e.Doubt != "" {
			doubted = append(doubted, e.Room)
		}
	}
	if !slices.Equal(doubted, []int64{4, 5}) || f.Stats().Outliers != 1 {
		t.Errorf("the Follower doubted rooms %v, %+v", doubted, f.Stats())
	}
}

// TestClockStepBackDoubts: after a step of the clock back, the lines
// still before the last time before the step are doubtful; once the
// clock passes it again, they are not.
func TestClockStepBackDoubts(t *testing.T) {
	back := func(room int, ts string) string { return strings.Replace(statusLine(room), "T15:00:00", ts, 1) }
	log := strings.Join([]string{statusLine(1), back(2, "T15:00:05"), back(3, "T15:00:06"), back(4, "T15:00:02"), back(5, "T15:00:04"), back(6, "T15:00:07")}, "\n") + "\n"
	got, st, err := readLog(t, []byte(log), false)
	if err != nil || st.ClockBack != 1 || st.Outliers != 0 {
		t.Fatalf("events %v, %+v, %v", got, st, err)
	}
	var doubted []int64
	for _, e := range got {
		if e.Doubt != "" {
			doubted = append(doubted, e.Room)
			if !strings.Contains(e.Doubt, "stepped back 4s at line 4") {
				t.Errorf("room %d: %q", e.Room, e.Doubt)
			}
		}
	}
	if !slices.Equal(doubted, []int64{4, 5}) {
		t.Errorf("doubted rooms %v, want [4 5]", doubted)
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		name string
		head string
		want string // "" for a head that may start a log
	}{
		{"empty", "", ""},
		{"a log", "{\"ts\":\"2026-12-01T17:23:16Z\"}\n{", ""},
		{"blank lines first", "\n\n  {\"ts\":1}\n", ""},
		{"a byte order mark", "\xef\xbb\xbf{\"ts\":1}\n", ""},
		{"pcap", "\xd4\xc3\xb2\xa1\x02\x00\x04\x00", "it is a pcap or pcapng capture"},
		{"pcapng", "\x0a\x0d\x0d\x0a\x1c\x00\x00\x00", "it is a pcap or pcapng capture"},
		{"gzip", "\x1f\x8b\x08\x00", "it is a gzip file"},
		{"text", "2026-12-01 17:23:16 INFO prefill started\n", "its first line does not start with '{'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Sniff([]byte(tc.head))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Sniff: %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrNotLog) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Sniff: %v, want ErrNotLog saying %q", err, tc.want)
			}
		})
	}
}
