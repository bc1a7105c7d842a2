package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/conformance"
	"github.com/roomspec/roomspec/conformance/sglang"
	"github.com/roomspec/roomspec/conformance/subprocess"
	"github.com/roomspec/roomspec/spec"
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

// realCode is SGLang's real code loaded by the harness, with the
// configuration its probed ingredients choose.
type realCode struct {
	src         sglang.Source
	ingredients sglang.Ingredients
	harness     string
	env         sglang.Env
	variant     string // bundled name, or "probed"
	cfgText     []byte
}

// loadRealCode resolves given (a path or GITDIR@COMMIT), installs the
// harness and probes the code; variant, if set, overrides the choice.
func loadRealCode(ctx context.Context, given string, env sglang.Env, variant string) (*realCode, error) {
	cache, err := sglang.CacheDir()
	if err != nil {
		return nil, err
	}
	src, err := sglang.Resolve(ctx, given, cache)
	if err != nil {
		return nil, err
	}
	dir, err := sglang.InstallHarness(cache)
	if err != nil {
		return nil, err
	}
	ing, err := sglang.Probe(ctx, dir, src, env)
	if err != nil {
		return nil, err
	}
	rc := &realCode{src: src, ingredients: ing, harness: dir, env: env}
	if variant != "" {
		text, err := conformanceVariantText(variant)
		if err != nil {
			return nil, err
		}
		rc.variant, rc.cfgText = variant, text
		return rc, nil
	}
	rc.variant, rc.cfgText, err = sglang.Choose(ing)
	return rc, err
}

// implementation starts the harness as a supervised child process.
func (rc *realCode) implementation(opt subprocess.Options) conformance.Implementation {
	return subprocess.New(sglang.Command(rc.harness, rc.src, rc.env), opt)
}

// config is the chosen configuration, compiled.
func (rc *realCode) config() (*model.Config, error) {
	v, err := spec.Parse(rc.variant, rc.cfgText)
	if err != nil {
		return nil, err
	}
	return v.Compiled()
}

// annotate adds what JSON readers of a real-code run need: the chosen
// variant, the commit and the probed ingredients.
func (rc *realCode) annotate(j conformance.JSONResult) any {
	b, _ := json.Marshal(j)
	var m map[string]any
	json.Unmarshal(b, &m)
	m["variant"] = rc.variant
	if rc.src.Commit != "" {
		m["commit"] = rc.src.Commit
	}
	m["ingredients"] = rc.ingredients.Switches
	return m
}

func conformanceVariantText(name string) ([]byte, error) {
	v, err := spec.Load(name)
	if err != nil {
		return nil, err
	}
	return v.Text, nil
}
