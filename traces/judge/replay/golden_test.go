package replay

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden report files")

// TestReportGolden holds the three report formats of each scenario (with
// its log) to testdata/golden; -update rewrites them.
func TestReportGolden(t *testing.T) {
	for _, sc := range loadScenarios(t) {
		rep := sc.replay(t, true, Merge(sc.wire, sc.log), sc.end)
		for _, format := range []string{"txt", "jsonl", "xml"} {
			var b bytes.Buffer
			var err error
			switch format {
			case "txt":
				err = rep.WriteText(&b)
			case "jsonl":
				err = rep.WriteJSON(&b)
			case "xml":
				err = rep.WriteJUnit(&b, sc.Variant)
			}
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "golden", sc.Name+"."+format)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s differs from the report:\n%s", path, b.Bytes())
			}
		}
	}
}
