// Package bundled loads the bundled room-lifecycle spec (package spec's
// Room.tla) under one of its bundled configurations, ready for the model
// checker: what the CLI, the compiled model's differential tests and the
// suites that compare with the checker all start from.
package bundled

import (
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/check"
)

// Config parses the bundled configuration variant (spec.Variants).
func Config(variant string) (*cfg.Config, error) {
	src, err := spec.Config(variant)
	if err != nil {
		return nil, fmt.Errorf("unknown variant %q (bundled: %s)", variant, strings.Join(spec.Variants(), ", "))
	}
	return Parse(variant, src)
}

// Parse parses cfg text for Room.tla (a bundled variant's, or one built
// from probed ingredients), naming it name.cfg in errors.
func Parse(name string, src []byte) (*cfg.Config, error) {
	return cfg.Parse(name+".cfg", src)
}

// Model builds the checker's model of Room.tla under conf.
func Model(conf *cfg.Config) (*check.Model, error) {
	mods, err := tla.Load(spec.Files, spec.Module)
	if err != nil {
		return nil, err
	}
	return check.Build(mods, conf)
}

// Variant is Config and Model in one: the checker's model of Room.tla
// under the bundled configuration variant, with the configuration.
func Variant(variant string) (*check.Model, *cfg.Config, error) {
	conf, err := Config(variant)
	if err != nil {
		return nil, nil, err
	}
	m, err := Model(conf)
	return m, conf, err
}
