package replay

import (
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/observe"
)

// Shorthands for the observation layer, which the tests use throughout.
type (
	Observation = observe.Observation
	Kind        = observe.Kind
)

const (
	TransferInfo = observe.TransferInfo
	Abort        = observe.Abort
	AbortAck     = observe.AbortAck
	Status       = observe.Status
	SenderCreate = observe.SenderCreate
	Poll         = observe.Poll
	Clear        = observe.Clear
)

var (
	Merge       = observe.Merge
	FromMessage = observe.FromMessage
	FromEvent   = observe.FromEvent
)

// variantConfig loads a bundled variant.
func variantConfig(t testing.TB, variant string) *model.Config {
	t.Helper()
	text, err := spec.Config(variant)
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.LoadConfig(text)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
