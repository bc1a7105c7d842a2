package cfg

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/internal/sharedpath"
)

// sharedConfigs returns the .cfg files of the shared TLC examples, keyed by
// their path relative to the examples folder.
func sharedConfigs(tb testing.TB) map[string][]byte {
	tb.Helper()
	root := sharedpath.Require(tb, "tla-examples")
	files := walkConfigs(root)
	if len(files) == 0 {
		tb.Fatalf("no .cfg files under %s", root)
	}
	return files
}

func TestSharedExamples(t *testing.T) {
	files := sharedConfigs(t)
	parsed := map[string]*Config{}
	for rel, src := range files {
		c, err := Parse(rel, src)
		if err != nil {
			t.Errorf("Parse: %v", err)
			continue
		}
		if err := c.Validate(); err != nil {
			t.Errorf("Validate: %v", err)
		}
		if c.Specification == nil && c.Init == nil {
			t.Errorf("%s: neither SPECIFICATION nor INIT", rel)
		}
		parsed[filepath.Base(rel)] = c
	}
	t.Logf("parsed %d configuration files", len(parsed))

	constant := func(file, name string) *ConstantDef {
		t.Helper()
		c := parsed[file]
		if c == nil {
			t.Fatalf("%s not parsed", file)
		}
		for _, d := range c.Constants {
			if d.Name == name {
				return d
			}
		}
		t.Fatalf("%s: no constant %s", file, name)
		return nil
	}

	// PaxosCommit: a set of sets of model values.
	maj := constant("PaxosCommit.cfg", "Majority")
	if got, want := maj.String(), "Majority = {{a1, a2}, {a1, a3}, {a2, a3}}"; got != want {
		t.Errorf("PaxosCommit Majority: got %q, want %q", got, want)
	}
	if v := maj.Value; v.Kind != Set || v.Elem[2].Kind != Set || v.Elem[2].Elem[1].Kind != ModelValue || v.Elem[2].Elem[1].Str != "a3" {
		t.Errorf("PaxosCommit Majority structure: %s", v)
	}
	if maj.Pos.Line != 4 || maj.Pos.Col != 3 {
		t.Errorf("PaxosCommit Majority at %s, want 4:3", maj.Pos)
	}
	if b := constant("PaxosCommit.cfg", "Ballot").Value; b.String() != "{0, 1}" || b.Elem[1].Kind != Int || b.Elem[1].Int != 1 {
		t.Errorf("PaxosCommit Ballot: %s", b)
	}
	pc := parsed["PaxosCommit.cfg"]
	if pc.Specification == nil || pc.Specification.Name != "PCSpec" || len(pc.Invariants) != 1 || pc.Invariants[0].Name != "PCTypeOK" {
		t.Errorf("PaxosCommit: %s", dump(pc))
	}

	// kvstore: a model value named like its constant, and strings.
	if v := constant("kvstore.cfg", "NIL").Value; v.Kind != ModelValue || v.Str != "NIL" {
		t.Errorf("kvstore NIL: %s (kind %s)", v, v.Kind)
	}
	if v := constant("kvstore.cfg", "MISSING").Value; v.Kind != String || v.Str != "missing" {
		t.Errorf("kvstore MISSING: %s (kind %s)", v, v.Kind)
	}
	if v := constant("kvstore.cfg", "Keys").Value; v.String() != `{"A", "B", "C"}` || v.Elem[0].Kind != String {
		t.Errorf("kvstore Keys: %s", v)
	}
	// The file's commented-out INIT/NEXT must stay comments.
	if kv := parsed["kvstore.cfg"]; kv.Init != nil || kv.Next != nil || len(kv.Properties) != 0 || len(kv.Invariants) != 1 {
		t.Errorf("kvstore: %s", dump(kv))
	}

	// TokenRing: CHECK_DEADLOCK FALSE and ALIAS.
	tr := parsed["TokenRing.cfg"]
	if tr.CheckDeadlock == nil || *tr.CheckDeadlock || tr.DeadlockChecked() {
		t.Errorf("TokenRing CHECK_DEADLOCK: %v", tr.CheckDeadlock)
	}
	if tr.Alias == nil || tr.Alias.Name != "Alias" || tr.Alias.Pos.Line != 18 {
		t.Errorf("TokenRing ALIAS: %+v", tr.Alias)
	}
	if got := dump(tr); got != "CONSTANT 2:5 N = 6 @2:9\nCONSTANT 3:5 M = 6 @3:9\nSPECIFICATION 9:5 Spec\n"+
		"INVARIANT 12:5 TypeOK\nPROPERTY 15:5 Stab\nALIAS 18:5 Alias\nCHECK_DEADLOCK 6:5 false\n" {
		t.Errorf("TokenRing:\n%s", got)
	}

	// MCRealTimeHourClock: INIT/NEXT and a property list interrupted by
	// a block comment.
	rt := parsed["MCRealTimeHourClock.cfg"]
	if rt.Init == nil || rt.Init.Name != "BigInit" || rt.Next == nil || rt.Next.Name != "BigNext" ||
		len(rt.Properties) != 1 || rt.Properties[0].Name != "ErrorTemporal" {
		t.Errorf("MCRealTimeHourClock: %s", dump(rt))
	}
	// SimpleAllocator: the SYMMETRY line is commented out.
	if sa := parsed["SimpleAllocator.cfg"]; sa.Symmetry != nil || len(sa.Properties) != 3 || len(sa.Invariants) != 2 {
		t.Errorf("SimpleAllocator: %s", dump(sa))
	}
	// DieHard: default deadlock checking.
	if dh := parsed["DieHard.cfg"]; !dh.DeadlockChecked() || len(dh.Invariants) != 2 || dh.Invariants[1].Name != "NotSolved" {
		t.Errorf("DieHard: %s", dump(dh))
	}
}

// sharedConfigsIfPresent is sharedConfigs for fuzz seeding: nil, without
// skipping, when the shared folder is absent.
func sharedConfigsIfPresent() map[string][]byte {
	if sharedpath.Dir() == "" {
		return nil
	}
	return walkConfigs(filepath.Join(sharedpath.Dir(), "tla-examples"))
}

// walkConfigs reads the .cfg files under root, keyed by slash-separated
// path relative to root. Unreadable files are left out; the test that
// wants them all notices by count or by name.
func walkConfigs(root string) map[string][]byte {
	files := map[string][]byte{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".cfg") {
			return nil
		}
		if src, err := os.ReadFile(path); err == nil {
			rel, _ := filepath.Rel(root, path)
			files[filepath.ToSlash(rel)] = src
		}
		return nil
	})
	return files
}
