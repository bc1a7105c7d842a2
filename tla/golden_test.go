package tla

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/internal/golden"
)

// TestGolden parses every testdata/*.tla and compares the tree dump with
// testdata/NAME.golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.tla"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ParseFile(f, src)
			if err != nil {
				t.Fatal(err)
			}
			got := Dump(m)
			golden.Check(t, strings.TrimSuffix(f, ".tla")+".golden", []byte(got))
		})
	}
}
