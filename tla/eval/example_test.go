package eval_test

import (
	"fmt"
	"os"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// A module's constants are bound when the spec is made; expressions are
// then evaluated in its root scope.
func ExampleSpec_Eval() {
	mods, err := tla.Load(os.DirFS("testdata"), "EvalTest")
	if err != nil {
		panic(err)
	}
	info, err := tla.Resolve(mods)
	if err != nil {
		panic(err)
	}
	sp, err := eval.NewSpec(info, []eval.Binding{
		{Name: "N", Value: value.Int(3)},
		{Name: "Procs", Value: value.NewSet(&value.Model{Name: "p1"}, &value.Model{Name: "p2"})},
		{Name: "Big", Value: value.Int(1 << 62)},
	})
	if err != nil {
		panic(err)
	}
	for _, src := range []string{`[n \in 1..N |-> fact[n]]`, `Cardinality(Procs)`, `Head(<<>>)`} {
		f, err := sp.ParseFormula(src)
		if err != nil {
			panic(err)
		}
		v, err := sp.Eval(f, nil)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println(value.Format(v))
	}
	// Output:
	// <<1, 2, 6>>
	// 2
	// error: expr:1:1: Head of the empty sequence
}

// Init enumerates the initial states; Next the successors of a state, each
// with the action that produced it.
func ExampleSpec_Next() {
	mods, err := tla.Load(os.DirFS("testdata"), "Actions")
	if err != nil {
		panic(err)
	}
	info, err := tla.Resolve(mods)
	if err != nil {
		panic(err)
	}
	sp, err := eval.NewSpec(info, nil)
	if err != nil {
		panic(err)
	}
	init, _ := sp.Formula("InitTest")
	next, _ := sp.Formula("SetNext")
	err = sp.Init([]*eval.Formula{init}, func(s eval.State) {
		fmt.Println("init:", value.Format(s[0]), value.Format(s[1]))
		err := sp.Next(next, s, func(t eval.State, a *eval.Action) {
			fmt.Println(a, "->", value.Format(t[0]), value.Format(t[1]))
		})
		if err != nil {
			panic(err)
		}
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// init: 1 2
	// Set(1) -> 1 2
	// Set(2) -> 2 2
}
