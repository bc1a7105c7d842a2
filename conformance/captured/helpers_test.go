package captured

import (
	"flag"
	"os"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/traces/decode"
	"github.com/roomspec/roomspec/traces/observe"
)

var update = flag.Bool("update", false, "rewrite testdata/*.itf.json from fresh runs")

// LoadCapture reads a capture's observations.
func LoadCapture(path string) ([]observe.Observation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var obs []observe.Observation
	_, err = observe.ReadCapture(f, decode.Options{}, 0, func(o observe.Observation) { obs = append(obs, o) }, nil)
	return obs, err
}

// LoadEventLog reads an event log's observations.
func LoadEventLog(path string) ([]observe.Observation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return observe.ReadLog(f)
}

// target names an implementation under a configuration whose Name is
// variant.
func target(impl conformance.Implementation, name, variant string, c *model.Config) conformance.Target {
	if c.Name != variant {
		named := *c
		named.Name = variant
		c = &named
	}
	return conformance.Target{Name: name, Impl: impl, Config: c}
}

// Fails is conformance.Target.Fails for impl under c.
func Fails(impl conformance.Implementation, c *model.Config, property string, bound int) func([]model.Action) bool {
	return conformance.Target{Impl: impl, Config: c}.Fails(property, bound)
}

// conn is the source of an event (the tests compare them).
func conn(e *Event) int32 { return e.Src }
