// Package model is spec/Room.tla compiled to Go by roomspec's generator
// (package gen): typed states, one method per action, Next, the
// invariants and action properties of the bundled configurations, the
// @action, @wire, @log and @idle annotations of each action (Actions,
// AppendWire, AppendLog, AppendIdle), the fairness the spec assumes
// (FairActions), fingerprints, and printing and reading states as TLA+,
// ITF and plain JSON. zz_room.go is generated; do not edit it, edit
// spec/Room.tla and run go generate. What is not specific to Room.tla
// (constant sets, checked arithmetic, value I/O) is in tla/gen/specrt.
//
// One package serves every configuration: build a Config from typed
// constants (NewConfig from a Constants; Config.With for the same
// configuration with other constants; spec.Load reads a bundled variant's
// .cfg into them), then explore with Init/Inits and Next, or take one
// action with Step. The package imports nothing of the TLA+ front end
// (the parser, tla/cfg).
package model

//go:generate go run ../../tla/gen/cmd/gen -spec ../Room.tla -name spec/Room.tla -out zz_room.go
