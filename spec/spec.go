// Package spec bundles the room-lifecycle specification, Room.tla, with one
// TLC configuration per implementation variant, so that the roomspec binary
// can check them without the source tree, and loads a variant (Load, or
// Parse for configuration text) as the model checker's model or as the
// compiled model's configuration (package spec/model): the one place a
// variant is read.
package spec

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

// Files holds Room.tla and the variant configurations (*.cfg).
//
//go:embed Room.tla *.cfg
var Files embed.FS

// Module is the name of the bundled module.
const Module = "Room"

// mainVariants are the shipped variants and the proposed fix, in the order
// the verdict table shows them; other bundled cfgs (ablations, the prompt
// and deferred forms) follow in name order.
var mainVariants = []string{"upstream", "upstream-reuse", "fork-90a52f44a", "pre-30352", "mooncake", "fixed"}

// Variants returns the names of the bundled configurations (file names
// without .cfg) in display order.
func Variants() []string {
	entries, err := fs.Glob(Files, "*.cfg")
	if err != nil {
		panic(err) // the pattern is constant and valid
	}
	var rest []string
	for _, e := range entries {
		name := strings.TrimSuffix(e, ".cfg")
		if !slices.Contains(mainVariants, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	var out []string
	for _, v := range mainVariants {
		if _, err := fs.Stat(Files, v+".cfg"); err == nil {
			out = append(out, v)
		}
	}
	return append(out, rest...)
}
