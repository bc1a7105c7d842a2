package sglang

import (
	"context"
	"fmt"
	"maps"
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
// pull requests that changed the room lifecycle of mooncake/conn.py (or,
// for both backends, prefill.py), found, as NIXL's, by the "(#N)" of their
// subjects, in merge order. Its first entry is the oldest Mooncake code the
// harness has run that Room.tla models (before it Mooncake's bootstrap
// thread has no ABORT branch); each entry was confirmed by running its
// commit (roomspec history -backend mooncake). Every entry's switches are
// mooncake.cfg's but those a later PR brings.
var MooncakeLifecycle = []PR{
	{Number: "27372", Commit: "57909f731b0f", Date: "2026-06-06", Row: true,
		What: "Mooncake's bootstrap thread handles ABORT (fails a present room that is not Success) and ACKs it; the worker skips a chunk of an absent room"},
	{Number: "31075", Commit: "1b4176cc4674", Date: "2026-07-13", Row: true,
		What:   "prefill.py: Bootstrapping in flight raises RuntimeError",
		Brings: map[string]bool{"InflightBootstrappingRaises": true}},
	{Number: "30545", Commit: "05c7ebf64c1a", Date: "2026-08-06", Row: true,
		What:   "_staging_outstanding counts a room's chunks; the sender's poll holds Success while counted",
		Brings: map[string]bool{"CountsOutstanding": true}},
	{Number: mooncakeDeferredPR, Commit: "97dedd1ce9b1", Date: "2026-08-18", Row: true,
		What: "Mooncake's deferred decode-side release (" + DeferredEnv + ")"},
	{Number: "35360", Commit: "adca19c49709", Date: "2026-08-19", Row: true,
		What: "Mooncake's worker counts a chunk as it takes it (no switch: the spec reads CountsAtDequeue only on the assertion path Mooncake's worker does not have); the deferred ACK moved to common/conn.py"},
}

// mooncakeDeferredPR brought Mooncake's deferred decode-side release.
const mooncakeDeferredPR = "35049"

// mooncakeBefore are the switches of Mooncake's code before the PRs of
// MooncakeLifecycle that bring them: mooncake.cfg's (the newest code's)
// with these values.
var mooncakeBefore = map[string]bool{"InflightBootstrappingRaises": false, "CountsOutstanding": false}

// ExpectMooncakeCommit is the expectation of the Mooncake code at commit
// of gitDir: mooncake.cfg's switches as its MooncakeLifecycle PRs leave
// them (with the deferred release's where env turns DeferredEnv on and the
// code has PR #35049): the bundled mooncake* configuration that has them,
// or one of its shape named "expected".
func ExpectMooncakeCommit(ctx context.Context, gitDir, commit string, env Env) (*Expectation, error) {
	prs, err := prsIn(ctx, gitDir, commit, MooncakeLifecycle)
	if err != nil {
		return nil, err
	}
	if !prs[MooncakeLifecycle[0].Number] {
		f := MooncakeLifecycle[0]
		return nil, fmt.Errorf("%w: its Mooncake code lacks PR #%s (%s, %s), the oldest Mooncake change Room.tla models, and no configuration describes it",
			ErrBeforeFloor, f.Number, f.What, f.Date)
	}
	sw, err := bundledSwitches(Mooncake)
	if err != nil {
		return nil, err
	}
	maps.Copy(sw, mooncakeBefore)
	e := &Expectation{Switches: sw}
	for _, p := range MooncakeLifecycle {
		if prs[p.Number] {
			e.PRs = append(e.PRs, p.Number)
			maps.Copy(e.Switches, p.Brings)
		}
	}
	if deferred, set := env.Bool(DeferredEnv); set && deferred && prs[mooncakeDeferredPR] {
		maps.Copy(e.Switches, deferredBrings)
	}
	e.Variant, e.Text, err = configFor(Mooncake, e.Switches, "expected", "expected: the switches of Mooncake's lifecycle PRs "+strings.Join(prefixed(e.PRs), " "))
	if err != nil {
		return nil, err
	}
	e.From = fmt.Sprintf("Mooncake's PRs %s in the history of %.12s", strings.Join(prefixed(e.PRs), " "), commit)
	return e, nil
}
