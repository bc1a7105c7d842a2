package cfg_test

import (
	"fmt"

	"github.com/roomspec/roomspec/tla/cfg"
)

func ExampleParse() {
	src := `
CONSTANTS
    RM = {r1, r2}
    NIL = NIL
    Max = 3
SPECIFICATION Spec
INVARIANTS TypeOK Consistent
CHECK_DEADLOCK FALSE
`
	c, err := cfg.Parse("Model.cfg", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := c.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range c.Constants {
		fmt.Printf("%s: %s (%s)\n", d.Pos, d, d.Value.Kind)
	}
	fmt.Println("spec:", c.Specification.Name)
	for _, inv := range c.Invariants {
		fmt.Println("invariant:", inv.Name)
	}
	fmt.Println("deadlock checked:", c.DeadlockChecked())

	_, err = cfg.Parse("Bad.cfg", []byte("CONSTANT N 3"))
	fmt.Println(err)
	// Output:
	// 3:5: RM = {r1, r2} (set)
	// 4:5: NIL = NIL (model value)
	// 5:5: Max = 3 (integer)
	// spec: Spec
	// invariant: TypeOK
	// invariant: Consistent
	// deadlock checked: false
	// Bad.cfg:1:12: expected "=" or "<-" after constant N, found "3"
}
