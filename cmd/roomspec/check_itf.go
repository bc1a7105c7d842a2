package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/value"
)

// writeITFTrace writes one counterexample as DIR/NAME.itf.json.
func writeITFTrace(dir, name, source, description string, vars []string, trace []check.Step, loop int) (string, error) {
	data, err := check.ITF(source, description, vars, trace, loop)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".itf.json")
	return path, os.WriteFile(path, data, 0o644)
}

// writeBundledITF writes every counterexample of the bundled spec's
// verdict table as DIR/VARIANT.PROPERTY.itf.json.
func writeBundledITF(stderr io.Writer, dir string, results []variantResult) error {
	for _, r := range results {
		for _, v := range r.res.Verdicts {
			if v.Holds {
				continue
			}
			desc := fmt.Sprintf("roomspec check: %s is violated under variant %s", v.Name, r.variant)
			path, err := writeITFTrace(dir, r.variant+"."+v.Name, "Room.tla", desc, r.vars, v.Trace, v.LoopStart)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "wrote %s\n", path)
		}
	}
	return nil
}

// matchITF loads an ITF trace (written by roomspec, Apalache or Quint) and
// matches it against the model, printing its steps with the actions that
// take them, or which state of the trace has no match.
func matchITF(w io.Writer, m *check.Model, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	models := map[string]bool{}
	collectModels(models, m)
	tr, err := check.ReadITF(data, models)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	steps, err := check.MatchITF(m, tr)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	for i, st := range steps {
		label := "<Initial predicate>"
		if st.Action != nil {
			label = "<" + st.Action.String() + ">"
		}
		fmt.Fprintf(w, "State %d: %s\n", i+1, label)
		for j, v := range m.Spec.Vars {
			fmt.Fprintf(w, "/\\ %s = %s\n", v, value.Format(st.State[j]))
		}
		fmt.Fprintln(w)
	}
	if tr.Loop >= 0 {
		fmt.Fprintf(w, "Back to state %d.\n\n", tr.Loop+1)
	}
	fmt.Fprintf(w, "The trace of %d states is a behaviour of %s.\n", len(steps), strings.TrimSuffix(m.Spec.Module.File, ".tla"))
	return nil
}

// collectModels gathers the model values the model's constants hold, so
// that the strings of an ITF trace that name them are read as them.
func collectModels(out map[string]bool, m *check.Model) {
	var walk func(v value.Value)
	walk = func(v value.Value) {
		switch x := v.(type) {
		case *value.Model:
			out[x.Name] = true
		case *value.Set:
			for _, e := range x.Elems() {
				walk(e)
			}
		case *value.Func:
			for i := range x.Keys() {
				walk(x.Keys()[i])
				walk(x.Vals()[i])
			}
		}
	}
	for _, v := range m.ConstantValues() {
		walk(v)
	}
}

// itfName names the ITF file of a module's counterexample: MODULE.PROPERTY
// (MODULE.deadlock for a deadlock).
func itfName(module string, r *check.Result) string {
	what := r.Violated
	if what == "" {
		what = string(r.Outcome)
	}
	return strings.TrimSuffix(filepath.Base(module), ".tla") + "." + what
}
