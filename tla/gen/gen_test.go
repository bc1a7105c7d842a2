package gen_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/gen"
)

// TestGeneratedUpToDate is the drift check: spec/model/zz_room.go must be
// exactly what gen produces from spec/Room.tla and its cfgs.
func TestGeneratedUpToDate(t *testing.T) {
	in, err := gen.LoadInput(os.DirFS("../../spec"), "Room.tla", "spec/Room.tla")
	if err != nil {
		t.Fatal(err)
	}
	src, err := gen.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile("../../spec/model/zz_room.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(src, old) {
		t.Fatal("spec/model/zz_room.go is stale: run go generate ./spec/model")
	}
}

// TestModifiedSpecBuilds adds an action (with its annotations) to a copy
// of Room.tla, regenerates the package into a temporary module and builds,
// vets and tests it there: a change to the spec needs no hand edits.
func TestModifiedSpecBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	room, err := os.ReadFile("../../spec/Room.tla")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := tla.ParseFile("Room.tla", room)
	if err != nil {
		t.Fatal(err)
	}
	// UNCHANGED everything but sender, whatever the variables are now.
	var others []string
	for _, u := range mod.Units {
		if v, ok := u.(*tla.Variable); ok {
			for _, id := range v.Names {
				if id.Name != "sender" {
					others = append(others, id.Name)
				}
			}
		}
	}
	extra := `\* A request dropped from the waiting queue (test-only action).
\* @action: implementation scheduler
\* @models: gen_test.go, not SGLang
SchedulerDropWaiting(q) ==
    /\ sender[q] = "WaitingQueue"
    /\ sender' = [sender EXCEPT ![q] = "DroppedByTest"]
    /\ UNCHANGED << ` + strings.Join(others, ", ") + ` >>

`
	text := string(room)
	const next = "Next ==\n"
	i := strings.Index(text, next)
	if i < 0 {
		t.Fatal("no Next == in Room.tla")
	}
	text = text[:i] + extra + next + "    \\/ \\E q \\in Requests : SchedulerDropWaiting(q)\n" + text[i+len(next):]
	// TypeOK must admit the new sender value.
	text = strings.Replace(text, `"InflightQueue", "Released"}`, `"InflightQueue", "Released", "DroppedByTest"}`, 1)

	fsys := fstest.MapFS{"Room.tla": {Data: []byte(text)}}
	cfgs, err := filepath.Glob("../../spec/*.cfg")
	if err != nil || len(cfgs) == 0 {
		t.Fatal("no cfgs", err)
	}
	for _, c := range cfgs {
		data, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		fsys[filepath.Base(c)] = &fstest.MapFile{Data: data}
	}
	in, err := gen.LoadInput(fsys, "Room.tla", "Room.tla")
	if err != nil {
		t.Fatal(err)
	}
	src, err := gen.Generate(in)
	if err != nil {
		t.Fatal(err)
	}

	cfgText, err := os.ReadFile("../../spec/upstream.cfg")
	if err != nil {
		t.Fatal(err)
	}
	runModule(t, map[string]string{
		"model/zz_room.go":    string(src),
		"model/extra_test.go": "package model\n" + extraTest + "\nconst upstream = `" + string(cfgText) + "`\n",
	})
}

const extraTest = `
import (
	"os/exec"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/gen/constants"
)

// The new action exists, carries its annotations and is reachable.
func TestExtra(t *testing.T) {
	info := Actions[ActSchedulerDropWaiting]
	if info.Kind != "implementation" || info.Actor != "scheduler" || len(info.Models) != 1 {
		t.Fatalf("annotations: %+v", info)
	}
	conf, err := cfg.Parse("upstream.cfg", []byte(upstream))
	if err != nil {
		t.Fatal(err)
	}
	var k Constants
	if err := constants.Decode(conf, &k); err != nil {
		t.Fatal(err)
	}
	c, err := NewConfig(k)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	queue := []State{c.Init()}
	found := false
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		c.Next(&s, func(a Action, u *State) bool {
			if a.ID == ActSchedulerDropWaiting {
				found = true
			}
			if h := u.Hash(); !seen[h] {
				seen[h] = true
				queue = append(queue, *u)
			}
			return false
		})
	}
	if !found {
		t.Fatal("SchedulerDropWaiting never fires")
	}
}

// The compiled package runs without the TLA+ front end.
func TestImportsNoFrontEnd(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/roomspec/roomspec/tla" || dep == "github.com/roomspec/roomspec/tla/cfg" {
			t.Errorf("the compiled package imports %s", dep)
		}
	}
}
`

// runModule writes files into a temporary module that uses this
// repository (replace => the checkout) and runs go build, vet and test
// on it.
func runModule(t *testing.T, files map[string]string) {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.mod", "module example.com/gentest\n\ngo 1.26\n\nrequire github.com/roomspec/roomspec v0.0.0\n\nreplace github.com/roomspec/roomspec => "+root+"\n")
	write("go.sum", string(sum))
	for name, data := range files {
		write(name, data)
	}
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}, {"test", "-v", "./..."}} {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		if args[0] == "test" {
			t.Logf("go test -v:\n%s", out)
		}
	}
}

// TestToysDifferential compiles testdata/toys/Toys.tla, a spec made of
// constructs Room.tla does not use, and runs in a temporary module the
// same exhaustive differential test as spec/model's against the
// interpreter, for each of its cfgs.
func TestToysDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module with the go command")
	}
	in, err := gen.LoadInput(os.DirFS("testdata/toys"), "Toys.tla", "Toys.tla")
	if err != nil {
		t.Fatal(err)
	}
	in.Package = "toys"
	src, err := gen.Generate(in)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"toys/zz_toys.go": string(src), "toys/diff_test.go": toysTest}
	for _, n := range []string{"Toys.tla", "a.cfg", "b.cfg"} {
		data, err := os.ReadFile(filepath.Join("testdata/toys", n))
		if err != nil {
			t.Fatal(err)
		}
		files["toys/testdata/"+n] = string(data)
	}
	runModule(t, files)
}

const toysTest = `package toys

import (
	"os"
	"slices"
	"testing"

	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/gen/constants"
	"github.com/roomspec/roomspec/tla/value"
)

func TestDifferential(t *testing.T) {
	mods, err := tla.Load(os.DirFS("testdata"), "Toys")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.cfg", "b.cfg"} {
		text, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		conf, err := cfg.Parse(name, text)
		if err != nil {
			t.Fatal(err)
		}
		m, err := check.Build(mods, conf)
		if err != nil {
			t.Fatal(err)
		}
		var k Constants
		if err := constants.Decode(conf, &k); err != nil {
			t.Fatal(err)
		}
		c, err := NewConfig(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range conf.Invariants {
			c.Invariants = append(c.Invariants, n.Name)
		}
		for _, n := range conf.Properties {
			c.Properties = append(c.Properties, n.Name)
		}
		sp := m.Spec
		want := map[string][]string{}
		states := map[string]eval.State{}
		var queue []eval.State
		add := func(s eval.State) {
			if k := sp.Format(s); states[k] == nil {
				states[k] = s
				queue = append(queue, s)
			}
		}
		if err := sp.Init(m.Init, add); err != nil {
			t.Fatal(err)
		}
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			var succ []string
			if err := sp.Next(m.Next, s, func(u eval.State, a *eval.Action) {
				succ = append(succ, a.String()+" -> "+sp.Format(u))
				add(u)
			}); err != nil {
				t.Fatal(err)
			}
			slices.Sort(succ)
			want[sp.Format(s)] = slices.Compact(succ)
		}
		got := map[string][]string{}
		var cq []State
		c.Inits(func(s *State) bool { cq = append(cq, *s); return false })
		for len(cq) > 0 {
			s := cq[0]
			cq = cq[1:]
			k := c.Format(&s)
			if _, ok := got[k]; ok {
				continue
			}
			is, ok := states[k]
			if !ok {
				t.Fatalf("%s: compiled state unknown to the interpreter:\n%s", name, k)
			}
			for i, v := range c.Values(&s) {
				if !value.Equal(v, is[i]) {
					t.Fatalf("%s: Values differ for %s", name, Vars[i])
				}
			}
			for _, inv := range c.Invariants {
				f, _ := c.Invariant(inv)
				pf, err := sp.Formula(inv)
				if err != nil {
					t.Fatal(err)
				}
				w, err := sp.Holds(pf, is)
				if err != nil || f(&s) != w {
					t.Fatalf("%s: %s differs (%v) in\n%s", name, inv, err, k)
				}
			}
			var succ []string
			c.Next(&s, func(a Action, u *State) bool {
				succ = append(succ, c.ActionString(a)+" -> "+c.Format(u))
				for _, prop := range c.Properties {
					f, ok := c.StepProperty(prop)
					pf, err := sp.Formula(prop)
					if err != nil {
						t.Fatal(err)
					}
					box := pf.Expr.(*tla.OpApp).Args[0].(*tla.ActionBox)
					step, err := sp.ParseFormula(tla.Print(box))
					if err != nil {
						t.Fatal(err)
					}
					w, err := sp.HoldsStep(step, is, states[c.Format(u)])
					if !ok || err != nil || f(&s, u) != w {
						t.Fatalf("%s: %s differs (%v) on %s", name, prop, err, c.ActionString(a))
					}
				}
				cq = append(cq, *u)
				return false
			})
			slices.Sort(succ)
			got[k] = slices.Compact(succ)
			if !slices.Equal(got[k], want[k]) {
				t.Fatalf("%s: successors of\n%s\ncompiled:\n%v\ninterpreter:\n%v", name, k, got[k], want[k])
			}
		}
		if len(got) != len(want) || len(got) < 50 {
			t.Fatalf("%s: %d compiled states, %d interpreted", name, len(got), len(want))
		}
		t.Logf("%s: %d states agree", name, len(got))
	}
}
`
