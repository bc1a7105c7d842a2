package specrt

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/roomspec/roomspec/tla/cfg"
)

// Constants are the constant values a configuration (.cfg) gives, by
// name: what a compiled spec's FromCfg reads its Config from.
type Constants struct {
	conf *cfg.Config
	vals map[string]*cfg.Value
}

// ConstantsOf reads the constants of conf. Only plain values are
// supported (no operator constants, no substitutions, no module-scoped
// values).
func ConstantsOf(conf *cfg.Config) (*Constants, error) {
	k := &Constants{conf: conf, vals: map[string]*cfg.Value{}}
	for _, d := range conf.Constants {
		if d.Value == nil || len(d.Args) > 0 || d.Module != "" {
			return nil, fmt.Errorf("model: %s: constant %s: only plain values are supported", conf.File, d.Name)
		}
		k.vals[d.Name] = d.Value
	}
	return k, nil
}

// Name is the configuration's name: its file name without directory and
// .cfg (empty when it was parsed without a file name).
func (k *Constants) Name() string {
	return strings.TrimSuffix(path.Base(strings.ReplaceAll(k.conf.File, `\`, "/")), ".cfg")
}

func (k *Constants) get(name string) (*cfg.Value, error) {
	v, ok := k.vals[name]
	if !ok {
		return nil, fmt.Errorf("model: %s: constant %s is not given a value", k.conf.File, name)
	}
	return v, nil
}

// Int returns the integer constant name.
func (k *Constants) Int(name string) (int, error) {
	v, err := k.get(name)
	if err != nil {
		return 0, err
	}
	if v.Kind != cfg.Int {
		return 0, fmt.Errorf("model: constant %s: want an integer, got %s", name, v)
	}
	return int(v.Int), nil
}

// Bool returns the boolean constant name.
func (k *Constants) Bool(name string) (bool, error) {
	v, err := k.get(name)
	if err != nil {
		return false, err
	}
	if v.Kind != cfg.Bool {
		return false, fmt.Errorf("model: constant %s: want TRUE or FALSE, got %s", name, v)
	}
	return v.Bool, nil
}

// Models returns the constant name, a set of model values, as a Domain.
func (k *Constants) Models(name string) (*Domain, error) {
	names, err := set(k, name, cfg.ModelValue, "model values", func(e *cfg.Value) string { return e.Str })
	if err != nil {
		return nil, err
	}
	return NewModels(name, names), nil
}

// Ints returns the constant name, a set of integers, as a Domain.
func (k *Constants) Ints(name string) (*Domain, error) {
	xs, err := set(k, name, cfg.Int, "integers", func(e *cfg.Value) int { return int(e.Int) })
	if err != nil {
		return nil, err
	}
	return NewInts(name, xs...), nil
}

// set reads the elements of the set constant name, each of kind want.
func set[T any](k *Constants, name string, want cfg.Kind, what string, elem func(*cfg.Value) T) ([]T, error) {
	v, err := k.get(name)
	if err != nil {
		return nil, err
	}
	bad := fmt.Errorf("model: constant %s: want a set of %s, got %s", name, what, v)
	if v.Kind != cfg.Set {
		return nil, bad
	}
	var out []T
	for _, e := range v.Elem {
		if e.Kind != want {
			return nil, bad
		}
		out = append(out, elem(e))
	}
	return out, nil
}

// With returns the configuration of k with the constants named in values
// given those values instead: how a compiled spec's Config.With builds
// an instance with other constants, without editing .cfg text. Every name
// must be a constant the configuration gives.
func (k *Constants) With(values map[string]*cfg.Value) (*cfg.Config, error) {
	conf := *k.conf
	conf.Constants = slices.Clone(k.conf.Constants)
	for name, v := range values {
		i := slices.IndexFunc(conf.Constants, func(d *cfg.ConstantDef) bool { return d.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("model: %s: no constant %s to replace", k.conf.File, name)
		}
		d := *conf.Constants[i]
		d.Value = v
		conf.Constants[i] = &d
	}
	return &conf, nil
}

// ModelSet is the cfg value of a set of model values, for Config.With.
func ModelSet(names ...string) *cfg.Value {
	v := &cfg.Value{Kind: cfg.Set}
	for _, n := range names {
		v.Elem = append(v.Elem, &cfg.Value{Kind: cfg.ModelValue, Str: n})
	}
	return v
}

// IntValue is the cfg value of an integer, for Config.With.
func IntValue(n int) *cfg.Value { return &cfg.Value{Kind: cfg.Int, Int: int64(n)} }
