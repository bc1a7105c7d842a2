package tla

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mod(name, body string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte("---- MODULE " + name + " ----\n" + body + "\n====\n")}
}

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"Top.tla":    mod("Top", "EXTENDS Naturals, Mid\nI == INSTANCE Leaf WITH c <- 1\n---- MODULE Sub ----\nS == 1\n====\nJ == INSTANCE Sub"),
		"Mid.tla":    mod("Mid", "EXTENDS Leaf, Sequences\nM == 2"),
		"Leaf.tla":   mod("Leaf", "EXTENDS Naturals\nCONSTANT c\nL == c"),
		"Unused.tla": mod("Unused", "syntax error here"),
	}
	ms, err := Load(fsys, "Top.tla")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, m := range ms.Order {
		order = append(order, m.Name)
	}
	if got, want := strings.Join(order, " "), "Leaf Mid Top"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if ms.Root.Name != "Top" || ms.ByName["Leaf"] == nil || len(ms.ByName) != 3 {
		t.Errorf("root %s, modules %v", ms.Root.Name, ms.ByName)
	}
	if got, want := strings.Join(ms.Standard, " "), "Naturals Sequences"; got != want {
		t.Errorf("standard modules %q, want %q", got, want)
	}
	if ms.ByName["Leaf"].File != "Leaf.tla" {
		t.Errorf("file %q", ms.ByName["Leaf"].File)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name     string
		fsys     fstest.MapFS
		root     string
		sentinel error
		want     string
	}{
		{"missing root", fstest.MapFS{}, "Nope", ErrModuleNotFound, "expected module Nope in Nope.tla"},
		{"missing extends", fstest.MapFS{"A.tla": mod("A", "EXTENDS Naturals,\n  Gone")}, "A", ErrModuleNotFound,
			"A.tla:3:3: expected module Gone in Gone.tla beside this file (or a standard or library module), found none"},
		{"missing instance", fstest.MapFS{"A.tla": mod("A", "X == INSTANCE Gone")}, "A", ErrModuleNotFound,
			"A.tla:2:15: expected module Gone"},
		{"cycle", fstest.MapFS{"A.tla": mod("A", "EXTENDS B"), "B.tla": mod("B", "C == INSTANCE A")}, "A", ErrCycle,
			"B.tla:2:15: module dependency cycle: A -> B -> A"},
		{"self", fstest.MapFS{"A.tla": mod("A", "EXTENDS A")}, "A", ErrCycle, "A.tla:2:9: module dependency cycle: A -> A"},
		{"wrong name", fstest.MapFS{"A.tla": mod("B", "")}, "A", nil, "A.tla:1:1: expected module A in A.tla, found module B"},
		{"syntax error in dependency", fstest.MapFS{"A.tla": mod("A", "EXTENDS B"), "B.tla": mod("B", "X == (")}, "A", nil,
			"B.tla:3:1: expected an expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(tt.fsys, tt.root)
			if err == nil {
				t.Fatal("no error")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%v is %T, want *Error", err, err)
			}
			if tt.sentinel != nil && !errors.Is(err, tt.sentinel) {
				t.Errorf("%v does not wrap %v", err, tt.sentinel)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\ndoes not contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadSubdirectory(t *testing.T) {
	fsys := fstest.MapFS{
		"specs/A.tla": mod("A", "EXTENDS B"),
		"specs/B.tla": mod("B", "X == 1"),
	}
	ms, err := Load(fsys, "specs/A.tla")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.Order) != 2 || ms.Root.Name != "A" {
		t.Errorf("loaded %d modules, root %s", len(ms.Order), ms.Root.Name)
	}
}

// TestLoadShared loads every shared example module with its siblings.
func TestLoadShared(t *testing.T) {
	for _, f := range sharedModules(t) {
		ms, err := Load(os.DirFS(filepath.Dir(f)), filepath.Base(f))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if ms.Root.Name != trimExt(filepath.Base(f)) {
			t.Errorf("%s: root %s", f, ms.Root.Name)
		}
	}
}

// TestLoadModulesOfAFile: a module may EXTEND one that follows it at the
// top level of its file (as the tlaplus/Examples braf specification does);
// that one is not looked for on disk, and a module of the file that is
// not used is parsed (a syntax error there is one) but not loaded.
func TestLoadModulesOfAFile(t *testing.T) {
	fsys := fstest.MapFS{
		"Main.tla": &fstest.MapFile{Data: []byte(
			"---- MODULE Main ----\nEXTENDS Common\nX == C\n====\n\ntext between modules\n" +
				"---- MODULE Other ----\nEXTENDS Common\nO == 1\n=======\n" +
				"---- MODULE Common ----\nC == 1\n====\n")},
	}
	ms, err := Load(fsys, "Main")
	require.NoError(t, err)
	var order []string
	for _, m := range ms.Order {
		order = append(order, m.Name)
	}
	assert.Equal(t, []string{"Common", "Main"}, order)
	assert.Equal(t, "Main.tla", ms.ByName["Common"].File)
	assert.Equal(t, Pos{13, 1}, ms.ByName["Common"].End)

	fsys["Main.tla"].Data = append(fsys["Main.tla"].Data, "---- MODULE Broken ----\nB == \n====\n"...)
	_, err = Load(fsys, "Main")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Main.tla:16:1: expected an expression, found "===="`)
}
