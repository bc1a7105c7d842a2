package main

import (
	"errors"
	"fmt"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/gen"
)

// genAnalysis runs gen's typing and assignment analysis on a spec before it
// is model-checked, as `roomspec gen` would compile it: a variable assigned
// on no path of an action, or a string where TypeOK says an integer
// belongs, is then reported at the action or the expression, before any
// state is explored, instead of as an incomplete successor of Next or a
// TypeOK violation after a long trace. It applies to the specs gen can
// type: where gen cannot derive the variables' types (no TypeOK of its
// form) or meets a construct outside its subset, it says nothing and the
// interpreter alone checks the spec. It returns the error to report, or
// nil.
func genAnalysis(mods *tla.Modules, src []byte, confs ...*cfg.Config) (err error) {
	defer func() {
		// gen is a compiler of a subset; whatever else goes wrong in it
		// must not stop a check the interpreter can do.
		if r := recover(); r != nil {
			err = nil
		}
	}()
	_, err = gen.Generate(gen.Input{Modules: mods, Source: src, SourceName: mods.Root.File, Configs: confs})
	var ge *gen.Error
	if err == nil || errors.Is(err, gen.ErrUnsupported) || !errors.As(err, &ge) {
		return nil
	}
	if ge.File != mods.Root.File || typingPosition(mods.Root, ge.Pos) {
		return nil
	}
	return fmt.Errorf("%w (found by gen's analysis of the spec before checking)", err)
}

// typingPosition reports whether pos is where gen reports that it cannot
// type the spec: the module header, a declaration, or TypeOK itself.
func typingPosition(m *tla.Module, pos tla.Pos) bool {
	if !pos.IsValid() || pos.Line == m.At.Line {
		return true
	}
	for _, u := range m.Units {
		switch u := u.(type) {
		case *tla.Variable, *tla.Constant:
			if u.Pos().Line == pos.Line {
				return true
			}
		case *tla.OpDef:
			if u.Name != "TypeOK" {
				continue
			}
			last := u.At.Line
			tla.Inspect(u.Body, func(n tla.Node) bool {
				if n != nil && n.Pos().Line > last {
					last = n.Pos().Line
				}
				return true
			})
			if pos.Line >= u.At.Line && pos.Line <= last {
				return true
			}
		}
	}
	return false
}
