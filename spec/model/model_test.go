package model_test

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/spec"
	"github.com/roomspec/roomspec/spec/model"
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/check"
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// variant loads a bundled cfg for both the interpreter and the compiled
// model.
func variant(tb testing.TB, name string) (*check.Model, *model.Config) {
	tb.Helper()
	v, err := spec.Load(name)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := v.Model()
	if err != nil {
		tb.Fatal(err)
	}
	c, err := v.Compiled()
	if err != nil {
		tb.Fatal(err)
	}
	return m, c
}

// graph is an explored state graph: each state's printed form mapped to
// its successors as "action -> printed successor".
type graph map[string][]string

func exploreInterp(tb testing.TB, m *check.Model, states map[string]eval.State) graph {
	sp := m.Spec
	g := graph{}
	// Each state is printed once: printing is much of the interpreter's
	// share of the test's time.
	var queue []string
	add := func(s eval.State, k string) {
		if _, ok := g[k]; !ok {
			g[k] = nil
			states[k] = s
			queue = append(queue, k)
		}
	}
	if err := sp.Init(m.Init, func(s eval.State) { add(s, sp.Format(s)) }); err != nil {
		tb.Fatal(err)
	}
	for len(queue) > 0 {
		k := queue[0]
		queue = queue[1:]
		var succ []string
		err := sp.Next(m.Next, states[k], func(t eval.State, a *eval.Action) {
			tk := sp.Format(t)
			succ = append(succ, a.String()+" -> "+tk)
			add(t, tk)
		})
		if err != nil {
			tb.Fatal(err)
		}
		slices.Sort(succ)
		g[k] = slices.Compact(succ)
	}
	return g
}

func exploreCompiled(c *model.Config, visit func(s *model.State, succ []model.State, acts []model.Action)) graph {
	g := graph{}
	var queue []model.State
	var keys []string
	add := func(s model.State, k string) {
		if _, ok := g[k]; !ok {
			g[k] = nil
			queue = append(queue, s)
			keys = append(keys, k)
		}
	}
	c.Inits(func(s *model.State) bool { add(*s, c.Format(s)); return false })
	for len(queue) > 0 {
		s, k := queue[0], keys[0]
		queue, keys = queue[1:], keys[1:]
		var succ []string
		var ts []model.State
		var as []model.Action
		c.Next(&s, func(a model.Action, t *model.State) bool {
			tk := c.Format(t)
			succ = append(succ, c.ActionString(a)+" -> "+tk)
			ts = append(ts, *t)
			as = append(as, a)
			add(*t, tk)
			return false
		})
		if visit != nil {
			visit(&s, ts, as)
		}
		slices.Sort(succ)
		g[k] = slices.Compact(succ)
	}
	return g
}

// TestDifferential explores every bundled cfg exhaustively with the
// interpreter and with the compiled model: the reachable states must be
// the same, and so must every state's successors with their actions.
// Then the invariants and [][A]_v properties must agree on the states and
// steps (see propertiesAgree).
func TestDifferential(t *testing.T) {
	for _, name := range spec.Variants() {
		t.Run(name, func(t *testing.T) {
			m, c := variant(t, name)
			states := map[string]eval.State{}
			want := exploreInterp(t, m, states)
			got := exploreCompiled(c, nil)
			if len(got) != len(want) {
				t.Errorf("compiled: %d states, interpreter: %d", len(got), len(want))
			}
			bad := 0
			for k, ws := range want {
				gs, ok := got[k]
				switch {
				case !ok:
					t.Errorf("state reached only by the interpreter:\n%s", k)
				case !slices.Equal(gs, ws):
					t.Errorf("successors differ from\n%s\ncompiled:\n%v\ninterpreter:\n%v", k, gs, ws)
				default:
					continue
				}
				if bad++; bad > 3 {
					t.FailNow()
				}
			}
			t.Logf("%d states agree", len(want))
			propertiesAgree(t, m, c, states)
		})
	}
}

// propertiesAgree evaluates every invariant on the reachable states and
// every [][A]_v property on their steps with both engines.
func propertiesAgree(t *testing.T, m *check.Model, c *model.Config, states map[string]eval.State) {
	sp := m.Spec
	steps := stepFormulas(t, sp, c.Properties)
	checked := 0
	// The interpreter evaluates a step property in ~100 us: on the
	// two cfgs with ~30,000 states (~100,000 steps) every 10th
	// state is checked, the others are checked exhaustively.
	stride, n := 1, 0
	if len(states) > 5000 {
		stride = 10
	}
	exploreCompiled(c, func(s *model.State, succ []model.State, _ []model.Action) {
		is := states[c.Format(s)]
		// Values is the interpreter's state, value for value.
		vs := c.Values(s)
		for i := range vs {
			if !value.Equal(vs[i], is[i]) {
				t.Fatalf("Values: %s = %s, interpreter %s", model.Vars[i], value.Format(vs[i]), value.Format(is[i]))
			}
		}
		if n++; n%stride != 0 {
			return
		}
		for _, name := range c.Invariants {
			f, ok := c.Invariant(name)
			if !ok {
				t.Fatalf("no compiled invariant %s", name)
			}
			inv, err := sp.Formula(name)
			if err != nil {
				t.Fatal(err)
			}
			want, err := sp.Holds(inv, is)
			if err != nil {
				t.Fatal(err)
			}
			if got := f(s); got != want {
				t.Fatalf("%s = %v, interpreter %v in\n%s", name, got, want, c.Format(s))
			}
			checked++
		}
		for name, step := range steps {
			f, ok := c.StepProperty(name)
			if !ok {
				t.Fatalf("no compiled step property %s", name)
			}
			for i := range succ {
				it := states[c.Format(&succ[i])]
				want, err := sp.HoldsStep(step, is, it)
				if err != nil {
					t.Fatal(err)
				}
				if got := f(s, &succ[i]); got != want {
					t.Fatalf("%s = %v, interpreter %v on\n%s\n->\n%s", name, got, want, c.Format(s), c.Format(&succ[i]))
				}
				checked++
			}
		}
	})
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// TestHashAndEqual: on the reachable states of the largest cfg, Equal
// agrees with the printed form and Hash has no collision.
func TestHashAndEqual(t *testing.T) {
	_, c := variant(t, "fixed-reuse")
	byHash := map[uint64]model.State{}
	n := 0
	exploreCompiled(c, func(s *model.State, succ []model.State, _ []model.Action) {
		n++
		h := s.Hash()
		if o, ok := byHash[h]; ok {
			if !o.Equal(s) {
				t.Fatalf("hash collision:\n%s\n%s", c.Format(&o), c.Format(s))
			}
			t.Fatalf("state explored twice:\n%s", c.Format(s))
		}
		byHash[h] = *s
		for i := range succ {
			eq, sameHash := succ[i].Equal(s), succ[i].Hash() == h
			if eq != sameHash || eq != (c.Format(&succ[i]) == c.Format(s)) && (eq || sameHash) {
				t.Fatalf("Equal %v, same hash %v for\n%s\n->\n%s", eq, sameHash, c.Format(s), c.Format(&succ[i]))
			}
		}
	})
	if n < 1000 {
		t.Fatalf("only %d states", n)
	}
}

// Every reachable state of upstream-reuse is read back as written, in
// ITF and in plain JSON; ITF prints model values as strings and tuples as
// #tup.
func TestReadWriteState(t *testing.T) {
	_, c := variant(t, "upstream-reuse")
	n := 0
	exploreCompiled(c, func(s *model.State, _ []model.State, _ []model.Action) {
		var b strings.Builder
		c.WriteITF(&b, s, n)
		back, err := c.ReadITFState([]byte(b.String()))
		if err != nil || !back.Equal(s) {
			t.Fatalf("ITF %s read back as %v (%v)", b.String(), c.Format(&back), err)
		}
		if n == 0 {
			var v map[string]any
			if err := json.Unmarshal([]byte(b.String()), &v); err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(v["sender"])
			if want := "map[#map:[[map[#tup:[r map[#bigint:1]]] NoSender] [map[#tup:[r map[#bigint:2]]] NoSender]]]"; got != want {
				t.Errorf("sender in ITF = %s, want %s", got, want)
			}
		}
		plain, err := json.Marshal(plainState(c, s))
		if err != nil {
			t.Fatal(err)
		}
		back, err = c.ReadState(plain)
		if err != nil || !back.Equal(s) {
			t.Fatalf("JSON %s read back as %v (%v)", plain, c.Format(&back), err)
		}
		n++
	})
	for _, bad := range []string{
		`{}`, `[]`, `{"request_status": 1}`,
		`{"#meta":{},"request_status":["Absent"]}`,
	} {
		if _, err := c.ReadState([]byte(bad)); err == nil {
			t.Errorf("ReadState(%s) = nil error", bad)
		}
	}
}

// plainState is s in the plain JSON form of conformance/PROTOCOL.md,
// written by hand for the test: indices for elements, lists for sets.
func plainState(c *model.Config, s *model.State) map[string]any {
	idx := func(set uint64) []int {
		out := []int{}
		for i := 0; i < 64; i++ {
			if set&(1<<i) != 0 {
				out = append(out, i)
			}
		}
		return out
	}
	sets := func(xs []uint64) [][]int {
		var out [][]int
		for _, x := range xs {
			out = append(out, idx(x))
		}
		return out
	}
	strs := func(xs []model.Str) []string {
		var out []string
		for _, x := range xs {
			out = append(out, x.String())
		}
		return out
	}
	msgs := func(ch [][]model.Msg) [][]map[string]any {
		out := [][]map[string]any{}
		for _, ms := range ch {
			l := []map[string]any{}
			for _, m := range ms {
				l = append(l, map[string]any{"type": m.Type.String(), "room": m.Room, "rank": m.Rank})
			}
			out = append(out, l)
		}
		return out
	}
	batches := func(bs []model.Batch) []map[string]any {
		out := []map[string]any{}
		for _, b := range bs {
			out = append(out, map[string]any{"req": b.Req, "left": b.Left})
		}
		return out
	}
	return map[string]any{
		"request_status": strs(s.RequestStatus), "transfer_infos": sets(s.TransferInfos), "tombstones": idx(s.Tombstones),
		"bootstrap_alive": s.BootstrapAlive, "prefill_crashed": s.PrefillCrashed, "sender": strs(s.Sender),
		"outstanding": s.Outstanding, "ack_target": sets(s.AckTarget), "wqueue": batches(s.Wqueue),
		"posted": s.Posted, "elapsed": s.Elapsed, "kv_held": s.KvHeld, "kv_frees": s.KvFrees,
		"chan": msgs(s.Chan), "ack_chan": msgs(s.AckChan),
		"ti_sent": sets(s.TiSent), "aborted": s.Aborted, "pages_released": sets(s.PagesReleased),
	}
}

// stepFormulas returns, for each property [][A]_v among names, the
// interpreter's formula [A]_v.
func stepFormulas(tb testing.TB, sp *eval.Spec, names []string) map[string]*eval.Formula {
	out := map[string]*eval.Formula{}
	for _, n := range names {
		f, err := sp.Formula(n)
		if err != nil {
			tb.Fatal(err)
		}
		op, ok := f.Expr.(*tla.OpApp)
		if !ok || op.Name != "[]" {
			continue
		}
		box, ok := op.Args[0].(*tla.ActionBox)
		if !ok {
			continue
		}
		if out[n], err = sp.ParseFormula(tla.Print(box)); err != nil {
			tb.Fatal(err)
		}
	}
	if len(names) > 0 && len(out) == 0 {
		tb.Fatalf("no [][A]_v among %v", names)
	}
	return out
}

// The compiled model runs without the TLA+ front end: neither the parser
// (tla) nor the configuration reader (tla/cfg) is among what it links.
func TestImportsNoFrontEnd(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/roomspec/roomspec/tla/gen/specrt") {
		t.Fatalf("go list -deps does not list specrt: %v", deps)
	}
	for _, front := range []string{"github.com/roomspec/roomspec/tla", "github.com/roomspec/roomspec/tla/cfg"} {
		if slices.Contains(deps, front) {
			t.Errorf("spec/model links %s", front)
		}
	}
}
