package value

// Permute returns v with every model value named in perm replaced by its
// image. Values containing no such model value are returned as they are.
func Permute(v Value, perm map[string]*Model) Value {
	switch x := v.(type) {
	case *Model:
		if y, ok := perm[x.Name]; ok {
			return y
		}
		return x
	case *Set:
		var out []Value
		changed := false
		for i, e := range x.elems {
			pe := Permute(e, perm)
			if pe != e && !changed {
				changed = true
				out = append(make([]Value, 0, len(x.elems)), x.elems[:i]...)
			}
			if changed {
				out = append(out, pe)
			}
		}
		if !changed {
			return x
		}
		return NewSetOwned(out)
	case *Func:
		keys, vals := x.keys, x.vals
		changed := false
		for i := range x.keys {
			pk, pv := Permute(x.keys[i], perm), Permute(x.vals[i], perm)
			if (pk != x.keys[i] || pv != x.vals[i]) && !changed {
				changed = true
				keys = append([]Value(nil), x.keys...)
				vals = append([]Value(nil), x.vals...)
			}
			if changed {
				keys[i], vals[i] = pk, pv
			}
		}
		if !changed {
			return x
		}
		return NewFunc(keys, vals)
	}
	return v
}
