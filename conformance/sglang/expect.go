package sglang

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/roomspec/roomspec/spec"
)

// This file is the expectation table: what SGLang's code must refine,
// decided by which of the pull requests that changed its NIXL room
// lifecycle a commit contains, never by the code under test. Each entry
// was read from the PR's diff and confirmed by running the commit under
// the harness (README, "SGLang's real code, commit by commit"); a change
// here is a change of what roomspec holds SGLang to, and is reviewed as
// such.

// A PR is a pull request of SGLang that changed the room lifecycle of
// its NIXL backend, as upstream merged it (the subject ends "(#Number)").
type PR struct {
	Number string
	// Commit is upstream's squashed commit, for reference (a fork's
	// cherry-pick has another; PRs are found by subject).
	Commit string
	Date   string
	// What the PR did to the lifecycle, in a few words.
	What string
	// Brings are the Room.tla switches the PR changed, with their values
	// after it.
	Brings map[string]bool
	// Variant is the bundled configuration of code that has this PR and
	// every PR of Lifecycle before it.
	Variant string
	// Row: roomspec history shows the PR's commit; Parent: and the one
	// before it.
	Row, Parent bool
}

// Lifecycle are the PRs, in the order upstream merged them.
var Lifecycle = []PR{
	{Number: "27011", Commit: "c3aaafc5f26e", Date: "2026-06-03", Row: true, Parent: true,
		What:    "failure_exception() clears the room",
		Brings:  map[string]bool{"FailureClears": true},
		Variant: "sglang-27011"},
	{Number: "30352", Commit: "a74bee226138", Date: "2026-07-13", Row: true, Parent: true,
		What:    "the bootstrap thread handles ABORT; NIXL's Failed is sticky",
		Brings:  map[string]bool{"AbortKillsBootstrap": false, "FailedSticky": true},
		Variant: "sglang-30352"},
	{Number: "31075", Row: true, Commit: "1b4176cc4674", Date: "2026-07-13",
		What:    "Bootstrapping in flight raises RuntimeError",
		Brings:  map[string]bool{"InflightBootstrappingRaises": true},
		Variant: "sglang-31075"},
	{Number: "32025", Row: true, Commit: "977f04aafeca", Date: "2026-07-29",
		What:    "worker queues sharded by destination (no switch: one room, one queue)",
		Variant: "sglang-31075"},
	{Number: "30545", Row: true, Commit: "05c7ebf64c1a", Date: "2026-08-06",
		What:    "_staging_outstanding counts a room's chunks",
		Brings:  map[string]bool{"CountsOutstanding": true},
		Variant: "sglang-30545"},
	{Number: "34692", Commit: "a82f8e1777d5", Date: "2026-08-14", Row: true, Parent: true,
		What:    "bootstrap timeout for NIXL",
		Brings:  map[string]bool{"HasBootstrapTimeout": true},
		Variant: "sglang-34692"},
	{Number: "35049", Commit: "97dedd1ce9b1", Date: "2026-08-18",
		What:    "decode's deferred KV release (" + DeferredEnv + "), ACKed by Mooncake only",
		Variant: "sglang-34692"},
	{Number: "35360", Row: true, Commit: "adca19c49709", Date: "2026-08-19",
		What:    "deferred decode-side release for NIXL; chunks counted at dequeue",
		Brings:  map[string]bool{"CountsAtDequeue": true},
		Variant: "sglang-35360"},
}

// Floor is the oldest change Room.tla's sglang-pre-27011 models: code
// without it departs from the spec for reasons no switch describes.
// (Found by bisecting refinement of sglang-pre-27011 over the commits
// before #27011: the parent of #22536 keeps transfer_infos after
// Success; older commits than #23967 have no FastQueue.)
var Floor = PR{
	Number: "22536", Commit: "2a4d382b07ba", Date: "2026-05-13",
	What:    "the transfer worker drops a room's transfer_infos on Success",
	Variant: "sglang-pre-27011",
}

// DeferredEnv turns on the deferred decode-side KV release (PR #35049
// for decode and Mooncake, #35360 for NIXL's prefill).
const DeferredEnv = "SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE"

// deferredBrings are the switches DeferredEnv sets where the code has
// PR #35360, and the suffix of the bundled configurations that have them.
var deferredBrings = map[string]bool{"AbortAckSent": true, "AckOnDrain": true}

const deferredSuffix = "-deferred"

// Behaviour says in words what a switch of Room.tla means when TRUE and
// when FALSE: the text of a difference between code and expectation.
var Behaviour = map[string][2]string{
	"HasBootstrapTimeout":         {"a request stuck in Bootstrapping fails after the bootstrap timeout", "no bootstrap timeout: a request stuck in Bootstrapping waits forever"},
	"FailureClears":               {"failure_exception() clears the failed room (clear())", "a failed request is released without clear(): its room stays in request_status"},
	"AbortKillsBootstrap":         {"an ABORT kills the bootstrap thread (its guard-frame assert)", "the bootstrap thread handles an ABORT and lives on"},
	"FailedSticky":                {"a Failed room stays Failed (NIXL's update_status)", "a Failed room can be moved to another status"},
	"AbortSparesSuccess":          {"an ABORT leaves a Success room alone", "an ABORT fails a room that already reads Success"},
	"AbortPopsTransferInfos":      {"an ABORT pops the room's transfer_infos", "an ABORT leaves the room's transfer_infos"},
	"AbsentReadsWaiting":          {"an absent room reads WaitingForInput (NIXL's check_status)", "an absent room raises KeyError in check_status"},
	"InflightBootstrappingRaises": {"a poll in flight that reads Bootstrapping raises RuntimeError", "a poll in flight that reads Bootstrapping keeps the request waiting"},
	"CountsOutstanding":           {"_staging_outstanding counts a room's chunks in flight", "no count of a room's chunks in flight"},
	"CountsAtDequeue":             {"a chunk is counted as the worker takes it", "a chunk is counted only once its room passed the worker's checks"},
	"AckOnDrain":                  {"the ABORT_ACK goes out when the room's chunk count drains", "no ABORT_ACK on drain"},
	"AbortAckSent":                {"decode waits for an ABORT_ACK before it frees its pages", "decode frees its pages when it aborts"},
}

// Expectation is the configuration code must refine, and why.
type Expectation struct {
	// Variant is the configuration's name: a bundled one, or "expected"
	// where the PRs make a combination no bundled one has.
	Variant string
	Text    []byte
	// Switches are the probed switches' expected values.
	Switches map[string]bool
	// PRs are the lifecycle PRs the code has (Numbers of Lifecycle).
	PRs []string
	// From says where the expectation comes from, for messages.
	From string
}

// ErrBeforeFloor: the commit is older than the range of SGLang's history
// Room.tla models.
var ErrBeforeFloor = errors.New("older than the modelled range")

// ErrNoExpectation: nothing says what the code must refine.
var ErrNoExpectation = errors.New("no expectation")

// ErrUnmodelled: what the code must do is known, and no configuration of
// Room.tla describes it.
var ErrUnmodelled = errors.New("no configuration of Room.tla models it")

// prNumber finds "(#N)" in a commit subject.
var prNumber = regexp.MustCompile(`\(#(\d+)\)`)

// PRsIn returns the lifecycle PRs (and Floor) in the history of commit,
// found by the "(#N)" of their subjects; a PR whose revert ("Revert ...
// (#N)") came after it is not in.
func PRsIn(ctx context.Context, gitDir, commit string) (map[string]bool, error) {
	log, err := Git(ctx, gitDir, "log", "--format=%s", commit)
	if err != nil {
		return nil, fmt.Errorf("sglang: the history of %s: %w", commit, err)
	}
	known := map[string]bool{Floor.Number: true}
	for _, p := range Lifecycle {
		known[p.Number] = true
	}
	lines := strings.Split(log, "\n")
	have := map[string]bool{}
	for i := len(lines) - 1; i >= 0; i-- { // oldest first
		s := lines[i]
		for _, m := range prNumber.FindAllStringSubmatch(s, -1) {
			if known[m[1]] {
				have[m[1]] = !strings.HasPrefix(s, "Revert ")
			}
		}
	}
	maps.DeleteFunc(have, func(_ string, in bool) bool { return !in })
	return have, nil
}

// Expect is the expectation of code with the lifecycle PRs prs (from
// PRsIn), run with env. The code must refine the configuration of the
// newest PR's variant, with the switches of every PR it has (a fork
// that cherry-picked a later PR without an earlier one gets a
// configuration of its own, "expected").
func Expect(prs map[string]bool, env Env) (*Expectation, error) {
	if len(prs) == 0 {
		return nil, fmt.Errorf("%w: its history names none of the lifecycle PRs (#%s to #%s) in a subject (a fork's own history? give -base GITDIR@COMMIT of the upstream commit it started from, or -variant)",
			ErrNoExpectation, Floor.Number, Lifecycle[len(Lifecycle)-1].Number)
	}
	if !prs[Floor.Number] {
		return nil, beforeFloor()
	}
	base, err := bundledSwitches(Floor.Variant)
	if err != nil {
		return nil, err
	}
	e := &Expectation{Switches: base}
	for _, p := range Lifecycle {
		if prs[p.Number] {
			e.PRs = append(e.PRs, p.Number)
			maps.Copy(e.Switches, p.Brings)
		}
	}
	if deferred, set := env.Bool(DeferredEnv); set && deferred {
		switch {
		case prs["35360"]:
			maps.Copy(e.Switches, deferredBrings)
		case prs["35049"]:
			return nil, fmt.Errorf("with %s on, code with PR #35049 and without #35360 makes decode wait for ABORT_ACKs that NIXL's prefill never sends (decode frees the pages only at its fallback timeout): %w",
				DeferredEnv, ErrUnmodelled)
		}
	}
	e.From = "PRs " + strings.Join(prefixed(e.PRs), " ")
	if len(e.PRs) == 0 {
		e.From = "no lifecycle PR after #" + Floor.Number
	}
	e.Variant, e.Text, err = configFor(e.Switches, "expected", "expected: the switches of lifecycle PRs "+strings.Join(prefixed(e.PRs), " "))
	return e, err
}

func beforeFloor() error {
	return fmt.Errorf("%w: it lacks PR #%s (%s, %s), the oldest change Room.tla's %s models, and no configuration describes it",
		ErrBeforeFloor, Floor.Number, Floor.What, Floor.Date, Floor.Variant)
}

// ExpectCommit is the expectation of commit of gitDir (Expect of its
// lifecycle PRs). A commit whose history names none of them is older
// than the modelled range if it is dated before Floor, and else of a
// history roomspec does not know (ErrNoExpectation).
func ExpectCommit(ctx context.Context, gitDir, commit string, env Env) (*Expectation, error) {
	prs, err := PRsIn(ctx, gitDir, commit)
	if err != nil {
		return nil, err
	}
	if len(prs) == 0 {
		if date, err := Git(ctx, gitDir, "log", "-1", "--format=%cs", commit); err == nil && date < Floor.Date {
			return nil, beforeFloor()
		}
	}
	e, err := Expect(prs, env)
	if err != nil {
		return nil, err
	}
	e.From = fmt.Sprintf("%s in the history of %.12s", e.From, commit)
	return e, nil
}

func prefixed(prs []string) []string {
	out := make([]string, len(prs))
	for i, p := range prs {
		out[i] = "#" + p
	}
	return out
}

// ExpectVariant is the expectation that code refines the bundled
// configuration name (roomspec's -variant).
func ExpectVariant(name string) (*Expectation, error) {
	v, sw, err := bundled(name)
	if err != nil {
		return nil, err
	}
	return &Expectation{Variant: name, Text: v.Text, Switches: sw, From: "-variant " + name}, nil
}

// A Difference is a probed switch whose value in the code is not the
// expected one: a behaviour the code lost, or one it gained, that its
// lifecycle PRs do not account for.
type Difference struct {
	Switch   string `json:"switch"`
	Expected bool   `json:"expected"`
	Probed   bool   `json:"probed"`
	// PR brought the expected value ("" where the expectation did not
	// come from PRs, or no PR changed the switch).
	PR string `json:"pr,omitempty"`
	// Value differences (BootstrapTimeoutSecs): what the configuration
	// says and what the code has, in words.
	ExpectedValue string `json:"expected_value,omitempty"`
	ProbedValue   string `json:"probed_value,omitempty"`
}

// TimeoutSwitch names the difference of a bootstrap timeout that is not
// the configuration's BootstrapTimeoutSecs.
const TimeoutSwitch = "BootstrapTimeoutSecs"

// String names the behaviour: what was expected, what the code does.
func (d Difference) String() string {
	if d.ExpectedValue != "" {
		return fmt.Sprintf("%s: expected %s; the code: %s", d.Switch, d.ExpectedValue, d.ProbedValue)
	}
	b, ok := Behaviour[d.Switch]
	if !ok {
		b = [2]string{d.Switch, "not " + d.Switch}
	}
	pick := func(v bool) string {
		if v {
			return b[0]
		}
		return b[1]
	}
	why := ""
	if d.PR != "" {
		why = fmt.Sprintf(" (PR #%s)", d.PR)
	}
	return fmt.Sprintf("%s: expected %s%s; the code: %s", d.Switch, pick(d.Expected), why, pick(d.Probed))
}

// Compare returns the probed switches whose values differ from the
// expected ones, in name order.
func (e *Expectation) Compare(ing Ingredients) []Difference {
	var out []Difference
	for _, k := range slices.Sorted(maps.Keys(ing.Switches)) {
		want, ok := e.Switches[k]
		if !ok || want == ing.Switches[k] {
			continue
		}
		d := Difference{Switch: k, Expected: want, Probed: ing.Switches[k]}
		for _, p := range Lifecycle {
			if _, brought := p.Brings[k]; brought && slices.Contains(e.PRs, p.Number) {
				d.PR = p.Number
			}
		}
		if _, env := deferredBrings[k]; env && d.PR == "" && want {
			d.PR = "35360"
		}
		out = append(out, d)
	}
	if d, ok := e.compareTimeout(ing); ok {
		out = append(out, d)
	}
	return out
}

// compareTimeout holds the code's bootstrap timeout to the
// configuration's BootstrapTimeoutSecs: a request of the code would fail
// at another time than the spec's (the harness's reset refuses such a
// configuration, so the properties cannot run).
func (e *Expectation) compareTimeout(ing Ingredients) (Difference, bool) {
	if ing.BootstrapTimeout == 0 || !e.Switches["HasBootstrapTimeout"] {
		return Difference{}, false
	}
	v, err := spec.Parse(e.Variant, e.Text)
	if err != nil {
		return Difference{}, false
	}
	k, err := v.Constants()
	if err != nil || float64(k.BootstrapTimeoutSecs) == ing.BootstrapTimeout {
		return Difference{}, false
	}
	return Difference{Switch: TimeoutSwitch, PR: "34692",
		ExpectedValue: fmt.Sprintf("a request stuck in Bootstrapping fails after %d s (BootstrapTimeoutSecs, environ.py's default of %s)", k.BootstrapTimeoutSecs, TimeoutEnv),
		ProbedValue:   fmt.Sprintf("it fails after %g s", ing.BootstrapTimeout)}, true
}

// TimeoutEnv sets the bootstrap timeout (PR #34692 for NIXL).
const TimeoutEnv = "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT"

// Bool reads key as SGLang's EnvBool does (environ.py: true, 1, yes, y;
// false, 0, no, n; any case); set is false where env does not give key a
// boolean value.
func (env Env) Bool(key string) (value, set bool) {
	for _, kv := range slices.Backward(env) {
		k, v, _ := strings.Cut(kv, "=")
		if k != key {
			continue
		}
		switch strings.ToLower(v) {
		case "true", "1", "yes", "y":
			return true, true
		case "false", "0", "no", "n":
			return false, true
		}
		return false, false
	}
	return false, false
}
