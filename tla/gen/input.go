package gen

import (
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
)

// LoadInput reads the module specFile (a path inside fsys, e.g. "Room.tla")
// and every .cfg beside it, in name order. sourceName is how the generated
// header names the spec (e.g. "spec/Room.tla").
func LoadInput(fsys fs.FS, specFile, sourceName string) (Input, error) {
	src, err := fs.ReadFile(fsys, specFile)
	if err != nil {
		return Input{}, fmt.Errorf("gen: %w", err)
	}
	dir := path.Dir(specFile)
	sub := fsys
	if dir != "." {
		if sub, err = fs.Sub(fsys, dir); err != nil {
			return Input{}, fmt.Errorf("gen: %w", err)
		}
	}
	mods, err := tla.Load(sub, strings.TrimSuffix(path.Base(specFile), ".tla"))
	if err != nil {
		return Input{}, err
	}
	names, err := fs.Glob(sub, "*.cfg")
	if err != nil {
		return Input{}, fmt.Errorf("gen: %w", err)
	}
	if len(names) == 0 {
		return Input{}, fmt.Errorf("gen: no .cfg beside %s", specFile)
	}
	in := Input{Modules: mods, Source: src, SourceName: sourceName}
	for _, n := range names {
		text, err := fs.ReadFile(sub, n)
		if err != nil {
			return Input{}, fmt.Errorf("gen: %w", err)
		}
		file := path.Join(path.Dir(sourceName), n)
		c, err := cfg.Parse(file, text)
		if err != nil {
			return Input{}, err
		}
		in.Configs = append(in.Configs, c)
	}
	return in, nil
}
