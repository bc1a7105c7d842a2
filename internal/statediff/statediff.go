// Package statediff says what changed between two states of a TLA+ spec,
// variable by variable, as the parts that changed: "request_status[r] =
// \"Failed\"" rather than the whole new function. It is the one state
// differ of roomspec's step tables and diagrams.
package statediff

import "github.com/roomspec/roomspec/tla/value"

// Append appends to out one "path = value" line for each part of new that
// differs from old, descending into functions and records with the same
// domain so that only the entries that changed are named
// ("status[r] = \"Failed\"", "rec.field = 1"); a value of another shape
// is named whole.
func Append(out []string, path string, old, new value.Value) []string {
	if value.Equal(old, new) {
		return out
	}
	of, ok1 := old.(*value.Func)
	nf, ok2 := new.(*value.Func)
	if ok1 && ok2 && value.Equal(of.Domain(), nf.Domain()) && of.Len() > 0 {
		for i, k := range nf.Keys() {
			sub := path
			if s, ok := k.(value.String); ok && nf.IsRecord() {
				sub += "." + string(s)
			} else {
				sub += "[" + value.Format(k) + "]"
			}
			out = Append(out, sub, of.Vals()[i], nf.Vals()[i])
		}
		return out
	}
	return append(out, path+" = "+value.Format(new))
}

// States returns what changed from state old to state new (their
// variables' values in the order of vars); with old nil, every variable of
// new ("name = value"), as for an initial state.
func States(vars []string, old, new []value.Value) []string {
	var out []string
	for i, name := range vars {
		if old == nil {
			out = append(out, name+" = "+value.Format(new[i]))
			continue
		}
		out = Append(out, name, old[i], new[i])
	}
	return out
}
