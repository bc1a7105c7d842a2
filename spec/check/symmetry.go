package check

import (
	"fmt"

	"github.com/roomspec/roomspec/spec/tla/value"
)

// setupSymmetry evaluates the SYMMETRY set: permutations of model values.
// A state's fingerprint is then the least over its permuted images, so
// states equal up to a permutation count once.
func (c *checker) setupSymmetry() error {
	if c.m.Symmetry == nil {
		return nil
	}
	v, err := c.m.Spec.Eval(c.m.Symmetry, nil)
	if err != nil {
		return fmt.Errorf("evaluating SYMMETRY: %w", err)
	}
	sv, ok := v.(value.SetValue)
	if !ok {
		return fmt.Errorf("SYMMETRY %s is not a set of permutations", c.m.Symmetry.Name)
	}
	set, err := sv.Enumerate()
	if err != nil {
		return fmt.Errorf("SYMMETRY: %w", err)
	}
	for _, p := range set.Elems() {
		f, ok := p.(*value.Func)
		if !ok {
			return fmt.Errorf("SYMMETRY contains %s, which is not a permutation", value.Format(p))
		}
		perm := map[string]*value.Model{}
		identity := true
		for i, k := range f.Keys() {
			from, ok1 := k.(*value.Model)
			to, ok2 := f.Vals()[i].(*value.Model)
			if !ok1 || !ok2 {
				return fmt.Errorf("SYMMETRY permutes %s, which is not a model value", value.Format(k))
			}
			perm[from.Name] = to
			identity = identity && from.Name == to.Name
		}
		if !identity {
			c.perms = append(c.perms, perm)
		}
	}
	return nil
}
