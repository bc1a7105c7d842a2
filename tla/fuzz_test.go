package tla

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addModuleSeeds adds every module of testdata, and of ../shared where it
// is present, to f's seed corpus.
func addModuleSeeds(f *testing.F) {
	seeds, _ := globTLA("testdata")
	seeds = append(seeds, sharedModulesIfPresent()...)
	for _, s := range seeds {
		src, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
}

// FuzzParse feeds arbitrary text to the parser: it must return a module or
// an *Error with a position, never panic or hang, and every definition it
// accepts must print to text that parses back to the same tree.
func FuzzParse(f *testing.F) {
	addModuleSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := ParseFile("f.tla", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if !e.Pos.IsValid() {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		var kept []Unit
		var all strings.Builder
		all.WriteString("---- MODULE F ----\n")
		for _, u := range m.Units {
			if th, ok := u.(*Theorem); ok && th.Body == nil {
				continue
			}
			if _, ok := u.(*Module); ok {
				continue
			}
			kept = append(kept, u)
			all.WriteString(PrintUnit(u) + "\n")
			d, ok := u.(*OpDef)
			if !ok {
				continue
			}
			text := Print(d.Body)
			back, err := ParseExpr(text)
			if err != nil {
				t.Fatalf("%s: printed text %q does not parse: %v", d.Name, text, err)
			}
			if a, b := shape(d.Body), shape(back); a != b {
				t.Fatalf("%s: round trip of %q changed the tree:\n%s\n---\n%s", d.Name, text, a, b)
			}
		}
		all.WriteString("====\n")
		back, err := ParseFile("F.tla", []byte(all.String()))
		if err != nil {
			t.Fatalf("printed units do not parse: %v\n%s", err, all.String())
		}
		if len(back.Units) != len(kept) {
			t.Fatalf("%d units printed, %d read back:\n%s", len(kept), len(back.Units), all.String())
		}
		for i, u := range kept {
			if a, b := shapeNode(u), shapeNode(back.Units[i]); a != b {
				t.Fatalf("unit %d changed in a print round trip:\n%s\n---\n%s", i, a, b)
			}
		}
	})
}

// BenchmarkParseShared parses every shared example module once per
// iteration; bytes/s is the parser's throughput on real specs.
func BenchmarkParseShared(b *testing.B) {
	files := sharedModules(b)
	var srcs [][]byte
	total := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		srcs = append(srcs, src)
		total += len(src)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			if _, err := ParseFile(filepath.Base(files[i]), src); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestTruncatedModules parses every prefix (in steps of a few bytes) of the
// testdata and shared modules: short input must give a module or an *Error
// with a position, never a panic.
func TestTruncatedModules(t *testing.T) {
	files, _ := globTLA("testdata")
	files = append(files, sharedModulesIfPresent()...)
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k <= len(src); k += 13 {
			_, err := ParseFile(f, src[:k])
			n++
			if err == nil {
				continue
			}
			var e *Error
			if !errors.As(err, &e) || !e.Pos.IsValid() {
				t.Fatalf("%s[:%d]: %v (%T), want *Error with a position", f, k, err, err)
			}
		}
	}
	t.Logf("%d prefixes parsed", n)
}
