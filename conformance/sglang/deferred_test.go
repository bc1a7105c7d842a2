package sglang

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// DeferredForm's decisions that need no probe: which code has a second
// form, and code expected to have the release that cannot switch it on.
func TestDeferredFormApplies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		code    Code
		wantErr error
		pr      string // the PR the error names
	}{
		{"a configuration with no -deferred twin", Code{Variant: "sglang-34692"}, nil, ""},
		{"already the deferred form", Code{Variant: "sglang-35360-deferred"}, nil, ""},
		{"not SGLang's code", Code{Variant: "fixed"}, nil, ""},
		{"a rendered configuration", Code{Variant: "expected"}, nil, ""},
		{"Mooncake's code before its release (PR #35049)", Code{Variant: "mooncake", Expect: &Expectation{PRs: []string{"27372", "30545"}}}, nil, ""},
		{"Mooncake's code held to -variant mooncake", Code{Variant: "mooncake", Expect: &Expectation{}}, nil, ""},
		{"Mooncake's code expected to have the release and without it", Code{Variant: "mooncake", Expect: &Expectation{PRs: []string{"35049"}}}, ErrNoDeferredRelease, "35049"},
		{"the environment sets the release", Code{Variant: "sglang-35360", Env: Env{DeferredEnv + "=0"}}, nil, ""},
		{"code without the release", Code{Variant: "sglang-35360"}, ErrNoDeferredRelease, "35360"},
	} {
		d, err := tc.code.DeferredForm(context.Background())
		if d != nil || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) ||
			err != nil && tc.pr != "" && !strings.Contains(err.Error(), "PR #"+tc.pr) {
			t.Errorf("%s: DeferredForm = %v, %v; want nil, %v", tc.name, d, err, tc.wantErr)
		}
	}
}
