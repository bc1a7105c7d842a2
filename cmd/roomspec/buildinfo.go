package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() {
	register(&command{
		name:    "version",
		summary: "print roomspec's version (the module version, else the commit it was built from) and Go's",
		run: func(e *env, args []string) int {
			fs := newFlagSet(e, "version", "", "Prints roomspec's version: the module version of a go install ...@VERSION, else the\ncommit the binary was built from (+dirty for uncommitted changes), and the Go toolchain's.")
			if code, ok := fs.parse(args); !ok {
				return code
			}
			if fs.NArg() != 0 {
				fmt.Fprintln(e.stderr, "roomspec version: takes no arguments")
				return exitBadInput
			}
			fmt.Fprintf(e.stdout, "roomspec %s (%s, %s/%s)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return exitOK
		},
	})
}

// buildVersion is roomspec's version as the Go toolchain recorded it: the
// module version of a `go install ...@VERSION`, else the VCS revision the
// binary was built from (with "+dirty" for uncommitted changes), else
// "(devel)".
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "(devel)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}
