// Package constants reads the constants a TLC configuration (.cfg) gives
// into the typed constants of a spec compiled by gen: the struct
// (Constants) that gen declares with one field per CONSTANT, tagged with
// its name in the spec, as encoding/json reads an object into a struct.
// It is the only bridge from the TLA+ front end (tla/cfg) to a compiled
// spec, which imports neither: a configuration is read here, and the
// compiled spec is built from the struct.
//
// A field's Go type says what the constant must be given:
//
//	bool      TRUE or FALSE
//	int       an integer
//	[]string  a set of model values (their names)
//	[]int     a set of integers
package constants

import (
	"fmt"
	"reflect"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
)

// Tag is the struct tag that names a field's constant: `tla:"Name"`.
const Tag = "tla"

// Decode sets the fields of the struct dst points to from the constants
// conf gives. Every tagged field's constant must be given a plain value
// of the field's kind; constants conf gives that dst has no field for
// are left alone. Errors are positioned in conf's file.
func Decode(conf *cfg.Config, dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("constants: Decode needs a pointer to a struct, not %T", dst)
	}
	given := map[string]*cfg.ConstantDef{}
	for _, d := range conf.Constants {
		if d.Value == nil || len(d.Args) > 0 || d.Module != "" {
			return errorAt(conf, d.Pos, "constant %s: only plain values are supported (%s)", d.Name, d)
		}
		given[d.Name] = d
	}
	st := rv.Elem()
	for i := range st.NumField() {
		sf := st.Type().Field(i)
		name, ok := sf.Tag.Lookup(Tag)
		if !ok {
			continue
		}
		d := given[name]
		if d == nil {
			return errorAt(conf, tla.Pos{}, "constant %s is not given a value", name)
		}
		if err := set(st.Field(i), d.Value); err != nil {
			return errorAt(conf, d.Value.Pos, "constant %s: %v", name, err)
		}
	}
	return nil
}

// set stores v in the field f.
func set(f reflect.Value, v *cfg.Value) error {
	switch t := f.Type(); {
	case t.Kind() == reflect.Bool:
		if v.Kind != cfg.Bool {
			return fmt.Errorf("want TRUE or FALSE, got %s", v)
		}
		f.SetBool(v.Bool)
	case t.Kind() == reflect.Int:
		if v.Kind != cfg.Int {
			return fmt.Errorf("want an integer, got %s", v)
		}
		f.SetInt(v.Int)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		names, err := elems(v, cfg.ModelValue, "model values", func(e *cfg.Value) string { return e.Str })
		if err != nil {
			return err
		}
		f.Set(reflect.ValueOf(names).Convert(t))
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Int:
		xs, err := elems(v, cfg.Int, "integers", func(e *cfg.Value) int { return int(e.Int) })
		if err != nil {
			return err
		}
		f.Set(reflect.ValueOf(xs).Convert(t))
	default:
		return fmt.Errorf("a field of type %s cannot hold a constant", t)
	}
	return nil
}

// elems reads the elements of the set v, each of kind want.
func elems[T any](v *cfg.Value, want cfg.Kind, what string, elem func(*cfg.Value) T) ([]T, error) {
	if v.Kind != cfg.Set {
		return nil, fmt.Errorf("want a set of %s, got %s", what, v)
	}
	out := make([]T, 0, len(v.Elem))
	for _, e := range v.Elem {
		if e.Kind != want {
			return nil, fmt.Errorf("want a set of %s, got %s", what, v)
		}
		out = append(out, elem(e))
	}
	return out, nil
}

func errorAt(conf *cfg.Config, pos tla.Pos, format string, args ...any) error {
	return &tla.Error{File: conf.File, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
