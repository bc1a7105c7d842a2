// Package golden holds test output to golden files, for every package
// that has them: go test -update rewrites the files with what the tests
// produce (read the diff before committing it).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests produce")

// Updating reports whether the tests run with -update: a test whose golden
// files are checked otherwise than byte for byte (a saved counterexample
// that must still fail when replayed) rewrites them then (Write).
func Updating() bool { return *update }

// Check compares got with the golden file at path; with -update it
// writes got there instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		Write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		if len(d) > maxDiff {
			d = d[:maxDiff] + "\n... (diff cut)"
		}
		t.Errorf("%s differs (-golden +got; go test -update rewrites it):\n%s", path, d)
	}
}

// maxDiff bounds the diff a failing Check prints (HTML pages hold long
// lines).
const maxDiff = 8 << 10

// Write writes data to the golden file at path, creating its folder.
func Write(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
