package spec_test

import (
	"fmt"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/value"
)

// Evaluating an operator of Room.tla under two variants: the constants of
// a cfg decide what update_status and check_status do, so the same
// expression answers differently for NIXL (upstream) and Mooncake.
func ExampleFiles() {
	mods, err := tla.Load(spec.Files, spec.Module)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, variant := range []string{"upstream", "mooncake"} {
		src, err := spec.Config(variant)
		if err != nil {
			fmt.Println(err)
			return
		}
		conf, err := cfg.Parse(variant+".cfg", src)
		if err != nil {
			fmt.Println(err)
			return
		}
		m, err := check.Build(mods, conf)
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
