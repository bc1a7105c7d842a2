package truth

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAll(t *testing.T) {
	dir := filepath.Join("..", "..", "traces", "testdata", "captures")
	all, err := All(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]int{}
	for i := range all {
		m := &all[i]
		files[m.File]++
		if m.Kind == "" || m.Conn == "" || len(m.Parts) == 0 {
			t.Fatalf("%s seq %d: %+v", m.File, m.Seq, m)
		}
		if _, err := m.Bytes(); err != nil {
			t.Fatal(err)
		}
	}
	caps, _ := filepath.Glob(filepath.Join(dir, "*.pcap*"))
	for _, c := range caps {
		ms, err := Of(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != files[filepath.Base(Path(c))] {
			t.Errorf("%s: %d messages by Of, %d by All", c, len(ms), files[filepath.Base(Path(c))])
		}
	}
	if _, err := All(t.TempDir()); err == nil {
		t.Error("a folder without truth files: no error")
	}
	bad := filepath.Join(t.TempDir(), "x.truth.jsonl")
	if err := os.WriteFile(bad, []byte("{\"seq\": 0}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bad); err == nil {
		t.Error("a line that is not JSON: no error")
	}
}
