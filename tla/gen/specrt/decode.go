package specrt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// ErrDecode is wrapped by every error of reading a value from JSON.
var ErrDecode = errors.New("bad value")

// A compiled spec reads its states from JSON in two forms, both decoded
// by encoding/json into `any` (with UseNumber) and then walked by
// per-type functions the spec generates on top of the ones here:
//
//   - plain JSON, the state of an implementation under test
//     (conformance/PROTOCOL.md): booleans, integers and strings as
//     themselves, an element of a constant set as its index, a set as a
//     list of its elements, a function over a constant set as the list of
//     its values in index order, a sequence as a list, a record as an
//     object;
//   - ITF, as the spec writes it (integers as {"#bigint"}, sets as
//     {"#set"}, functions as {"#map"}, tuples as {"#tup"}, model values as
//     strings).
//
// Errors name the path of the bad value (state.chan[1][0].type).

// ParseJSON decodes data for the Read functions.
func ParseJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the value", ErrDecode)
	}
	return v, nil
}

func bad(path, want string, v any) error {
	got, _ := json.Marshal(v)
	if len(got) > 40 {
		got = append(got[:37], "..."...)
	}
	return fmt.Errorf("%w: %s: want %s, got %s", ErrDecode, path, want, got)
}

// Index returns path[i].
func Index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// ReadStateObject parses data as the JSON object of a state: exactly
// one field per variable, and in ITF a "#meta" field, which is ignored.
func ReadStateObject(data []byte, itf bool, vars ...string) (map[string]any, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	if m, ok := v.(map[string]any); ok && itf {
		if _, ok := m["#meta"]; ok {
			vars = append(slices.Clone(vars), "#meta")
		}
	}
	return ReadObject(v, "state", vars...)
}

// ReadBool reads a JSON boolean.
func ReadBool(v any, path string) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, bad(path, "a boolean", v)
	}
	return b, nil
}

// ReadInt reads a JSON integer.
func ReadInt(v any, path string) (int, error) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, bad(path, "an integer", v)
	}
	i, err := strconv.Atoi(string(n))
	if err != nil {
		return 0, bad(path, "an integer", v)
	}
	return i, nil
}

// ReadString reads a JSON string.
func ReadString(v any, path string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", bad(path, "a string", v)
	}
	return s, nil
}

// ReadList reads a JSON list of n elements (any number if n < 0).
func ReadList[T any](v any, path string, n int, elem func(any, string) (T, error)) ([]T, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, bad(path, "a list", v)
	}
	if n >= 0 && len(l) != n {
		return nil, fmt.Errorf("%w: %s: want %d elements, got %d", ErrDecode, path, n, len(l))
	}
	out := make([]T, len(l))
	for i, e := range l {
		var err error
		if out[i], err = elem(e, Index(path, i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReadObject reads a JSON object with exactly the given fields.
func ReadObject(v any, path string, fields ...string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, bad(path, "an object", v)
	}
	for _, f := range fields {
		if _, ok := m[f]; !ok {
			return nil, fmt.Errorf("%w: %s: no field %q", ErrDecode, path, f)
		}
	}
	if len(m) != len(fields) {
		for k := range m {
			if !slices.Contains(fields, k) {
				return nil, fmt.Errorf("%w: %s: unknown field %q", ErrDecode, path, k)
			}
		}
	}
	return m, nil
}

// ReadBits reads a set, listed by elems (a JSON list or an ITF #set), of
// elements read by elem (their indices), as a bitset.
func ReadBits(v any, path string, itf bool, elem func(any, string) (int, error)) (uint64, error) {
	if itf {
		var err error
		if v, err = unwrap(v, path, "#set"); err != nil {
			return 0, err
		}
	}
	xs, err := ReadList(v, path, -1, elem)
	if err != nil {
		return 0, err
	}
	var set uint64
	for i, x := range xs {
		if x < 0 || x >= 64 {
			return 0, bad(Index(path, i), "an element of a set of at most 64", x)
		}
		set |= 1 << uint(x)
	}
	return set, nil
}

// unwrap returns v's only field key ({"#set": [...]} -> the list).
func unwrap(v any, path, key string) (any, error) {
	m, err := ReadObject(v, path, key)
	if err != nil {
		return nil, err
	}
	return m[key], nil
}

// ReadFunc reads a function over d: a list of its values in index order
// (plain JSON), or an ITF {"#map":[[k,v],...]} with every element of d
// once.
func ReadFunc[T any](v any, path string, d *Domain, itf bool, elem func(any, string) (T, error)) ([]T, error) {
	if !itf {
		return ReadList(v, path, d.Size(), elem)
	}
	m, err := unwrap(v, path, "#map")
	if err != nil {
		return nil, err
	}
	pairs, err := ReadList(m, path, d.Size(), func(p any, at string) ([]any, error) {
		return ReadList(p, at, 2, func(x any, _ string) (any, error) { return x, nil })
	})
	if err != nil {
		return nil, err
	}
	out := make([]T, d.Size())
	seen := make([]bool, d.Size())
	for _, p := range pairs {
		k, err := d.ReadITF(p[0], path+" key")
		if err != nil {
			return nil, err
		}
		if seen[k] {
			return nil, bad(path, "each key once", p[0])
		}
		seen[k] = true
		at := path + "[" + d.String(k) + "]"
		if out[k], err = elem(p[1], at); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReadITFInt reads an ITF integer ({"#bigint":"n"}; a plain JSON integer
// is accepted too).
func ReadITFInt(v any, path string) (int, error) {
	if _, ok := v.(json.Number); ok {
		return ReadInt(v, path)
	}
	s, err := unwrap(v, path, "#bigint")
	if err != nil {
		return 0, err
	}
	str, ok := s.(string)
	if !ok {
		return 0, bad(path, "a #bigint string", s)
	}
	i, err := strconv.Atoi(str)
	if err != nil {
		return 0, bad(path, "an integer", s)
	}
	return i, nil
}

// ReadJSON reads an element of d given by its index.
func (d *Domain) ReadJSON(v any, path string) (int, error) {
	i, err := ReadInt(v, path)
	if err != nil {
		return 0, err
	}
	if i < 0 || i >= d.size {
		return 0, bad(path, "an index into "+d.Name, v)
	}
	return i, nil
}

// ReadITF reads an element of d written as ITF: a model value's name, an
// integer, or a tuple of its components.
func (d *Domain) ReadITF(v any, path string) (int, error) {
	switch {
	case d.Comps != nil:
		t, err := unwrap(v, path, "#tup")
		if err != nil {
			return 0, err
		}
		keys, err := ReadList(t, path, len(d.Comps), func(x any, at string) (any, error) { return x, nil })
		if err != nil {
			return 0, err
		}
		idx := 0
		for k, c := range d.Comps {
			p, err := c.ReadITF(keys[k], Index(path, k))
			if err != nil {
				return 0, err
			}
			idx += p * d.strides[k]
		}
		return idx, nil
	case d.isInts:
		x, err := ReadITFInt(v, path)
		if err != nil {
			return 0, err
		}
		if i := d.IntIndex(x); i >= 0 {
			return i, nil
		}
	default:
		s, err := ReadString(v, path)
		if err != nil {
			return 0, err
		}
		for i, n := range d.Names {
			if n == s {
				return i, nil
			}
		}
	}
	return 0, bad(path, "an element of "+d.Name, v)
}
