package tla

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// StandardModules are the modules that have no .tla file: the evaluator
// implements them. A name listed here is never looked up on disk, even when a
// sibling file of that name exists. TLAPS is listed because specs extend it
// only for proofs, which the checker ignores.
var StandardModules = map[string]bool{
	"Naturals": true, "Integers": true, "Reals": true, "Sequences": true,
	"FiniteSets": true, "Bags": true, "TLC": true, "TLCExt": true,
	"Randomization": true, "TLAPS": true,
}

// Modules is a root module together with every user module it depends on
// through EXTENDS and INSTANCE, transitively.
type Modules struct {
	Root *Module
	// ByName holds every loaded user module, the root included.
	ByName map[string]*Module
	// Order lists the loaded modules with every module after the modules it
	// depends on (the root last).
	Order []*Module
	// Standard lists the standard modules referenced anywhere, sorted by first
	// reference.
	Standard []string
}

// Load parses the module name (with or without ".tla", possibly in a
// slash-separated subdirectory of fsys) from fsys and the
// sibling modules it EXTENDS or INSTANCEs, transitively. Standard modules
// (StandardModules) have no file and are only recorded. Modules defined as
// submodules inside a file are resolved there and not looked up on disk;
// nor are the modules that follow the first at the top level of a file
// read already (as SANY reads a file whole).
// Errors are *Error (syntax errors; a missing module wraps ErrModuleNotFound,
// a cycle wraps ErrCycle), with the position of the offending reference.
func Load(fsys fs.FS, name string) (*Modules, error) {
	name = strings.TrimSuffix(name, ".tla")
	if dir := path.Dir(name); dir != "." {
		// "specs/Foo": siblings are looked up beside it, in specs.
		sub, err := fs.Sub(fsys, dir)
		if err != nil {
			return nil, &Error{File: name + ".tla", Msg: err.Error(), Err: ErrModuleNotFound}
		}
		fsys, name = sub, path.Base(name)
	}
	l := &loader{fsys: fsys, ms: &Modules{ByName: map[string]*Module{}}, state: map[string]int{}, std: map[string]bool{}, inFile: map[string]*Module{}}
	root, err := l.load(name, "", Pos{})
	if err != nil {
		return nil, err
	}
	l.ms.Root = root
	return l.ms, nil
}

type loader struct {
	fsys  fs.FS
	ms    *Modules
	state map[string]int // 0 unseen, 1 loading, 2 done
	stack []string
	std   map[string]bool
	// inFile are the modules found after the first at the top level of the
	// files read, by name.
	inFile map[string]*Module
}

// load reads and resolves the module name, referenced from file at pos (for
// messages; file is "" for the root).
func (l *loader) load(name string, file string, pos Pos) (*Module, error) {
	switch l.state[name] {
	case 1:
		cycle := append(append([]string(nil), l.stack[indexOf(l.stack, name):]...), name)
		return nil, &Error{File: file, Pos: pos, Err: ErrCycle,
			Msg: fmt.Sprintf("module dependency cycle: %s", strings.Join(cycle, " -> "))}
	case 2:
		return l.ms.ByName[name], nil
	}
	if m := l.inFile[name]; m != nil {
		return l.resolved(m, m.File)
	}
	path := name + ".tla"
	src, err := fs.ReadFile(l.fsys, path)
	lib := false
	if errors.Is(err, fs.ErrNotExist) && file != "" {
		// As TLC looks on its library path: a module beside the spec
		// comes first, then roomspec's library.
		if lpath, lsrc, ok := readLibrary(name); ok {
			path, src, err, lib = lpath, lsrc, nil, true
		}
	}
	if err != nil {
		msg := fmt.Sprintf("expected module %s in %s beside this file (or a standard or library module), found none", name, path)
		if !errors.Is(err, fs.ErrNotExist) {
			msg = fmt.Sprintf("reading module %s: %v", name, err)
		}
		return nil, &Error{File: file, Pos: pos, Msg: msg, Err: ErrModuleNotFound}
	}
	ms, err := ParseFileAll(path, src)
	if err != nil {
		return nil, err
	}
	m := ms[0]
	m.Library = lib
	if m.Name != name {
		return nil, &Error{File: path, Pos: m.At, Msg: fmt.Sprintf("expected module %s in %s, found module %s", name, path, m.Name)}
	}
	for _, o := range ms[1:] {
		o.Library = lib
		if l.inFile[o.Name] == nil && l.state[o.Name] == 0 {
			l.inFile[o.Name] = o
		}
	}
	return l.resolved(m, path)
}

// resolved loads the dependencies of m, read from path, and records it.
func (l *loader) resolved(m *Module, path string) (*Module, error) {
	name := m.Name
	l.state[name] = 1
	l.stack = append(l.stack, name)
	if err := l.resolve(m, path, map[string]bool{}); err != nil {
		return nil, err
	}
	l.stack = l.stack[:len(l.stack)-1]
	l.state[name] = 2
	l.ms.ByName[name] = m
	l.ms.Order = append(l.ms.Order, m)
	return m, nil
}

// resolve loads the dependencies of m (and of its submodules); local holds
// the names of submodules visible at this point.
func (l *loader) resolve(m *Module, file string, local map[string]bool) error {
	// Submodules are visible to the units that follow them.
	visible := map[string]bool{}
	for k := range local {
		visible[k] = true
	}
	dep := func(name string, pos Pos) error {
		if StandardModules[name] {
			if !l.std[name] {
				l.std[name] = true
				l.ms.Standard = append(l.ms.Standard, name)
			}
			return nil
		}
		if visible[name] {
			return nil
		}
		_, err := l.load(name, file, pos)
		return err
	}
	for _, e := range m.Extends {
		if err := dep(e.Name, e.At); err != nil {
			return err
		}
	}
	for _, u := range m.Units {
		switch u := u.(type) {
		case *Instance:
			if err := dep(u.Module, u.ModuleAt); err != nil {
				return err
			}
		case *Module:
			if err := l.resolve(u, file, visible); err != nil {
				return err
			}
			visible[u.Name] = true
		}
	}
	return nil
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return 0
}
