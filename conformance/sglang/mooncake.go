package sglang

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// The backends the harness drives: NIXL's (nixl/conn.py, the default) and
// Mooncake's (mooncake/conn.py, with its TransferEngine faked where NIXL's
// agent is).
const (
	NIXL     = "nixl"
	Mooncake = "mooncake"
)

// Backends are the names -backend takes.
var Backends = []string{NIXL, Mooncake}

// CheckBackend reports a backend the harness does not drive ("" is NIXL).
func CheckBackend(name string) error {
	if name == "" || slices.Contains(Backends, name) {
		return nil
	}
	return fmt.Errorf("sglang: unknown backend %q (the harness drives %s)", name, strings.Join(Backends, ", "))
}

// familyOf is the name prefix of the bundled configurations that model
// backend's code.
func familyOf(backend string) string {
	if backend == Mooncake {
		return Mooncake
	}
	return familyPrefix
}

// MooncakeLifecycle is the expectation table of Mooncake's backend: the
// pull requests that changed mooncake/conn.py's room lifecycle (found, as
// NIXL's, by the "(#N)" of their subjects), in merge order, each with the
// bundled configuration code that has it refines. Its first entry is the
// oldest commit whose Mooncake code the harness has run (Room.tla,
// MOONCAKE); older Mooncake code is outside the modelled range.
var MooncakeLifecycle = []PR{
	{Number: "35360", Commit: "adca19c49709", Date: "2026-08-19", Row: true,
		What:    "Mooncake's worker counts a chunk as it takes it (the ABORT_ACK of the deferred release moved to common/conn.py)",
		Variant: "mooncake"},
}

// ExpectMooncakeCommit is the expectation of the Mooncake code at commit
// of gitDir: the configuration of the newest MooncakeLifecycle PR in its
// history (its -deferred form where env turns DeferredEnv on).
func ExpectMooncakeCommit(ctx context.Context, gitDir, commit string, env Env) (*Expectation, error) {
	prs, err := prsIn(ctx, gitDir, commit, MooncakeLifecycle)
	if err != nil {
		return nil, err
	}
	var last *PR
	var have []string
	for i, p := range MooncakeLifecycle {
		if prs[p.Number] {
			last = &MooncakeLifecycle[i]
			have = append(have, p.Number)
		}
	}
	if last == nil {
		f := MooncakeLifecycle[0]
		return nil, fmt.Errorf("%w: its Mooncake code lacks PR #%s (%s, %s), the oldest Mooncake change Room.tla's %s models (run under the harness), and no configuration describes it",
			ErrBeforeFloor, f.Number, f.What, f.Date, f.Variant)
	}
	name := last.Variant
	if deferred, set := env.Bool(DeferredEnv); set && deferred {
		name += deferredSuffix
	}
	e, err := ExpectVariant(name)
	if err != nil {
		return nil, err
	}
	e.PRs = have
	e.From = fmt.Sprintf("Mooncake's PRs %s in the history of %.12s", strings.Join(prefixed(have), " "), commit)
	return e, nil
}
