package spec_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/value"
)

// Evaluating an operator of Room.tla under two variants: the constants of
// a cfg decide what update_status and check_status do, so the same
// expression answers differently for NIXL (upstream) and Mooncake.
func ExampleVariant_Model() {
	for _, variant := range []string{"upstream", "mooncake"} {
		v, err := spec.Load(variant)
		if err != nil {
			fmt.Println(err)
			return
		}
		m, err := v.Model()
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, expr := range []string{`UpdateStatus("Failed", "Success")`, `CheckStatus("Absent")`} {
			f, err := m.Spec.ParseFormula(expr)
			if err != nil {
				fmt.Println(err)
				return
			}
			v, err := m.Spec.Eval(f, nil) // constant-level: no state
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("%s: %s = %s\n", variant, expr, value.Format(v))
		}
	}
	// Output:
	// upstream: UpdateStatus("Failed", "Success") = "Failed"
	// upstream: CheckStatus("Absent") = "WaitingForInput"
	// mooncake: UpdateStatus("Failed", "Success") = "Success"
	// mooncake: CheckStatus("Absent") = "KeyError"
}

// The model checker's verdicts on Room.tla under a bundled variant.
func ExampleLoad() {
	v, err := spec.Load("fixed")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := v.Model()
	if err != nil {
		fmt.Println(err)
		return
	}
	r := check.Check(context.Background(), m, check.Options{All: true})
	for _, v := range r.Verdicts {
		if v.Name == "AbortedRoomsTerminate" {
			fmt.Println(v.Name, v.Holds)
		}
	}
	_, err = spec.Load("no-such")
	fmt.Println(errors.Is(err, spec.ErrUnknownVariant))
	// Output:
	// AbortedRoomsTerminate true
	// true
}

// The compiled model of a bundled variant: its typed constants, read from
// the variant's configuration, and its initial state.
func ExampleCompiled() {
	c, err := spec.Compiled("upstream")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c.Name, c.Constants.DecodeRanks, c.Constants.RequiredDstInfoNum, c.Invariants)
	s := c.Init()
	fmt.Println(strings.SplitN(c.Format(&s), "\n", 2)[0])
	// Output:
	// upstream [d1 d2] 2 [TypeOK NoWriteAfterRelease NoEntryAfterRelease PagesFreedOnce NoFreeWhileWriting]
	// /\ request_status = (r :> "Absent")
}
