package literal_test

import (
	"testing"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/literal"
)

// A quoted string is read back by the parser as the same string.
func TestQuoteParsesBack(t *testing.T) {
	for _, s := range []string{"", "abc", `a"b`, `back\slash`, "tab\there", "line\nfeed", "cr\rff\f", "naïve ✓"} {
		q := literal.Quote(s)
		e, err := tla.ParseExpr(q)
		if err != nil {
			t.Fatalf("Quote(%q) = %s does not parse: %v", s, q, err)
		}
		str, ok := e.(*tla.Str)
		if !ok || str.Value != s {
			t.Errorf("Quote(%q) = %s parses as %s", s, q, tla.Dump(e))
		}
	}
}

func TestQuote(t *testing.T) {
	if got, want := literal.Quote("a\"\\\n"), `"a\"\\\n"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
}
