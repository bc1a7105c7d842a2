package model_test

import (
	"fmt"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

// A Config comes from a bundled cfg; Init and Next explore the spec, and
// each successor names its action as the interpreter does.
func ExampleConfig_Next() {
	text, err := spec.Config("upstream")
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := model.LoadConfig(text)
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
	text, _ := spec.Config("upstream")
	c, _ := model.LoadConfig(text)
	s := c.Init()
	t, ok := c.SchedulerCreateSender(&s, 0)
	fmt.Println(ok, t.Sender[0], t.RequestStatus[0])
	_, ok = c.SchedulerCreateSender(&t, 0)
	fmt.Println(ok)
	// Output:
	// true BootstrapQueue Bootstrapping
	// false
}
