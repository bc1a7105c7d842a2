package tla

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/internal/sharedpath"
)

// sharedModules returns every .tla file under the shared tla-examples tree.
func sharedModules(t testing.TB) []string {
	dir := sharedpath.Require(t, "tla-examples")
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.tla"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .tla files under %s", dir)
	}
	return files
}

// TestParseSharedModules parses every module of the shared examples, which
// nobody here wrote, and checks each comes back with a name and units.
func TestParseSharedModules(t *testing.T) {
	for _, f := range sharedModules(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseFile(f, src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if want := trimExt(filepath.Base(f)); m.Name != want {
			t.Errorf("%s: module name %q, want %q", f, m.Name, want)
		}
		if len(m.Units) == 0 {
			t.Errorf("%s: no units", f)
		}
	}
}

// TestParseListedFiles parses the files named in $TLA_FILES (space
// separated), for trying the parser on specs outside the repository:
//
//	TLA_FILES="$PWD/a.tla $PWD/b.tla" go test ./tla -run ListedFiles -v
func TestParseListedFiles(t *testing.T) {
	files := strings.Fields(os.Getenv("TLA_FILES"))
	if len(files) == 0 {
		t.Skip("TLA_FILES is empty")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseFile(f, src)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		t.Logf("%s: module %s, %d units", f, m.Name, len(m.Units))
		if os.Getenv("TLA_DUMP") != "" {
			t.Logf("\n%s", Dump(m))
		}
	}
}

// sharedModulesIfPresent is sharedModules without skipping.
func sharedModulesIfPresent() []string {
	d := sharedpath.Dir()
	if d == "" {
		return nil
	}
	files, _ := filepath.Glob(filepath.Join(d, "tla-examples", "*", "*.tla"))
	return files
}

func globTLA(dir string) ([]string, error) { return filepath.Glob(filepath.Join(dir, "*.tla")) }

func trimExt(s string) string { return s[:len(s)-len(filepath.Ext(s))] }
