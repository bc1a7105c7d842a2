package specrt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"unsafe"
)

// ErrDecode is wrapped by every error of reading a value from JSON.
var ErrDecode = errors.New("bad value")

// A compiled spec reads its states from JSON in two forms, both decoded
// by encoding/json into `any` (with UseNumber) and then walked along the
// state's Type:
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

// parseJSON decodes data for the read functions.
func parseJSON(data []byte) (any, error) {
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

// index returns path[i].
func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// readStateObject parses data as the JSON object of a state: exactly one
// field per variable, and in ITF a "#meta" field, which is ignored.
func readStateObject(data []byte, itf bool, vars []string) (map[string]any, error) {
	v, err := parseJSON(data)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	if m, ok := v.(map[string]any); ok && itf {
		if _, ok := m["#meta"]; ok {
			vars = append(slices.Clone(vars), "#meta")
		}
	}
	return readObject(v, "state", vars...)
}

func readBool(v any, path string) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, bad(path, "a boolean", v)
	}
	return b, nil
}

func readInt(v any, path string) (int, error) {
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

// readITFInt reads an ITF integer ({"#bigint":"n"}; a plain JSON integer
// is accepted too).
func readITFInt(v any, path string) (int, error) {
	if _, ok := v.(json.Number); ok {
		return readInt(v, path)
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

func readString(v any, path string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", bad(path, "a string", v)
	}
	return s, nil
}

// readList reads a JSON list of n elements (any number if n < 0), each
// by elem (given its position, the value and its path).
func readList(v any, path string, n int, elem func(i int, x any, at string) error) (int, error) {
	l, ok := v.([]any)
	if !ok {
		return 0, bad(path, "a list", v)
	}
	if n >= 0 && len(l) != n {
		return 0, fmt.Errorf("%w: %s: want %d elements, got %d", ErrDecode, path, n, len(l))
	}
	for i, e := range l {
		if err := elem(i, e, index(path, i)); err != nil {
			return 0, err
		}
	}
	return len(l), nil
}

// readObject reads a JSON object with exactly the given fields.
func readObject(v any, path string, fields ...string) (map[string]any, error) {
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

// unwrap returns v's only field key ({"#set": [...]} -> the list).
func unwrap(v any, path, key string) (any, error) {
	m, err := readObject(v, path, key)
	if err != nil {
		return nil, err
	}
	return m[key], nil
}

// read reads the value x (at path) of n's type into p.
func (n *node) read(x any, path string, itf bool, p unsafe.Pointer) error {
	switch n.kind {
	case BoolKind:
		b, err := readBool(x, path)
		*(*bool)(p) = b
		return err
	case IntKind:
		read := readInt
		if itf {
			read = readITFInt
		}
		i, err := read(x, path)
		*(*int)(p) = i
		return err
	case StringKind, ElemKind:
		i, err := n.readIndex(x, path, itf)
		if n.kind == StringKind {
			*(*uint8)(p) = uint8(i)
		} else {
			*(*int)(p) = i
		}
		return err
	case SetKind:
		if itf {
			var err error
			if x, err = unwrap(x, path, "#set"); err != nil {
				return err
			}
		}
		var set uint64
		_, err := readList(x, path, -1, func(i int, e any, at string) error {
			k, err := n.elem.readIndex(e, at, itf)
			if err != nil {
				return err
			}
			if k < 0 || k >= 64 {
				return bad(at, "an element of a set of at most 64", k)
			}
			set |= 1 << uint(k)
			return nil
		})
		*(*uint64)(p) = set
		return err
	case SeqKind:
		l, ok := x.([]any)
		if !ok {
			return bad(path, "a list", x)
		}
		data := n.makeSlice(p, len(l))
		_, err := readList(l, path, -1, n.elemReader(data, itf))
		return err
	case FuncKind:
		data := n.makeSlice(p, n.dom.Size())
		if !itf {
			_, err := readList(x, path, n.dom.Size(), n.elemReader(data, itf))
			return err
		}
		return n.readMap(x, path, data)
	case RecordKind:
		names := make([]string, len(n.parts))
		for i, f := range n.parts {
			names[i] = f.name
		}
		m, err := readObject(x, path, names...)
		if err != nil {
			return err
		}
		for _, f := range n.parts {
			if err := f.read(m[f.name], path+"."+f.name, itf, f.at(p)); err != nil {
				return err
			}
		}
		return nil
	}
	panic("specrt: reading a " + n.kind.String())
}

// readIndex reads a string of the spec or an element of a domain as its
// index.
func (n *node) readIndex(x any, path string, itf bool) (int, error) {
	if n.kind == StringKind {
		s, err := readString(x, path)
		if err != nil {
			return 0, err
		}
		i, ok := slices.BinarySearch(n.strs, s)
		if !ok {
			return 0, fmt.Errorf("%w: %s: %q is no string of the spec", ErrDecode, path, s)
		}
		return i, nil
	}
	if itf {
		return n.dom.ReadITF(x, path)
	}
	return n.dom.ReadJSON(x, path)
}

// makeSlice stores at p a new slice of n's Go type with length size and
// returns its data.
func (n *node) makeSlice(p unsafe.Pointer, size int) unsafe.Pointer {
	s := reflect.MakeSlice(n.goType, size, size)
	reflect.NewAt(n.goType, p).Elem().Set(s)
	return s.UnsafePointer()
}

// elemReader reads element i of a slice whose data is data.
func (n *node) elemReader(data unsafe.Pointer, itf bool) func(i int, x any, at string) error {
	return func(i int, x any, at string) error {
		return n.elem.read(x, at, itf, unsafe.Add(data, uintptr(i)*n.elem.size))
	}
}

// readMap reads an ITF function, {"#map":[[k,v],...]} with every element
// of the domain once, into data.
func (n *node) readMap(x any, path string, data unsafe.Pointer) error {
	d := n.dom
	m, err := unwrap(x, path, "#map")
	if err != nil {
		return err
	}
	pairs := make([][]any, d.Size())
	if _, err := readList(m, path, d.Size(), func(i int, p any, at string) error {
		pair := make([]any, 2)
		_, err := readList(p, at, 2, func(j int, x any, _ string) error {
			pair[j] = x
			return nil
		})
		pairs[i] = pair
		return err
	}); err != nil {
		return err
	}
	seen := make([]bool, d.Size())
	for _, p := range pairs {
		k, err := d.ReadITF(p[0], path+" key")
		if err != nil {
			return err
		}
		if seen[k] {
			return bad(path, "each key once", p[0])
		}
		seen[k] = true
		at := path + "[" + d.String(k) + "]"
		if err := n.elem.read(p[1], at, true, unsafe.Add(data, uintptr(k)*n.elem.size)); err != nil {
			return err
		}
	}
	return nil
}

// ReadJSON reads an element of d given by its index.
func (d *Domain) ReadJSON(v any, path string) (int, error) {
	i, err := readInt(v, path)
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
		keys := make([]any, len(d.Comps))
		if _, err := readList(t, path, len(d.Comps), func(i int, x any, _ string) error {
			keys[i] = x
			return nil
		}); err != nil {
			return 0, err
		}
		idx := 0
		for k, c := range d.Comps {
			p, err := c.ReadITF(keys[k], index(path, k))
			if err != nil {
				return 0, err
			}
			idx += p * d.strides[k]
		}
		return idx, nil
	case d.isInts:
		x, err := readITFInt(v, path)
		if err != nil {
			return 0, err
		}
		if i := d.IntIndex(x); i >= 0 {
			return i, nil
		}
	default:
		s, err := readString(v, path)
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
