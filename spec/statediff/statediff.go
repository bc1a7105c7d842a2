// Package statediff says where two states of a TLA+ spec differ: inside
// functions and records of the same domain, entry by entry, so that a
// step table names only what changed (request_status[r] = "Failed", not
// the whole function). roomspec check's counterexamples and the property
// suite's step tables both print their changes with it.
package statediff

import (
	"github.com/roomspec/roomspec/spec/tla/value"
)

// Change is one difference: the value at Path was Old and is New.
type Change struct {
	Path     string
	Old, New value.Value
}

// String prints the change as "path = new".
func (c Change) String() string { return c.Path + " = " + value.Format(c.New) }

// States lists the differences between two states, given as their
// variables' values in the order of vars.
func States(vars []string, old, new []value.Value) []Change {
	var out []Change
	for i, v := range vars {
		out = Values(out, v, old[i], new[i])
	}
	return out
}

// Values appends to out the differences between old and new, the value
// at path, descending into functions (and records, and sequences of the
// same length) with the same domain.
func Values(out []Change, path string, old, new value.Value) []Change {
	if value.Equal(old, new) {
		return out
	}
	of, ok1 := old.(*value.Func)
	nf, ok2 := new.(*value.Func)
	if ok1 && ok2 && of.Len() > 0 && value.Equal(of.Domain(), nf.Domain()) {
		for i, k := range nf.Keys() {
			sub := path
			if s, ok := k.(value.String); ok && nf.IsRecord() {
				sub += "." + string(s)
			} else {
				sub += "[" + value.Format(k) + "]"
			}
			out = Values(out, sub, of.Vals()[i], nf.Vals()[i])
		}
		return out
	}
	return append(out, Change{Path: path, Old: old, New: new})
}
