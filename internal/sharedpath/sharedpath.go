// Package sharedpath finds the project's shared test data, which lives beside
// the checkout in ../shared and is never copied into the repository.
package sharedpath

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the absolute path of the shared folder beside the module root,
// or "" if there is none. ROOMSPEC_SHARED overrides the location.
func Dir() string {
	if d := os.Getenv("ROOMSPEC_SHARED"); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <root>/internal/sharedpath/sharedpath.go. The folder is
	// reached through the committed symlink testdata/shared (to
	// ../../../../shared): go test's cache rechecks the files a test
	// stats and opens only inside the module, so a path through the
	// module is what lets it see ../shared appear, disappear or change.
	d := filepath.Join(filepath.Dir(file), "testdata", "shared")
	if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
		return ""
	}
	return d
}

// Require returns the path of sub inside the shared folder, or skips the test
// with a message saying what is missing. .ci/run fails when the folder is
// absent, so in CI these tests always run.
func Require(t testing.TB, sub string) string {
	t.Helper()
	d := Dir()
	if d == "" {
		t.Skip("../shared is not beside this checkout (set ROOMSPEC_SHARED to its path); skipping a test that reads shared test data")
	}
	p := filepath.Join(d, sub)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test data %s is missing: %v", p, err)
	}
	return p
}
