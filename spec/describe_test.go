package spec

import (
	"strings"
	"testing"
)

// TestDescribe: every bundled variant has a one-line description, which
// is not its name or the command that checks it.
func TestDescribe(t *testing.T) {
	for _, v := range Variants() {
		d, err := Describe(v)
		if err != nil {
			t.Fatal(err)
		}
		if len(d) < 20 || strings.Contains(d, "\n") || strings.HasPrefix(d, v+":") || strings.Contains(d, "Checked with") {
			t.Errorf("%s: %q", v, d)
		}
	}
	if d, _ := Describe("sglang-30545"); !strings.Contains(d, "PR #30545") {
		t.Errorf("sglang-30545: %q does not name its PR", d)
	}
	if _, err := Describe("nosuch"); err == nil {
		t.Error("nosuch: no error")
	}
}
