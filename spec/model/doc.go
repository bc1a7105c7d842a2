// Package model is spec/Room.tla compiled to Go by roomspec's generator
// (package gen): typed states, one method per action, Next, the
// invariants and action properties of the bundled configurations,
// fingerprints and TLA+/ITF printing. zz_room.go is generated; do not
// edit it, edit spec/Room.tla and run go generate.
//
// One package serves every configuration: build a Config from a cfg
// (LoadConfig, FromCfg), then explore with Init/Inits and Next.
package model

//go:generate go run ../../gen/cmd/gen -spec ../Room.tla -name spec/Room.tla -out zz_room.go
