package judge

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/roomspec/roomspec/internal/golden"
)

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
			golden.Check(t, filepath.Join("testdata", "golden", sc.Name+"."+format), b.Bytes())
		}
	}
}
