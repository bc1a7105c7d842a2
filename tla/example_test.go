package tla_test

import (
	"fmt"
	"testing/fstest"

	"github.com/roomspec/roomspec/tla"
)

func ExampleParseFile() {
	src := `---- MODULE Counter ----
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == /\ x < 3
        /\ x' = x + 1
====`
	m, err := tla.ParseFile("Counter.tla", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range m.Units {
		if d, ok := u.(*tla.OpDef); ok {
			fmt.Printf("%s at %s: %s\n", d.Name, d.Pos(), tla.Print(d.Body))
		}
	}
	// Output:
	// Init at 4:1: x = 0
	// Next at 5:1: (x < 3) /\ (x' = (x + 1))
}

func ExampleParseFile_error() {
	_, err := tla.ParseFile("Bad.tla", []byte("---- MODULE Bad ----\nA == (1 + 2\n===="))
	fmt.Println(err)
	// Output:
	// Bad.tla:3:1: expected ")" to close "(" at 2:6, found "===="
}

func ExampleParseExpr() {
	x, _ := tla.ParseExpr(`\A p \in Procs : pc[p] \in {"idle", "busy"}`)
	q := x.(*tla.Quant)
	fmt.Println(q.Bounds[0].Names[0].Name, tla.Print(q.Bounds[0].Set))
	fmt.Print(tla.Dump(q.Body))
	// Output:
	// p Procs
	// (infix "\\in"
	//   (apply pc p)
	//   (set "idle" "busy"))
}

func ExampleLoad() {
	fsys := fstest.MapFS{
		"Spec.tla": {Data: []byte("---- MODULE Spec ----\nEXTENDS Naturals, Lib\nX == Twice(2)\n====\n")},
		"Lib.tla":  {Data: []byte("---- MODULE Lib ----\nTwice(n) == 2 * n\n====\n")},
	}
	ms, err := tla.Load(fsys, "Spec")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range ms.Order {
		fmt.Println(m.Name, m.File)
	}
	fmt.Println("standard:", ms.Standard)
	// Output:
	// Lib Lib.tla
	// Spec Spec.tla
	// standard: [Naturals]
}

func ExampleInspect() {
	x, _ := tla.ParseExpr(`x' = x + 1 /\ UNCHANGED <<y>> /\ \E i \in S : z' = i`)
	tla.Inspect(x, func(n tla.Node) bool {
		if p, ok := n.(*tla.OpApp); ok && p.Name == "'" {
			fmt.Println("primed:", tla.Print(p.Args[0]), "at", p.Pos())
		}
		return true
	})
	// Output:
	// primed: x at 1:2
	// primed: z at 1:48
}
