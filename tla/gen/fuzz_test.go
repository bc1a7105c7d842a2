package gen_test

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/gen"
)

// FuzzGenerate: on any module that parses, gen returns code or an error
// at a position; it never panics.
func FuzzGenerate(f *testing.F) {
	f.Add(mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == x < 3 /\\ x' = x + 1\nNext == Inc"))
	f.Add(mod("TypeOK == x \\in SUBSET {\"a\", \"b\"}\nInit == x = {}\nAdd == \\E s \\in {\"a\", \"b\"} : x' = x \\cup {s}\nNext == Add"))
	f.Add(mod("TypeOK == x \\in Seq([a : BOOLEAN, b : 0..2])\nInit == x = << >>\nPush == Len(x) < 2 /\\ x' = Append(x, [a |-> TRUE, b |-> 1])\nPop == x # << >> /\\ x' = Tail(x)\nNext == Push \\/ Pop"))
	f.Add(mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == CASE x = 0 -> x' = 1 [] OTHER -> IF x > 2 THEN x' = 0 ELSE x' = x + 1\nNext == Inc"))
	f.Add(mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == LET y == x + 1 IN x' = y % 4\nNext == Inc"))
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := tla.ParseFile("M.tla", []byte(src)); err != nil {
			return
		}
		fsys := fstest.MapFS{
			"M.tla": {Data: []byte(src)},
			"M.cfg": {Data: []byte(plainCfg)},
		}
		in, err := gen.LoadInput(fsys, "M.tla", "M.tla")
		if err != nil {
			return
		}
		_, err = gen.Generate(in)
		var ge *gen.Error
		if err != nil && !errors.As(err, &ge) {
			// Only a gen bug produces code that does not parse.
			t.Fatalf("not a positioned error: %v", err)
		}
	})
}
