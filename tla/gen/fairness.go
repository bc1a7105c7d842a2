package gen

import (
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/tla"
)

// compileFairness compiles the fairness conjuncts of the specification
// formula (Init /\ [][Next]_v /\ F1 /\ ...) into Config.FairActions: each
// WF_v(A(args)) or SF_v(A(args)), under \A quantifiers, conjunctions and
// definitions, appends the action instance A(args) for each binding of
// the quantifiers. A fairness formula of another shape is outside gen's
// subset. Configurations without SPECIFICATION have no fairness.
func (g *gen) compileFairness() {
	if g.specName == "" {
		return
	}
	def := g.defs[g.specName]
	items := []tla.Expr{def.Body}
	if j, ok := def.Body.(*tla.Junction); ok && j.Op == tla.And {
		items = j.Items
	}
	var w strings.Builder
	cx := &ctx{g: g}
	for _, it := range items {
		switch x := it.(type) {
		case *tla.Ident:
			if x.Name == g.initName {
				continue
			}
		case *tla.OpApp:
			if x.Name == "[]" {
				continue
			}
		}
		g.fair(cx, &w, it)
	}
	g.fairCode = w.String()
}

func (g *gen) fair(cx *ctx, w *strings.Builder, e tla.Expr) {
	switch n := e.(type) {
	case *tla.Junction:
		if n.Op == tla.And {
			for _, it := range n.Items {
				g.fair(cx, w, it)
			}
			return
		}
	case *tla.OpApp:
		if n.Name == `/\` && len(n.Prefix) == 0 {
			for _, it := range n.Args {
				g.fair(cx, w, it)
			}
			return
		}
	case *tla.Ident:
		if d := g.defs[n.Name]; d != nil && len(d.Params) == 0 && cx.lookup(n.Name) == nil {
			g.fair(cx, w, d.Body)
			return
		}
	case *tla.Quant:
		if n.Kind == tla.Forall {
			c2 := cx
			closers := 0
			for _, bd := range n.Bounds {
				if bd.Set == nil || bd.Tuple {
					break
				}
				for _, id := range bd.Names {
					var loop string
					loop, c2 = g.loop(c2, id.Name, bd.Set)
					w.WriteString(loop + " {\n")
					closers++
				}
			}
			g.fair(c2, w, n.Body)
			w.WriteString(strings.Repeat("}\n", closers))
			return
		}
	case *tla.Fairness:
		g.fairAction(cx, w, n.Action)
		return
	}
	g.unsupported(e.Pos(), "%s as a fairness conjunct of %s (gen reads WF_v(A(args)) and SF_v(A(args)) under \\A and /\\)", short(tla.Print(e)), g.specName)
}

// fairAction appends the instance of the action A(args) a fairness
// formula names.
func (g *gen) fairAction(cx *ctx, w *strings.Builder, e tla.Expr) {
	name, args := "", []tla.Expr(nil)
	switch x := e.(type) {
	case *tla.Ident:
		name = x.Name
	case *tla.OpApp:
		if len(x.Prefix) == 0 {
			name, args = x.Name, x.Args
		}
	}
	a := g.actByName[name]
	if a == nil {
		g.unsupported(e.Pos(), "fairness of %s, which is not an action %s names", short(tla.Print(e)), g.nextName)
	}
	if len(args) != len(a.params) {
		g.fail(e.Pos(), "%s takes %d arguments, got %d", name, len(a.params), len(args))
	}
	var ps []string
	for i, arg := range args {
		c, _ := g.expr(cx, arg, a.params[i])
		if a.params[i].kind == tBool {
			c = "specrt.B2I(" + c + ")"
		} else {
			c = "int(" + c + ")"
		}
		ps = append(ps, c)
	}
	fmt.Fprintf(w, "buf = append(buf, Action{ID: Act%s, Params: [MaxParams]int{%s}})\n", a.goName, strings.Join(ps, ", "))
}
