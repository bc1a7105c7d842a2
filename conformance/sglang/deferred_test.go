package sglang

import (
	"context"
	"errors"
	"testing"
)

// DeferredForm's decisions that need no probe: which code has a second
// form, and code expected to have the release that cannot switch it on.
func TestDeferredFormApplies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		code    Code
		wantErr error
	}{
		{"a configuration with no -deferred twin", Code{Variant: "sglang-34692"}, nil},
		{"already the deferred form", Code{Variant: "sglang-35360-deferred"}, nil},
		{"not SGLang's family", Code{Variant: "mooncake"}, nil},
		{"the environment sets the release", Code{Variant: "sglang-35360", Env: Env{DeferredEnv + "=0"}}, nil},
		{"code without the release", Code{Variant: "sglang-35360"}, ErrNoDeferredRelease},
	} {
		d, err := tc.code.DeferredForm(context.Background())
		if d != nil || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
			t.Errorf("%s: DeferredForm = %v, %v; want nil, %v", tc.name, d, err, tc.wantErr)
		}
	}
}
