package eventlog

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func statusLine(room int) string {
	return fmt.Sprintf(`{"ts":"2026-11-29T15:00:00.%09dZ","role":"prefill","event":"status","room":%d,"from":"Absent","to":"Bootstrapping"}`, room, room)
}

// drain returns the rooms of the events Next returns until io.EOF, with
// their line numbers.
func drain(t *testing.T, f *Follower) (rooms, lines []int) {
	t.Helper()
	for {
		e, err := f.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		rooms, lines = append(rooms, int(e.Room)), append(lines, e.Line)
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestFollower(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "events.jsonl")
	f := NewFollower(path)
	defer f.Close()

	// Not there yet.
	if rooms, _ := drain(t, f); len(rooms) != 0 || f.Open() {
		t.Fatalf("before the file exists: %v, open %v", rooms, f.Open())
	}
	// Lines as they are written, a line only with its newline.
	line2 := statusLine(2)
	appendTo(t, path, statusLine(1)+"\n\n"+line2[:20])
	if rooms, lines := drain(t, f); fmt.Sprint(rooms, lines) != "[1] [1]" {
		t.Fatalf("first lines: %v %v", rooms, lines)
	}
	appendTo(t, path, line2[20:]+"\n"+statusLine(3)+"\n")
	if rooms, lines := drain(t, f); fmt.Sprint(rooms, lines) != "[2 3] [3 4]" {
		t.Fatalf("completed lines: %v %v", rooms, lines)
	}
	// A malformed line is an ErrSyntax error naming it, and the follower
	// goes on.
	appendTo(t, path, "{\"ts\":\n"+statusLine(5)+"\n")
	if _, err := f.Next(); !errors.Is(err, ErrSyntax) {
		t.Fatalf("malformed line: %v", err)
	}
	if rooms, lines := drain(t, f); fmt.Sprint(rooms, lines) != "[5] [6]" {
		t.Fatalf("after a malformed line: %v %v", rooms, lines)
	}
	// Truncated and written anew (a writer reopening with "w").
	if err := os.WriteFile(path, []byte(statusLine(6)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rooms, lines := drain(t, f); fmt.Sprint(rooms, lines) != "[6] [1]" || f.Truncations != 1 {
		t.Fatalf("after truncation: %v %v (%d truncations)", rooms, lines, f.Truncations)
	}
	// Rotated: the old file's last (partial) line, then the new file.
	appendTo(t, path, statusLine(7))
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, statusLine(8)+"\n")
	if rooms, lines := drain(t, f); fmt.Sprint(rooms, lines) != "[7 8] [2 1]" || f.Rotations != 1 {
		t.Fatalf("after rotation: %v %v (%d rotations)", rooms, lines, f.Rotations)
	}
	// The writer stops in the middle of a line: Final returns it.
	appendTo(t, path, statusLine(9))
	if rooms, _ := drain(t, f); len(rooms) != 0 {
		t.Fatalf("partial line returned by Next: %v", rooms)
	}
	e, err := f.Final()
	if err != nil || e.Room != 9 || e.Line != 2 {
		t.Fatalf("Final: room %d line %d, %v", e.Room, e.Line, err)
	}
	if _, err := f.Final(); err != io.EOF {
		t.Fatalf("second Final: %v", err)
	}
}

// TestFollowerLongLine: a line longer than MaxLine is one error, and the
// lines after it are read.
func TestFollowerLongLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	long := make([]byte, MaxLine+10)
	for i := range long {
		long[i] = 'x'
	}
	appendTo(t, path, string(long)+"\n"+statusLine(1)+"\n")
	f := NewFollower(path)
	defer f.Close()
	var errs int
	var rooms []int
	for {
		e, err := f.Next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, ErrSyntax) {
			errs++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		rooms = append(rooms, int(e.Room))
	}
	if errs != 1 || fmt.Sprint(rooms) != "[1]" {
		t.Fatalf("%d errors, rooms %v", errs, rooms)
	}
}
