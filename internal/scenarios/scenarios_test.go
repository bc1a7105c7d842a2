package scenarios

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAll(t *testing.T) {
	dir := filepath.Join("..", "..", "traces", "testdata", "scenarios")
	all, err := All(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		if _, err := s.DeadlineDuration(); err != nil {
			t.Error(err)
		}
		for _, f := range []string{s.Capture(), s.Log()} {
			if _, err := os.Stat(f); err != nil {
				t.Errorf("%s: %v", s.Name, err)
			}
		}
	}
	if _, err := All(t.TempDir()); err == nil {
		t.Error("a folder without scenarios: no error")
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "x.expected.json"), []byte(`{"deadline": "1s"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bad, "x"); err == nil {
		t.Error("a scenario without a variant: no error")
	}
}
