package conformance_test

import (
	"fmt"

	"github.com/roomspec/roomspec/conformance"
)

// Run the liveness property on the fork's Go port: decode's ABORTs reach
// prefill before the request's sender exists, both find the room absent,
// and the sender then waits in Bootstrapping forever. The tour (every
// edge of the spec's state graph, fair quiescence from every state) finds
// it on any seed, before the random cases.
func ExampleTarget_Check() {
	im, variant, err := conformance.Builtin("fork-90a52f44a")
	if err != nil {
		panic(err)
	}
	c, err := conformance.LoadVariant(variant)
	if err != nil {
		panic(err)
	}
	target := conformance.Target{Name: "fork-90a52f44a", Impl: im, Config: c}
	r, err := target.Check(conformance.Liveness, conformance.Options{Seed: 1, Cases: 500})
	if err != nil {
		panic(err)
	}
	fmt.Println("holds:", r.Holds, "found by:", r.FoundBy)
	for _, st := range r.Steps {
		fmt.Println(c.ActionString(st.Action))
	}
	fmt.Println("pinned:", r.Pinned)
	// Output:
	// holds: false found by: tour
	// DecodeAbort(<<r, 1>>)
	// BootstrapRecvAbort(d2)
	// BootstrapRecvAbort(d1)
	// pinned: [<<r, 1>>]
}
