package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder records whether Check failed, without failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	if Updating() {
		t.Skip("with -update, Check writes instead of comparing")
	}
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	Write(t, path, []byte("a\nb\n"))
	for _, tc := range []struct {
		got  string
		fail bool
	}{{"a\nb\n", false}, {"a\nc\n", true}} {
		r := &recorder{TB: t}
		Check(r, path, []byte(tc.got))
		if r.failed != tc.fail {
			t.Errorf("Check(%q) failed: %v, want %v", tc.got, r.failed, tc.fail)
		}
	}
	r := &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "missing"), nil)
	if !r.failed {
		t.Error("a missing golden file: no failure")
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "a\nb\n" {
		t.Errorf("Check changed the golden file without -update: %q, %v", data, err)
	}
}
