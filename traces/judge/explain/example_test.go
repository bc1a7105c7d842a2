package explain_test

import (
	"fmt"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/judge/explain"
)

// The marks a spec step leaves: decode's abort sends one ABORT per rank;
// the scheduler's creation of the sender writes two log lines.
func ExampleMarks() {
	cfg, err := spec.Config("upstream")
	if err != nil {
		panic(err)
	}
	c, err := model.LoadConfig(cfg)
	if err != nil {
		panic(err)
	}
	s := c.Init()
	c.Next(&s, func(a model.Action, t *model.State) bool {
		switch a.ID {
		case model.ActDecodeAbort, model.ActSchedulerCreateSender:
			fmt.Println(c.ActionString(a), explain.Marks(c, a, &s, t, true))
		}
		return false
	})
	// Output:
	// SchedulerCreateSender(<<r, 1>>) [sender_create status Absent -> Bootstrapping]
	// DecodeAbort(<<r, 1>>) [ABORT rank 0 ABORT rank 1]
}
