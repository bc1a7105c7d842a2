package main

// Which configuration of Room.tla rooms are judged against: the one the
// operator's SGLang calls for (-sglang SOURCE, through the expectation
// table and the harness's probe), the one named (-variant), or, with
// neither, the default, said to be an assumption.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
)

// defaultVariant is what replay and watch judge against when neither
// -sglang nor -variant says.
const defaultVariant = "upstream"

// variantChoice is the configuration rooms are judged against, and why.
type variantChoice struct {
	// Name is the configuration's name: a bundled variant, or "expected"
	// or "probed" for a configuration built from the code's switches.
	Name   string
	Config *model.Config
	// Why says in a line or two which configuration and why, for the
	// output's first lines.
	Why []string
	// Assumed: neither -sglang nor -variant was given.
	Assumed bool
	// Code is the loaded SGLang code with -sglang, else nil.
	Code *sglang.Code
}

// chooseVariant picks the configuration: from the SGLang code at source
// (when given; variant, when given too, is then what the code is expected
// to refine), else the bundled variant (explicit: given by -variant),
// else the default. warn is told the source's warnings.
func chooseVariant(ctx context.Context, source string, env sglang.Env, variant string, explicit bool, warn func(string)) (*variantChoice, error) {
	if source == "" {
		if !explicit {
			variant = defaultVariant
		}
		c, err := spec.Compiled(variant)
		if err != nil {
			return nil, unknownVariant(variant)
		}
		ch := &variantChoice{Name: variant, Config: c, Assumed: !explicit}
		if explicit {
			ch.Why = []string{fmt.Sprintf("variant %s: given by -variant", variant)}
		} else {
			ch.Why = []string{fmt.Sprintf("variant %s: ASSUMED (neither -sglang nor -variant given): give -sglang SOURCE of the SGLang the capture's prefill ran, or -variant (roomspec check -list)", variant)}
		}
		ch.describe()
		return ch, nil
	}
	opt := sglang.LoadOptions{Env: env, Warn: warn}
	if explicit {
		if _, err := spec.Compiled(variant); err != nil {
			return nil, unknownVariant(variant)
		}
		opt.Variant = variant
	}
	code, err := sglang.Load(ctx, source, opt)
	if err != nil {
		return nil, fmt.Errorf("-sglang %s: %w", source, err)
	}
	c, err := code.Config()
	if err != nil {
		return nil, fmt.Errorf("-sglang %s: %w", source, err)
	}
	ch := sglangChoice(code)
	ch.Config = c
	return ch, nil
}

// sglangChoice is the configuration loaded code calls for, with why
// (its Config left to the caller).
func sglangChoice(code *sglang.Code) *variantChoice {
	ch := &variantChoice{Name: code.Variant, Code: code}
	ch.Why = append(ch.Why, sglangWhy(code))
	for _, d := range code.Differences {
		ch.Why = append(ch.Why, "  PROBE DIFFERS: "+d.String())
	}
	ch.describe()
	return ch
}

// sglangWhy is the line that says which configuration the code calls
// for, and why.
func sglangWhy(code *sglang.Code) string {
	what := fmt.Sprintf("SGLang %s", code.Source.Label())
	if code.Expect == nil {
		return fmt.Sprintf("variant %s: chosen by the probe of %s, whose switches it models (%s)", code.Variant, what, code.NoExpectation)
	}
	probe := "the harness's probe of the code agrees"
	if len(code.Differences) > 0 {
		probe = fmt.Sprintf("the harness's probe finds %d difference(s), below", len(code.Differences))
	}
	return fmt.Sprintf("variant %s: what %s must refine, from %s (the expectation table); %s", code.Variant, what, code.Expect.From, probe)
}

// describe adds the variant's description, if it is bundled.
func (ch *variantChoice) describe() {
	if d := describeVariant(ch.Name); d != "" {
		ch.Why = append(ch.Why, "  "+ch.Name+": "+d)
	}
}

// describeVariant is the one-line description of a bundled variant, or
// "" for one that is not bundled.
func describeVariant(name string) string {
	d, err := spec.Describe(name)
	if err != nil {
		return ""
	}
	return d
}

// unknownVariant is the error of a -variant that is not bundled, in the
// style of every bad flag value, with the nearest bundled one.
func unknownVariant(name string) error {
	return fmt.Errorf("-variant %q: unknown variant%s; roomspec check -list lists them", name, didYouMean(name, spec.Variants()))
}

// checkVariant returns unknownVariant's error unless name is bundled (or
// empty: not given).
func checkVariant(name string) error {
	if name == "" || slices.Contains(spec.Variants(), name) {
		return nil
	}
	return unknownVariant(name)
}

// sglangEnvHelp is the -sglang-env flag's help.
const sglangEnvHelp = "with -sglang: an environment variable the fleet's SGLang runs with, `KEY=VALUE` (repeatable; e.g. " + sglang.DeferredEnv + "=1)"

// writeWhy writes the choice's lines, prefixed (for stderr) or as they
// are (the first lines of a text report).
func writeWhy(w interface{ Write([]byte) (int, error) }, prefix string, ch *variantChoice) {
	for _, l := range ch.Why {
		fmt.Fprintf(w, "%s%s\n", prefix, strings.TrimRight(l, "\n"))
	}
}
