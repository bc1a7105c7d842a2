package value

import "slices"

// Symmetry is a group of permutations of model values, ready to
// fingerprint values up to it: the least, over the group, of the hash of
// the permuted value. The identity is its permutation 0.
type Symmetry struct {
	n int // the permutations, the identity included
	// images[m][p] is the hash of the image of model value m (by its
	// index in index) under permutation p.
	images [][]uint64
	index  map[string]int
}

// NewSymmetry returns the group of the identity and perms (each maps a
// model value's name to its image; a name it does not map is fixed).
// perms should be closed under composition, or the least hash over them
// does not make equal the values they make equivalent.
func NewSymmetry(perms []map[string]*Model) *Symmetry {
	s := &Symmetry{n: len(perms) + 1, index: map[string]int{}}
	var names []string
	for _, p := range perms {
		for from := range p {
			if _, ok := s.index[from]; !ok {
				s.index[from] = len(names)
				names = append(names, from)
			}
		}
	}
	s.images = make([][]uint64, len(names))
	for m, name := range names {
		row := make([]uint64, s.n)
		own := (&Model{Name: name}).hash()
		row[0] = own
		for i, p := range perms {
			row[i+1] = own
			if to, ok := p[name]; ok {
				row[i+1] = to.hash()
			}
		}
		s.images[m] = row
	}
	return s
}

// Len returns the number of permutations, the identity included.
func (s *Symmetry) Len() int { return s.n }

// SymmetryHasher computes least hashes under a Symmetry. It keeps scratch
// space from call to call, so each goroutine that hashes has its own.
type SymmetryHasher struct {
	s *Symmetry
	// arena holds the hash vectors of the values being hashed, one slot
	// per permutation, allocated as a stack as the values are walked.
	arena []uint64
}

// NewHasher returns a hasher for s.
func (s *Symmetry) NewHasher() *SymmetryHasher { return &SymmetryHasher{s: s} }

// Hash returns the least, over the permutations p of the group, of
// Hash(Permute(v, p)).
func (h *SymmetryHasher) Hash(v Value) uint64 {
	h.arena = h.arena[:0]
	one, vec := h.vector(v)
	if vec == nil {
		return one
	}
	return slices.Min(vec)
}

// HashTuple is Hash(NewTuple(vals...)), without building the tuple.
func (h *SymmetryHasher) HashTuple(vals []Value) uint64 {
	h.arena = h.arena[:0]
	acc := h.alloc()
	var common uint64
	for i, v := range vals {
		k := Int(i + 1).hash()
		one, vec := h.vector(v)
		if vec == nil {
			common += pairHash(k, one)
			continue
		}
		kh := keyHash(k)
		for p, x := range vec {
			acc[p] += mix(kh, x)
		}
		h.arena = h.arena[:len(acc)] // vec is used up
	}
	least := ^uint64(0)
	for _, a := range acc {
		least = min(least, funcHash(len(vals), a+common))
	}
	return least
}

// alloc returns a zeroed vector of one hash per permutation, on top of the
// arena. It may move the arena: vectors allocated before stay valid, as
// slices of the old one.
func (h *SymmetryHasher) alloc() []uint64 {
	n := h.s.n
	top := len(h.arena)
	if cap(h.arena)-top < n {
		h.arena = append(h.arena[:cap(h.arena)], make([]uint64, max(n, cap(h.arena)))...)[:top]
	}
	h.arena = h.arena[:top+n]
	vec := h.arena[top : top+n : top+n]
	clear(vec)
	return vec
}

// vector returns v's hash under every permutation: one hash when no
// permutation changes it (vec is nil), else vec[p] under permutation p
// (a vector of the arena, or of the symmetry's tables: read only).
func (h *SymmetryHasher) vector(v Value) (one uint64, vec []uint64) {
	switch x := v.(type) {
	case *Model:
		if m, ok := h.s.index[x.Name]; ok {
			return 0, h.s.images[m]
		}
		return x.hash(), nil
	case *Set:
		if !hasModels(x) {
			return x.hash(), nil
		}
		acc := h.alloc()
		top := len(h.arena)
		var common uint64
		for _, e := range x.elems {
			one, ev := h.vector(e)
			if ev == nil {
				common += elemHash(one)
				continue
			}
			for p, y := range ev {
				acc[p] += elemHash(y)
			}
			h.arena = h.arena[:top]
		}
		for p := range acc {
			acc[p] = setHash(len(x.elems), acc[p]+common)
		}
		return 0, acc
	case *Func:
		if !hasModels(x) {
			return x.hash(), nil
		}
		acc := h.alloc()
		top := len(h.arena)
		var common uint64
		for i := range x.keys {
			k1, kv := h.vector(x.keys[i])
			v1, vv := h.vector(x.vals[i])
			switch {
			case kv == nil && vv == nil:
				common += pairHash(k1, v1)
			case kv == nil:
				kh := keyHash(k1)
				for p, y := range vv {
					acc[p] += mix(kh, y)
				}
			case vv == nil:
				for p, y := range kv {
					acc[p] += pairHash(y, v1)
				}
			default:
				for p := range acc {
					acc[p] += pairHash(kv[p], vv[p])
				}
			}
			h.arena = h.arena[:top]
		}
		for p := range acc {
			acc[p] = funcHash(len(x.keys), acc[p]+common)
		}
		return 0, acc
	case SetValue:
		if e, err := x.Enumerate(); err == nil {
			return h.vector(e)
		}
	}
	return v.hash(), nil
}
