package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxCommandLines is the longest a function of cmd/ may be: a command
// reads its flags, calls a package and writes what it returns; a longer
// one holds logic that belongs in a package (issue 23).
const maxCommandLines = 80

// TestCommandsThin holds every non-test, non-generated function under
// cmd/ to maxCommandLines lines.
func TestCommandsThin(t *testing.T) {
	fset := token.NewFileSet()
	long := longFunctions(t, fset, "../../cmd", maxCommandLines)
	for _, l := range long {
		t.Errorf("%s: %s is %d lines, over %d: move its logic into a package", l.pos, l.name, l.lines, maxCommandLines)
	}
}

// TestLongFunctionFound checks that the measure sees a long function,
// so that TestCommandsThin cannot pass by finding nothing.
func TestLongFunctionFound(t *testing.T) {
	fset := token.NewFileSet()
	long := longFunctions(t, fset, "../../cmd", 10)
	if len(long) == 0 {
		t.Fatal("no function of cmd/ is over 10 lines: the walk found no code")
	}
}

type longFunc struct {
	pos   token.Position
	name  string
	lines int
}

func longFunctions(t *testing.T, fset *token.FileSet, root string, limit int) []longFunc {
	t.Helper()
	var long []longFunc
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > limit {
				long = append(long, longFunc{start, fd.Name.Name, n})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return long
}
