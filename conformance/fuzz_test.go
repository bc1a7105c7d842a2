package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/roomspec/roomspec/spec"
)

// FuzzLoadITF: a saved case never crashes the loader, whatever the bytes.
// The seeds are the committed cases (10 KB each): run with
// -fuzzminimizetime 1s, or the fuzzer spends its time minimizing them.
func FuzzLoadITF(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.itf.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"#meta":{"roomspec":{"variant":"upstream","actions":[{"name":"DecodeAbort","params":[5],"text":"x"}]}}}`))
	f.Add([]byte(`{"#meta":{"roomspec":{"variant":"upstream","actions":[{"name":"SchedulerCreateSender","params":[0],"text":"SchedulerCreateSender(<<r, 1>>)"}]}},"states":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := DecodeCaseHeader(data)
		if err != nil {
			return
		}
		c, err := spec.Compiled(h.Variant)
		if err != nil {
			return
		}
		cs, err := LoadITF(c, data)
		if err == nil && !Valid(c, cs.Seq) {
			t.Fatalf("LoadITF accepted an invalid behaviour")
		}
	})
}
