package sglang

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/roomspec/roomspec/spec"
)

// ErrNoDeferredRelease: the code's configuration has a deferred form
// (PR #35360's decode-side release) and the code has no such release.
var ErrNoDeferredRelease = errors.New("the code has no deferred decode-side release")

// DeferredForm is the second form in which the suite runs SGLang's code:
// where the configuration X it is held to (sglang-*, or mooncake) has a
// bundled X-deferred twin
// and the environment leaves the deferred decode-side release at its
// default (off), the same code with the release on
// (SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1), probed again and
// held to X-deferred. The ABORT_ACK path runs only there: a suite of the
// default form alone lets every edit of it through. roomspec test and
// roomspec mutate both run it, from here. nil (and no error) where no
// second form applies; ErrNoDeferredRelease where X-deferred is expected
// and the code cannot switch the release on.
func (c *Code) DeferredForm(ctx context.Context) (*Code, error) {
	v := c.Variant + "-deferred"
	real := strings.HasPrefix(c.Variant, familyPrefix) || c.Variant == Mooncake
	if !real || strings.HasSuffix(c.Variant, "-deferred") || !slices.Contains(spec.Variants(), v) {
		return nil, nil
	}
	if _, set := c.Env.Bool(DeferredEnv); set {
		return nil, nil
	}
	if c.Variant == Mooncake && (c.Expect == nil || !slices.Contains(c.Expect.PRs, mooncakeDeferredPR)) {
		// mooncake.cfg models Mooncake's code from before its release
		// (PR #35049) too: the expectation's PRs say whether it is there.
		return nil, nil
	}
	if !c.Ingredients.DeferredAckAvailable {
		pr := "35360"
		if c.Variant == Mooncake {
			pr = mooncakeDeferredPR
		}
		return nil, fmt.Errorf("%s expects PR #%s's deferred release (%s): %w", c.Variant, pr, DeferredEnv, ErrNoDeferredRelease)
	}
	e, err := ExpectVariant(v)
	if err != nil {
		return nil, err
	}
	e.From = fmt.Sprintf("the deferred form of %s (%s=1)", c.Variant, DeferredEnv)
	d := *c
	d.Env = append(slices.Clone(c.Env), DeferredEnv+"=1")
	if d.Ingredients, err = Probe(ctx, c.Harness, c.Source, d.Env); err != nil {
		return nil, fmt.Errorf("with %s=1: %w", DeferredEnv, err)
	}
	d.Hold(e)
	return &d, nil
}
