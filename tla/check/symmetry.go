package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/roomspec/roomspec/tla/value"
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
	var gens []map[string]*value.Model
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
			gens = append(gens, perm)
		}
	}
	perms, err := permutationGroup(gens)
	if err != nil {
		return fmt.Errorf("SYMMETRY: %w", err)
	}
	if len(perms) > 0 {
		c.sym = value.NewSymmetry(perms)
		c.hashers.New = func() any { return c.sym.NewHasher() }
	}
	return nil
}

// maxPermutations bounds the permutation group symmetry reduction works
// with.
const maxPermutations = 1 << 16

// permutationGroup returns the non-identity elements of the group the
// permutations gens generate, as TLC does (a symmetry set such as
// Permutations(A) \cup Permutations(V) stands for every combination of a
// permutation of A and one of V).
func permutationGroup(gens []map[string]*value.Model) ([]map[string]*value.Model, error) {
	key := func(p map[string]*value.Model) string {
		names := make([]string, 0, len(p))
		for from, to := range p {
			if from != to.Name {
				names = append(names, from+"\x00"+to.Name)
			}
		}
		sort.Strings(names)
		return strings.Join(names, "\x01")
	}
	seen := map[string]bool{"": true}
	var out []map[string]*value.Model
	add := func(p map[string]*value.Model) bool {
		k := key(p)
		if seen[k] {
			return false
		}
		seen[k] = true
		out = append(out, p)
		return true
	}
	for _, g := range gens {
		add(g)
	}
	for i := 0; i < len(out); i++ {
		for _, g := range gens {
			// g after out[i].
			comp := map[string]*value.Model{}
			for from, to := range out[i] {
				comp[from] = to
				if t, ok := g[to.Name]; ok {
					comp[from] = t
				}
			}
			for from, to := range g {
				if _, ok := out[i][from]; !ok {
					comp[from] = to
				}
			}
			if add(comp) && len(out) > maxPermutations {
				return nil, fmt.Errorf("the permutations generate more than %d permutations", maxPermutations)
			}
		}
	}
	return out, nil
}
