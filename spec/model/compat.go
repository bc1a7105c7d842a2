package model

import "github.com/roomspec/roomspec/gen/specrt"

// Bit is the bitset holding only element i (specrt.Bit).
//
// Deprecated: kept for conformance/exec.go, whose hand-written state
// decoding Config.ReadState replaces when the file moves to
// conformance/subprocess (issue 15.3); use specrt.Bit.
func Bit(i int) uint64 { return specrt.Bit(i) }
