package cfg

import (
	"errors"
	"testing"

	"github.com/roomspec/roomspec/tla"
)

// FuzzParse checks that no input makes Parse or Validate panic or hang,
// that every failure is a positioned *tla.Error, and that what parses
// renders back to constants that parse to the same text.
func FuzzParse(f *testing.F) {
	// The committed corpus in testdata/fuzz/FuzzParse holds hand-written
	// snippets; the shared TLC examples join it when present.
	if d := sharedConfigsIfPresent(); d != nil {
		for _, src := range d {
			f.Add(src)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := Parse("fuzz.cfg", src)
		if err != nil {
			var te *tla.Error
			if !errors.As(err, &te) || !te.Pos.IsValid() || te.File != "fuzz.cfg" {
				t.Fatalf("error without position: %#v", err)
			}
			return
		}
		_ = c.Validate()
		_ = dump(c)
		for _, d := range c.Constants {
			c2, err := Parse("rt.cfg", []byte("CONSTANT "+d.String()))
			if err != nil {
				t.Fatalf("%q does not parse back: %v", d.String(), err)
			}
			if len(c2.Constants) != 1 || c2.Constants[0].String() != d.String() {
				t.Fatalf("round trip of %q changed it", d.String())
			}
		}
	})
}
