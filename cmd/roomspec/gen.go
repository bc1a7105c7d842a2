package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/roomspec/roomspec/tla/gen"
)

func runGen(e *env, args []string) int {
	fs := newFlagSet(e, "gen", "SPEC.tla",
		`Compile SPEC.tla, with every .cfg beside it, into one Go source file:
state types from TypeOK, Init, one method per action, Next, the invariants
and [][A]_v properties the cfgs name, fingerprints and TLA+/ITF printing
(see package gen). Constructs outside gen's subset are reported at their
file:line:col. spec/model is generated this way (go generate ./spec/model).

Exit status: 0 written (or up to date with -check), 1 with -check when the
output file differs from what gen generates, 2 on bad input.`)
	out := fs.String("o", "", "output `file` (default: standard output)")
	pkg := fs.String("pkg", "model", "Go package `name`")
	name := fs.String("name", "", "how the generated header names the spec (default: SPEC.tla as given)")
	check := fs.Bool("check", false, "write nothing; exit 1 if -o differs from the generated code")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if fs.NArg() != 1 || (*check && *out == "") {
		fs.Usage()
		return exitBadInput
	}
	spec := fs.Arg(0)
	if *name == "" {
		*name = filepath.ToSlash(spec)
	}
	abs, err := filepath.Abs(spec)
	if err != nil {
		fmt.Fprintln(e.stderr, "roomspec gen:", err)
		return exitBadInput
	}
	in, err := gen.LoadInput(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), *name)
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return exitBadInput
	}
	in.Package = *pkg
	src, err := gen.Generate(in)
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return exitBadInput
	}
	switch {
	case *check:
		old, err := os.ReadFile(*out)
		if err != nil || !bytes.Equal(old, src) {
			fmt.Fprintf(e.stderr, "roomspec gen: %s is not what gen generates from %s\n", *out, *name)
			return exitViolation
		}
	case *out == "":
		e.stdout.Write(src)
	default:
		if err := os.WriteFile(*out, src, 0o644); err != nil {
			fmt.Fprintln(e.stderr, "roomspec gen:", err)
			return exitBadInput
		}
	}
	return exitOK
}

func init() {
	register(&command{
		name:    "gen",
		summary: "compile a TLA+ spec and its cfgs into a typed Go package",
		run:     runGen,
	})
}
