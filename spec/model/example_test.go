package model_test

import (
	"fmt"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

// A Config comes from a bundled cfg (spec.Compiled reads its typed
// Constants); Init and Next explore the spec, and each successor names its
// action as the interpreter does.
func ExampleConfig_Next() {
	c, err := spec.Compiled("upstream")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := c.Init()
	c.Next(&s, func(a model.Action, t *model.State) bool {
		info := model.Actions[a.ID]
		fmt.Printf("%s (%s %s)\n", c.ActionString(a), info.Kind, info.Actor)
		return false
	})
	typeOK, _ := c.Invariant("TypeOK")
	fmt.Println("TypeOK:", typeOK(&s))
	// Output:
	// SchedulerCreateSender(<<r, 1>>) (implementation scheduler)
	// DecodeSendTransferInfo(d1, <<r, 1>>) (environment decode)
	// DecodeSendTransferInfo(d2, <<r, 1>>) (environment decode)
	// DecodeAbort(<<r, 1>>) (environment decode)
	// TypeOK: true
}

// A deterministic action is a method returning the successor and whether
// the action is enabled; Format prints states as TLA+.
func ExampleConfig_SchedulerCreateSender() {
	c, _ := spec.Compiled("upstream")
	s := c.Init()
	t, ok := c.SchedulerCreateSender(&s, 0)
	fmt.Println(ok, t.Sender[0], t.RequestStatus[0])
	_, ok = c.SchedulerCreateSender(&t, 0)
	fmt.Println(ok)
	// Output:
	// true BootstrapQueue Bootstrapping
	// false
}

// A Config is built from typed constants: here the upstream variant's,
// with three decode ranks required instead of two.
func ExampleConfig_With() {
	c, _ := spec.Compiled("upstream")
	k := c.Constants
	k.DecodeRanks = []string{"d1", "d2", "d3"}
	k.RequiredDstInfoNum = 3
	w, err := c.With(k)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Name, w.DecodeRanks.Size(), c.DecodeRanks.Size())
	// Too many rooms for the compiled model's 64-bit sets of requests.
	k = c.Constants
	k.Rooms = nil
	for i := range 65 {
		k.Rooms = append(k.Rooms, fmt.Sprint("r", i))
	}
	_, err = model.NewConfig(k)
	fmt.Println(err)
	// Output:
	// upstream 3 2
	// model: computing the constant definitions: model: Requests has 65 elements; sets hold at most 64
}
