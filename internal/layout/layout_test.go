// Package layout holds the tests of the module's layout
// (ARCHITECTURE.md): imports point one way between folders, decoding
// knows nothing of the spec, every Python unit test is run by something,
// and the commands under cmd/ stay thin.
package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/roomspec/roomspec"

// pkg is what go list says of a package of the module.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// rel is p relative to the module ("" for the root), or ok false for a
// package outside it.
func rel(p string) (string, bool) {
	switch {
	case p == module:
		return "", true
	case strings.HasPrefix(p, module+"/"):
		return p[len(module)+1:], true
	}
	return "", false
}

// root is the module's root folder.
func root(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// list returns the module's packages (their imports without tests: what
// a build links).
func list(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "./...")
	cmd.Dir = root(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 {
		t.Fatal("go list: no packages")
	}
	return pkgs
}

// folderEdges returns, for every folder of the module, which of its
// children import which: a package is part of every folder above it, and
// a package in a folder with subfolders is a child of its own, named
// "." (so that spec's own package and spec/model are told apart). An
// edge a -> b between two children of one folder says some package under
// a imports some package under b.
func folderEdges(pkgs []pkg) map[string]map[[2]string][]string {
	// child returns the child of folder dir that holds package p, or ""
	// when p is not under dir.
	child := func(dir, p string) string {
		if dir != "" {
			if !strings.HasPrefix(p, dir+"/") {
				if p == dir {
					return "."
				}
				return ""
			}
			p = p[len(dir)+1:]
		} else if p == "" {
			return "."
		}
		first, _, _ := strings.Cut(p, "/")
		return first
	}
	dirs := map[string]bool{"": true}
	for _, p := range pkgs {
		r, _ := rel(p.ImportPath)
		for d := path.Dir(r); d != "." && d != "/"; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	edges := map[string]map[[2]string][]string{}
	for dir := range dirs {
		for _, p := range pkgs {
			from, _ := rel(p.ImportPath)
			a := child(dir, from)
			if a == "" {
				continue
			}
			for _, imp := range p.Imports {
				to, ok := rel(imp)
				if !ok {
					continue
				}
				if b := child(dir, to); b != "" && b != a {
					if edges[dir] == nil {
						edges[dir] = map[[2]string][]string{}
					}
					k := [2]string{a, b}
					edges[dir][k] = append(edges[dir][k], from+" -> "+to)
				}
			}
		}
	}
	return edges
}

// TestNoFolderCycle: no two folders of the module import each other both
// ways, at any depth of the tree (ARCHITECTURE.md, "Imports point one
// way"): for the folders spec and tla, or traces/judge and traces/observe,
// a package of one may import the other's, never also the other way.
func TestNoFolderCycle(t *testing.T) {
	for dir, es := range folderEdges(list(t)) {
		for k, why := range es {
			if k[0] > k[1] {
				continue // each pair once
			}
			back, ok := es[[2]string{k[1], k[0]}]
			if !ok {
				continue
			}
			name := func(c string) string {
				if c == "." {
					return dir + " (its own package)"
				}
				return path.Join(dir, c)
			}
			t.Errorf("folders %s and %s import each other:\n  %s\n  %s",
				name(k[0]), name(k[1]), strings.Join(why, "\n  "), strings.Join(back, "\n  "))
		}
	}
}

// TestFolderCycleFound: the cycle check sees a cycle between folders
// that no package cycle makes (Go forbids those): a/x imports b/y and
// b/z imports a/w.
func TestFolderCycleFound(t *testing.T) {
	pkgs := []pkg{
		{ImportPath: module + "/a/x", Imports: []string{module + "/b/y"}},
		{ImportPath: module + "/a/w"},
		{ImportPath: module + "/b/y"},
		{ImportPath: module + "/b/z", Imports: []string{module + "/a/w", "fmt"}},
		{ImportPath: module + "/c", Imports: []string{module + "/c/d"}},
		{ImportPath: module + "/c/d"},
	}
	es := folderEdges(pkgs)
	if _, ok := es[""][[2]string{"a", "b"}]; !ok {
		t.Fatalf("no edge a -> b: %v", es)
	}
	if _, ok := es[""][[2]string{"b", "a"}]; !ok {
		t.Fatalf("no edge b -> a: %v", es)
	}
	if _, ok := es["c"][[2]string{".", "d"}]; !ok {
		t.Fatalf("no edge from c's own package to c/d: %v", es)
	}
	if _, ok := es["a"]; ok {
		t.Fatalf("a/x and a/w do not import each other: %v", es["a"])
	}
}

// TestDecodingKnowsNoSpec: the decoding packages of traces import
// nothing of the spec, the TLA+ toolchain or judging, directly or not;
// zmtp knows nothing of SGLang's messages, wire nothing of pcap.
func TestDecodingKnowsNoSpec(t *testing.T) {
	rules := map[string][]string{
		"traces/capture":  {"spec", "tla", "traces/judge", "conformance", "report", "traces/wire", "traces/zmtp"},
		"traces/zmtp":     {"spec", "tla", "traces/judge", "conformance", "report", "traces/wire", "traces/capture"},
		"traces/wire":     {"spec", "tla", "traces/judge", "conformance", "report", "traces/capture", "github.com/google/gopacket"},
		"traces/decode":   {"spec", "tla", "traces/judge", "conformance", "report"},
		"traces/eventlog": {"spec", "tla", "traces/judge", "conformance", "report"},
		"traces/source":   {"spec", "tla", "traces/judge", "conformance", "report"},
		"traces/observe":  {"spec", "tla", "traces/judge", "conformance", "report"},
	}
	seen := map[string]bool{}
	for _, p := range list(t) {
		r, _ := rel(p.ImportPath)
		banned, ok := rules[r]
		if !ok {
			continue
		}
		seen[r] = true
		for _, d := range p.Deps {
			name, in := rel(d)
			if !in {
				name = d
			}
			for _, b := range banned {
				if name == b || strings.HasPrefix(name, b+"/") {
					t.Errorf("%s depends on %s", r, d)
				}
			}
		}
	}
	for r := range rules {
		if !seen[r] {
			t.Errorf("no package %s: update the rules", r)
		}
	}
}

// pythonRunners are the folders whose Python unit tests (test_*.py) a Go
// test runs, with the Go file that runs them.
var pythonRunners = map[string]string{
	"conformance/sglang/harness": "conformance/sglang/harness_test.go",
	"traces/instrument":          "traces/instrument/instrument_test.go",
}

// TestPythonTestsRun: every Python unit test module of the repository
// (test_*.py, *_test.py) lies in a folder a Go test runs with unittest,
// so that go test ./... runs them all.
func TestPythonTestsRun(t *testing.T) {
	dir := root(t)
	out, err := exec.Command("git", "-C", dir, "ls-files", "--cached", "--others", "--exclude-standard", "*.py").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	found := 0
	for _, f := range strings.Fields(string(out)) {
		base := path.Base(f)
		if !strings.HasPrefix(base, "test_") && !strings.HasSuffix(base, "_test.py") {
			continue
		}
		found++
		runner, ok := pythonRunners[path.Dir(f)]
		if !ok {
			t.Errorf("%s: no Go test runs it (run it from a Go test, as conformance/sglang/harness_test.go does, and list its folder here)", f)
			continue
		}
		if runner == "" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, runner))
		if err != nil {
			t.Error(err)
			continue
		}
		// The runner discovers the folder's modules with unittest.
		rel := strings.TrimPrefix(path.Dir(f), path.Dir(runner)+"/")
		if path.Dir(f) == path.Dir(runner) {
			rel = "."
		}
		if !bytes.Contains(src, []byte("unittest discover -s "+rel)) {
			t.Errorf("%s: %s does not run unittest discover on %s", f, runner, rel)
		}
	}
	if found == 0 {
		t.Fatal("no Python unit tests found: the search is broken")
	}
	for d := range pythonRunners {
		if !slices.ContainsFunc(strings.Fields(string(out)), func(f string) bool { return path.Dir(f) == d }) {
			t.Errorf("%s: no Python files there any more: update pythonRunners", d)
		}
	}
}
