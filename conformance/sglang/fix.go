package sglang

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A Fix is a proposed repair of SGLang's room lifecycle, kept as our own
// edit operations (never SGLang's file): at test time they are applied to
// a temporary copy of the code under test, so that the suite can hold the
// repaired code to a configuration of Room.tla in which every property
// holds. An edit names the lines it expects (its anchor) and refuses to
// apply where they are not found exactly once: code the fix was not
// written for is refused, never patched by guess.
type Fix struct {
	// Name is what -fix takes.
	Name string
	// Variant is the bundled configuration the fixed code must refine.
	Variant string
	// Commit is the SGLang commit the edits were written against (their
	// Line numbers are that commit's).
	Commit string
	// What is the fix in words.
	What  string
	Edits []Edit
}

// Where an edit's lines go, relative to its anchor.
type Where int

const (
	After Where = iota
	Before
	Replace
)

// An Edit is one change of one file: its Lines put After, Before or in
// place of (Replace) its Anchor, consecutive lines that must occur
// exactly once in the file (compared without trailing blanks).
type Edit struct {
	// File is relative to python/sglang/srt.
	File string
	// Line is where the anchor starts at the fix's Commit (for the reader
	// and for messages; the anchor, not the number, places the edit).
	Line int
	// Why says what the edit does, with the switch of Room.tla it gives
	// the code.
	Why    string
	Anchor []string
	Where  Where
	Lines  []string
}

// ErrFixAnchor: the code does not have the lines an edit of the fix
// expects (another commit, or edited code).
var ErrFixAnchor = errors.New("the code does not have the lines the fix was written for")

// Fixes are the fixes -fix knows, by name.
var Fixes = []*Fix{fixComplete}

// FindFix returns the fix named name.
func FindFix(name string) (*Fix, error) {
	for _, f := range Fixes {
		if f.Name == name {
			return f, nil
		}
	}
	var names []string
	for _, f := range Fixes {
		names = append(names, f.Name)
	}
	return nil, fmt.Errorf("sglang: no fix %q (known: %s)", name, strings.Join(names, ", "))
}

// apply applies the fix's edits of file to text, its content.
func (f *Fix) apply(file string, text string) (string, error) {
	lines := strings.Split(text, "\n")
	for _, e := range f.Edits {
		if e.File != file {
			continue
		}
		var at []int
		for i := 0; i+len(e.Anchor) <= len(lines); i++ {
			if matches(lines[i:i+len(e.Anchor)], e.Anchor) {
				at = append(at, i)
			}
		}
		if len(at) != 1 {
			found := "not found"
			if len(at) > 1 {
				found = fmt.Sprintf("found %d times", len(at))
			}
			return "", fmt.Errorf("fix %s: %s: the lines of %.12s:%d (%q) %s: %w",
				f.Name, file, f.Commit, e.Line, strings.TrimSpace(e.Anchor[0]), found, ErrFixAnchor)
		}
		i, n := at[0], len(e.Anchor)
		var out []string
		switch e.Where {
		case After:
			out = slices.Concat(lines[:i+n], e.Lines, lines[i+n:])
		case Before:
			out = slices.Concat(lines[:i], e.Lines, lines[i:])
		case Replace:
			out = slices.Concat(lines[:i], e.Lines, lines[i+n:])
		}
		lines = out
	}
	return strings.Join(lines, "\n"), nil
}

func matches(have, want []string) bool {
	for i := range want {
		if strings.TrimRight(have[i], " \t\r") != strings.TrimRight(want[i], " \t\r") {
			return false
		}
	}
	return true
}

// files are the files the fix edits, in order.
func (f *Fix) files() []string {
	var out []string
	for _, e := range f.Edits {
		if !slices.Contains(out, e.File) {
			out = append(out, e.File)
		}
	}
	return out
}

// ApplyFix returns src with fix applied: the code the harness loads
// (Paths) copied into cache and edited there. The copy is kept by the
// hash of the code and the fix, so a second run reuses it; src's own
// folder is never written.
func ApplyFix(src Source, fix *Fix, cache string) (Source, error) {
	srt := filepath.Join(src.Root, "sglang", "srt")
	h := sha256.New()
	fmt.Fprintf(h, "%#v\x00", *fix)
	var files []string
	for _, p := range Paths {
		root := filepath.Join(srt, strings.TrimPrefix(p, "python/sglang/srt/"))
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == root {
					return nil
				}
				return err
			}
			if d.Type().IsRegular() {
				rel, _ := filepath.Rel(srt, path)
				files = append(files, rel)
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
				h.Write(b)
			}
			return nil
		})
		if err != nil {
			return src, fmt.Errorf("sglang: fix %s: %w", fix.Name, err)
		}
	}
	dir := filepath.Join(cache, "fixed", fix.Name+"-"+hex.EncodeToString(h.Sum(nil))[:16])
	out := src
	out.Root = filepath.Join(dir, "python")
	out.Fix = fix.Name
	if isFile(filepath.Join(out.Root, "sglang", "srt", "disaggregation", "prefill.py")) {
		return out, nil
	}
	if err := os.MkdirAll(filepath.Join(cache, "fixed"), 0o755); err != nil {
		return src, fmt.Errorf("sglang: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Join(cache, "fixed"), ".fix-")
	if err != nil {
		return src, fmt.Errorf("sglang: %w", err)
	}
	defer os.RemoveAll(tmp)
	edited := fix.files()
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(srt, rel))
		if err != nil {
			return src, fmt.Errorf("sglang: fix %s: %w", fix.Name, err)
		}
		if slices.Contains(edited, filepath.ToSlash(rel)) {
			text, err := fix.apply(filepath.ToSlash(rel), string(b))
			if err != nil {
				return src, fmt.Errorf("sglang: %s: %w", src.Label(), err)
			}
			b = []byte(text)
			edited = slices.DeleteFunc(edited, func(s string) bool { return s == filepath.ToSlash(rel) })
		}
		target := filepath.Join(tmp, "python", "sglang", "srt", rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return src, fmt.Errorf("sglang: %w", err)
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return src, fmt.Errorf("sglang: %w", err)
		}
	}
	if len(edited) > 0 {
		return src, fmt.Errorf("sglang: %s: fix %s edits %s, which the code does not have: %w",
			src.Label(), fix.Name, strings.Join(edited, ", "), ErrFixAnchor)
	}
	if err := os.Rename(tmp, dir); err != nil && !isFile(filepath.Join(out.Root, "sglang", "srt", "disaggregation", "prefill.py")) {
		return src, fmt.Errorf("sglang: fix %s: %w", fix.Name, err)
	}
	return out, nil
}
