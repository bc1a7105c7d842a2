package tla

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// library holds the modules that TLC finds on its library path rather than
// beside a spec: the TLA+ proof library (FiniteSetTheorems,
// NaturalsInduction, ...: theorems only, which model checking skips) and
// the CommunityModules (Functions, SequencesExt, FiniteSetsExt, Folds,
// UndirectedGraphs, Bitwise, Json, ...), written for roomspec as TLA+
// definitions. The evaluator computes natively the few operators whose
// definitions cannot be evaluated (they range over infinite sets) and for
// which TLC has a Java implementation.
//
//go:embed library/*.tla
var library embed.FS

// LibraryDir is the folder that library modules' File names start with.
const LibraryDir = "library"

// LibraryModules lists the modules of roomspec's library, sorted.
func LibraryModules() []string {
	entries, _ := fs.ReadDir(library, LibraryDir)
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".tla"))
	}
	sort.Strings(out)
	return out
}

// readLibrary returns the source of library module name, if there is one.
func readLibrary(name string) (file string, src []byte, ok bool) {
	file = path.Join(LibraryDir, name+".tla")
	src, err := fs.ReadFile(library, file)
	return file, src, err == nil
}
