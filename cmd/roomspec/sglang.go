package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/spec/model"
)

// envList is a repeatable KEY=VALUE flag.
type envList []string

func (l *envList) String() string { return strings.Join(*l, " ") }

func (l *envList) Set(s string) error {
	if k, _, ok := strings.Cut(s, "="); !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, not %q", s)
	}
	*l = append(*l, s)
	return nil
}

// realCode is SGLang's real code loaded by the harness, with what it is
// expected to refine.
type realCode struct{ *sglang.Code }

// loadRealCode resolves given (a path or GITDIR@COMMIT), checks the
// environment, finds the expectation, installs the harness and probes
// the code.
func loadRealCode(ctx context.Context, given string, opt sglang.LoadOptions) (*realCode, error) {
	c, err := sglang.Load(ctx, given, opt)
	if err != nil {
		return nil, err
	}
	return &realCode{c}, nil
}

// implementation starts the harness as a supervised child process.
func (rc *realCode) implementation(opt subprocess.Options) conformance.Implementation {
	return rc.Implementation(opt)
}

// config is the configuration the code is checked against, compiled.
func (rc *realCode) config() (*model.Config, error) {
	return rc.Config()
}

// warnTo prints the source's warnings (sglang.LoadOptions.Warn) on w.
func warnTo(w io.Writer, prefix string) func(string) {
	return func(s string) { fmt.Fprintf(w, "%s: warning: %s\n", prefix, s) }
}

// report prints where the expectation comes from (or that there is
// none) on stderr, and each difference between the probe and the
// expectation on stdout, with the verdicts; it returns whether there is
// one.
func (rc *realCode) report(stdout, stderr io.Writer, prefix string) (differs bool) {
	if rc.Expect == nil {
		fmt.Fprintf(stderr, "%s: %s\n", prefix, rc.NoExpectation)
		return false
	}
	fmt.Fprintf(stderr, "%s: expected to refine %s (%s)\n", prefix, rc.Expect.Variant, rc.Expect.From)
	if len(rc.Differences) > 0 {
		fmt.Fprintf(stdout, "%s: the probe finds behaviour the expectation (%s, %s) does not have:\n", rc.Source.Given, rc.Expect.Variant, rc.Expect.From)
		for _, d := range rc.Differences {
			fmt.Fprintf(stdout, "  PROBE DIFFERS: %s\n", d)
		}
	}
	return len(rc.Differences) > 0
}

// annotate adds what JSON readers of a real-code run need: the variant
// checked, the commit, the probed ingredients, the expectation and the
// probe's differences from it.
func (rc *realCode) annotate(j conformance.JSONResult) any {
	b, _ := json.Marshal(j)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["variant"] = rc.Variant
	m["backend"] = rc.Source.BackendName()
	if rc.Source.Commit != "" {
		m["commit"] = rc.Source.Commit
	}
	m["ingredients"] = rc.Ingredients.Switches
	if rc.Expect != nil {
		m["expected"] = rc.Expect.From
		m["differences"] = rc.Differences
	} else {
		m["no_expectation"] = rc.NoExpectation
	}
	return m
}
