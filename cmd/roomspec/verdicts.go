package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"
	"text/tabwriter"

	"github.com/roomspec/roomspec/conformance/sglang/history"
	"github.com/roomspec/roomspec/internal/statediff"
	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/bundled"
	"github.com/roomspec/roomspec/spec/compiled"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/eval"
)

// variantResult is the outcome of checking the bundled spec under one
// variant's configuration, every invariant and property to a verdict.
type variantResult struct {
	variant string
	vars    []string
	res     *check.Result
}

// checkBundled checks the embedded Room.tla under each variant, computing
// states with the compiled model (spec/model) when it was generated from
// this very spec text, unless interpret is set.
func checkBundled(variants []string, workers int, interpret bool, stderr io.Writer) ([]variantResult, error) {
	confs := make([]*cfg.Config, len(variants))
	var err error
	for i, v := range variants {
		if confs[i], err = bundled.Config(v); err != nil {
			return nil, err
		}
	}
	// Variants are checked side by side, as many at once as there are
	// workers: one variant's search alone leaves cores idle in the serial
	// merge of each chunk. Results keep the variants' order, and the
	// first variant's error (in that order) is the one returned.
	out := make([]variantResult, len(variants))
	errs := make([]error, len(variants))
	at := workers
	if at == 0 {
		at = runtime.GOMAXPROCS(0) // as check.Options.Workers defaults
	}
	sem := make(chan struct{}, at)
	var wg sync.WaitGroup
	for i, v := range variants {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = checkConfig(v, confs[i], workers, interpret, stderr)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkConfigText checks the embedded Room.tla under one configuration
// given as cfg text (a bundled variant's, or one built from probed
// ingredients), every invariant and property to a verdict.
func checkConfigText(name string, src []byte, workers int, interpret bool, stderr io.Writer) (variantResult, error) {
	conf, err := bundled.Parse(name, src)
	if err != nil {
		return variantResult{}, err
	}
	return checkConfig(name, conf, workers, interpret, stderr)
}

// checkConfig is checkConfigText on a parsed configuration.
func checkConfig(name string, conf *cfg.Config, workers int, interpret bool, stderr io.Writer) (variantResult, error) {
	text, err := spec.Files.ReadFile(spec.Module + ".tla")
	if err != nil {
		return variantResult{}, err
	}
	useCompiled := !interpret && compiled.Matches(text)
	if !interpret && !useCompiled {
		warnedStale.Do(func() {
			fmt.Fprintln(stderr, "roomspec check: the compiled model is out of date with Room.tla (run go generate ./spec/model); using the interpreter")
		})
	}
	m, err := bundled.Model(conf)
	if err != nil {
		return variantResult{}, err
	}
	opts := check.Options{Workers: workers, All: true}
	if useCompiled {
		mc, err := model.FromCfg(conf)
		if err != nil {
			return variantResult{}, fmt.Errorf("variant %s: %w", name, err)
		}
		opts.Successors = compiled.New(mc)
	}
	r := check.Check(context.Background(), m, opts)
	if r.Outcome == check.Failure {
		return variantResult{}, fmt.Errorf("variant %s: %w", name, r.Err)
	}
	return variantResult{variant: name, vars: m.Spec.Vars, res: r}, nil
}

// warnedStale: the stale-compiled-model warning is said once per run.
var warnedStale sync.Once

// verdictColumns lists the invariants and properties in order of first
// appearance across variants.
func verdictColumns(results []variantResult) []string {
	var cols []string
	seen := map[string]bool{}
	for _, r := range results {
		for _, v := range r.res.Verdicts {
			if !seen[v.Name] {
				seen[v.Name] = true
				cols = append(cols, v.Name)
			}
		}
	}
	return cols
}

// verdictCell is a verdict as the tables show it (history's cell, the
// same in both commands).
func verdictCell(v check.Verdict) string { return history.VerdictCell(v) }

// writeVerdictTable prints variant × property, each cell "holds" or
// "VIOLATED (n)" with n the steps of the shortest counterexample ("+loop"
// for a liveness lasso).
func writeVerdictTable(w io.Writer, results []variantResult) {
	cols := verdictColumns(results)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "variant\tstates")
	for _, c := range cols {
		fmt.Fprintf(tw, "\t%s", c)
	}
	fmt.Fprintln(tw)
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d", r.variant, r.res.Distinct)
		byName := map[string]check.Verdict{}
		for _, v := range r.res.Verdicts {
			byName[v.Name] = v
		}
		for _, c := range cols {
			v, ok := byName[c]
			if !ok {
				fmt.Fprint(tw, "\t-")
				continue
			}
			fmt.Fprintf(tw, "\t%s", verdictCell(v))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// writeCounterexamples prints each violation as a step table: the action
// with its parameters and what it changed.
func writeCounterexamples(w io.Writer, results []variantResult) {
	for _, r := range results {
		for _, v := range r.res.Verdicts {
			if v.Holds {
				continue
			}
			fmt.Fprintf(w, "\n%s: %s violated (%d steps", r.variant, v.Name, len(v.Trace)-1)
			if v.LoopStart >= 0 {
				fmt.Fprintf(w, ", then loops back to step %d", v.LoopStart)
			}
			fmt.Fprintln(w, ")")
			writeStepTable(w, r.vars, v.Trace, v.LoopStart)
		}
	}
}

func writeStepTable(w io.Writer, vars []string, trace []check.Step, loop int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  step\taction\tchanged")
	for i, st := range trace {
		action := "(initial state)"
		if st.Action != nil {
			action = st.Action.String()
		}
		marker := ""
		if i == loop {
			marker = " <- loop"
		}
		var before eval.State
		if i > 0 {
			before = trace[i-1].State
		}
		changes := statediff.States(vars, before, st.State)
		if len(changes) == 0 {
			changes = []string{"(nothing: stuttering)"}
		}
		fmt.Fprintf(tw, "  %d%s\t%s\t%s\n", i, marker, action, changes[0])
		for _, c := range changes[1:] {
			fmt.Fprintf(tw, "  \t\t%s\n", c)
		}
	}
	if loop >= 0 {
		fmt.Fprintf(tw, "  \t(back to step %d, forever)\t\n", loop)
	}
	tw.Flush()
}

// verdictJSON is one line of `roomspec check -format json` on the bundled
// spec: one per variant and property.
type verdictJSON struct {
	Variant        string     `json:"variant"`
	Property       string     `json:"property"`
	Holds          bool       `json:"holds"`
	DistinctStates int64      `json:"distinctStates"`
	Trace          []jsonStep `json:"trace"`
	LoopStart      int        `json:"loopStart"`
}

func writeVerdictJSON(w io.Writer, results []variantResult) {
	for _, r := range results {
		for _, v := range r.res.Verdicts {
			b, _ := json.Marshal(verdictJSON{
				Variant: r.variant, Property: v.Name, Holds: v.Holds, DistinctStates: r.res.Distinct,
				Trace: traceJSON(r.vars, v.Trace), LoopStart: v.LoopStart,
			})
			fmt.Fprintf(w, "%s\n", b)
		}
	}
}
