package conformance

import (
	"strings"
	"testing"

	"github.com/roomspec/roomspec/spec"
)

// An implementation state that differs from the spec's in one entry of
// one function is reported as that entry only.
func TestDiffVars(t *testing.T) {
	c, err := spec.Compiled("upstream")
	if err != nil {
		t.Fatal(err)
	}
	spec := c.Init()
	impl := c.Init()
	impl.Sender = append(impl.Sender[:0:0], impl.Sender...)
	impl.Sender[0] = impl.Sender[0] + 1
	got := diffVars(c, &spec, &impl)
	want := `sender[<<r, 1>>]: spec "NoSender", implementation `
	if !strings.HasPrefix(got, want) || strings.Contains(got, ";") {
		t.Fatalf("diffVars = %q, want one entry starting %q", got, want)
	}
}
