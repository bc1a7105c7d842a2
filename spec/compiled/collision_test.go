package compiled

import (
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/eval"
)

// Two states whose fingerprints collide are told apart by their values:
// Next starts from the state the checker handed back, not from another
// one of the same fingerprint.
func TestFingerprintCollision(t *testing.T) {
	c, err := spec.Compiled("upstream")
	if err != nil {
		t.Fatal(err)
	}
	a := c.Init()
	var b model.State
	c.Next(&a, func(_ model.Action, u *model.State) bool { b = *u; return true })
	va, vb := eval.State(c.Values(&a)), eval.State(c.Values(&b))
	// A chain as two colliding fingerprints would make it.
	chain := &typedState{vals: vb, s: &b, next: &typedState{vals: va, s: &a}}
	if got := find(chain, va); got == nil || !got.Equal(&a) {
		t.Fatalf("found %v for a's values", got)
	}
	if got := find(chain, vb); got == nil || !got.Equal(&b) {
		t.Fatalf("found %v for b's values", got)
	}
	if got := find(chain.next, vb); got != nil {
		t.Fatal("a chain without b found b")
	}
}

// A state reached again is given the values it was given the first time
// (the checker then compares them at once), and a state is found from
// those values, or from a copy of them, which takes the fingerprint path.
func TestValuesReused(t *testing.T) {
	c, err := spec.Compiled("upstream")
	if err != nil {
		t.Fatal(err)
	}
	x := New(c)
	a := c.Init()
	a2 := a // an equal state, another value
	va, va2 := x.values(&a), x.values(&a2)
	if &va[0] != &va2[0] {
		t.Fatal("an equal state was given new values")
	}
	if got, err := x.typedState(va); err != nil || !got.Equal(&a) {
		t.Fatalf("typedState(values) = %v, %v", got, err)
	}
	cp := append(eval.State(nil), va...)
	if got, err := x.typedState(cp); err != nil || !got.Equal(&a) {
		t.Fatalf("typedState(copy of values) = %v, %v", got, err)
	}
	var b model.State
	c.Next(&a, func(_ model.Action, u *model.State) bool { b = *u; return true })
	if _, err := x.typedState(eval.State(c.Values(&b))); err == nil {
		t.Fatal("found a state the compiled model was never asked for")
	}
}
