// Command gen compiles a TLA+ spec and the .cfg files beside it into a Go
// package (see package gen). spec/model's go:generate line runs it:
//
//	go run ../../tla/gen/cmd/gen -spec ../Room.tla -name spec/Room.tla -out zz_room.go
//
// With -check it writes nothing and exits 1 when the output file differs
// from what gen produces (a drift check for CI).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/roomspec/roomspec/tla/gen"
)

func main() {
	specPath := flag.String("spec", "", "the .tla file to compile (its .cfg siblings are read too)")
	name := flag.String("name", "", "how the generated header names the spec (default: -spec)")
	out := flag.String("out", "", "output .go file")
	pkg := flag.String("pkg", "model", "Go package name")
	check := flag.Bool("check", false, "do not write: exit 1 if -out differs from the generated code")
	flag.Parse()
	if *specPath == "" || *out == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -spec FILE.tla -out FILE.go [-name NAME] [-pkg NAME] [-check]")
		os.Exit(2)
	}
	if *name == "" {
		*name = *specPath
	}
	abs, err := filepath.Abs(*specPath)
	if err != nil {
		fail(err)
	}
	in, err := gen.LoadInput(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), *name)
	if err != nil {
		fail(err)
	}
	in.Package = *pkg
	src, err := gen.Generate(in)
	if err != nil {
		fail(err)
	}
	if *check {
		old, err := os.ReadFile(*out)
		if err != nil || !bytes.Equal(old, src) {
			fmt.Fprintf(os.Stderr, "gen: %s is not what gen generates from %s; run go generate\n", *out, *name)
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
