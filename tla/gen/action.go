package gen

import (
	"fmt"
	"maps"
	"strings"

	"github.com/roomspec/roomspec/tla"
)

// actionInfo is a named sub-action of Next: the first definition entered
// below Next, as the interpreter labels successors.
type actionInfo struct {
	name, goName string
	def          *tla.OpDef
	params       []*typ
	code         string
	nondet       bool
	annots       [][2]string
	// kind and actor are the @action annotation's; wireCode the @wire
	// annotations compiled (a case of Config.AppendWire), logCode the @log
	// ones (a case of Config.AppendLog), idleCode the @idle ones (a part
	// of Config.AppendIdle).
	kind, actor                 string
	wireCode, logCode, idleCode string
}

type propKind int

const (
	propInvariant propKind = iota
	propStep
	propLiveness
)

type propInfo struct {
	name    string
	kind    propKind
	goName  string
	code    string
	skipped []string // liveness atoms gen could not compile
}

// The action compiler follows TLC's semantics of an action: conjuncts are
// taken in order; the first `x' = e` (or `x' \in S`) of a variable on a
// path assigns it, later ones test it. Which variables are assigned is
// known statically on every path, because every branch (IF, CASE,
// disjunction, \E) is compiled with its own copy of the continuation.
// Guards compile to `if !(g) { return false }` in the innermost function,
// so a failed guard abandons exactly the current path.

func (g *gen) act(cx *ctx, w *strings.Builder, e tla.Expr, k func(cx *ctx)) {
	switch n := e.(type) {
	case *tla.Junction:
		if n.Op == tla.And {
			g.actAnd(cx, w, n.Items, k)
		} else {
			g.actOr(cx, w, n.Items, k)
		}
		return
	case *tla.Bool:
		if n.Value {
			k(cx)
		} else {
			w.WriteString("return false\n")
		}
		return
	case *tla.Ident:
		if cx.lookup(n.Name) == nil && g.varIdx[n.Name] == nil {
			if def := g.defs[n.Name]; def != nil && len(def.Params) == 0 {
				g.unlabelledGuard(cx, def, n.At)
				if g.isAction(def) {
					g.actCall(cx, w, def, nil, n.At, k)
					return
				}
			}
		}
	case *tla.OpApp:
		if len(n.Prefix) == 0 {
			if def := g.defs[n.Name]; def != nil {
				g.unlabelledGuard(cx, def, n.At)
				if g.isAction(def) {
					g.actCall(cx, w, def, n.Args, n.At, k)
					return
				}
				break
			}
			g.checkArity(n)
			switch n.Name {
			case `/\`:
				g.actAnd(cx, w, n.Args, k)
				return
			case `\/`:
				g.actOr(cx, w, n.Args, k)
				return
			case "=":
				if v := g.assignable(cx, n.Args[0]); v != nil {
					val, _ := g.expr(cx, n.Args[1], v.t)
					fmt.Fprintf(w, "t.%s = %s\n", v.goName, val)
					k(assigned(cx, v))
					return
				}
			case `\in`:
				if v := g.assignable(cx, n.Args[0]); v != nil {
					g.nondet = true
					loop, c2 := g.loop(cx, "", n.Args[1])
					code, _ := c2.b.code, c2.b.t
					fmt.Fprintf(w, "%s {\nif func() bool {\nt.%s = %s\n", loop, v.goName, code)
					k(assigned(cx, v))
					w.WriteString("}() {\nreturn true\n}\n}\nreturn false\n")
					return
				}
			case "UNCHANGED":
				if cx.init {
					g.fail(n.At, "UNCHANGED in an initial predicate")
				}
				c2 := cx
				for _, v := range g.unchangedVars(n.Args[0]) {
					if c2.asg[v.name] {
						fmt.Fprintf(w, "if !%s {\nreturn false\n}\n", paren(g.eq("t."+v.goName, "s."+v.goName, v.t)))
					} else {
						fmt.Fprintf(w, "t.%s = s.%s\n", v.goName, v.goName)
						c2 = assigned(c2, v)
					}
				}
				k(c2)
				return
			}
		}
	case *tla.Quant:
		if n.Kind == tla.Exists {
			g.nondet = true
			c2 := cx
			closers := 0
			for _, bd := range n.Bounds {
				if bd.Set == nil || bd.Tuple {
					g.unsupported(bd.At, "unbounded or tuple-pattern \\E in an action")
				}
				for _, id := range bd.Names {
					var loop string
					loop, c2 = g.loop(c2, id.Name, bd.Set)
					w.WriteString(loop + " {\n")
					closers++
				}
			}
			w.WriteString("if func() bool {\n")
			g.act(c2, w, n.Body, k)
			w.WriteString("}() {\nreturn true\n}\n")
			w.WriteString(strings.Repeat("}\n", closers))
			w.WriteString("return false\n")
			return
		}
	case *tla.If:
		c, _ := g.expr(cx, n.Cond, boolT)
		fmt.Fprintf(w, "if %s {\n", c)
		g.act(cx, w, n.Then, k)
		w.WriteString("} else {\n")
		g.act(cx, w, n.Else, k)
		w.WriteString("}\n")
		return
	case *tla.Case:
		for i, arm := range n.Arms {
			c, _ := g.expr(cx, arm.Cond, boolT)
			if i > 0 {
				w.WriteString("} else ")
			}
			fmt.Fprintf(w, "if %s {\n", c)
			g.act(cx, w, arm.Val, k)
		}
		w.WriteString("} else {\n")
		if n.Other != nil {
			g.act(cx, w, n.Other, k)
		} else {
			fmt.Fprintf(w, "panic(%q)\n", g.posMsg(n.At, "no CASE arm is true and there is no OTHER"))
		}
		w.WriteString("}\n")
		return
	case *tla.Let:
		c2 := cx
		for _, d := range n.Defs {
			od, ok := d.(*tla.OpDef)
			if !ok || len(od.Params) > 0 {
				g.unsupported(d.Pos(), "LET definitions with parameters or functions")
			}
			if g.primed(od.Body, map[string]bool{}) {
				g.unsupported(od.At, "a LET definition that reads primed variables")
			}
			v := g.newTmp("l")
			code, t := g.expr(c2, od.Body, nil)
			// Lazy, as TLA+'s LET (see expr).
			fmt.Fprintf(w, "%s := func() %s {\nreturn %s\n}\n_ = %s\n", v, g.goType(t), code, v)
			c2 = c2.with(od.Name, v+"()", t)
		}
		g.act(c2, w, n.Body, k)
		return
	case *tla.ActionBox, *tla.ActionAngle:
		g.unsupported(e.Pos(), "[A]_v or <<A>>_v inside an action")
	}
	// Anything else is a guard.
	c, _ := g.expr(cx, e, boolT)
	fmt.Fprintf(w, "if !%s {\nreturn false\n}\n", paren(c))
	k(cx)
}

// unlabelledGuard rejects a state predicate entered directly below Next:
// the interpreter names the successors after the first definition it
// enters, even a guard, which gen's action methods cannot mirror.
func (g *gen) unlabelledGuard(cx *ctx, def *tla.OpDef, at tla.Pos) {
	if !cx.labelled && !cx.init && !g.isAction(def) {
		g.unsupported(at, "%s below %s assigns no primed variable (gen names successors after the first action definition below %s; write guards inside the actions)", def.Name, g.nextName, g.nextName)
	}
}

func assigned(cx *ctx, v *varInfo) *ctx {
	c := *cx
	c.asg = maps.Clone(cx.asg)
	c.asg[v.name] = true
	return &c
}

// assignable returns the variable lhs assigns, if it is x' (x in an
// initial predicate) and x is not yet assigned on this path.
func (g *gen) assignable(cx *ctx, lhs tla.Expr) *varInfo {
	if !cx.init {
		p, ok := lhs.(*tla.OpApp)
		if !ok || p.Name != "'" || len(p.Prefix) > 0 {
			return nil
		}
		lhs = p.Args[0]
	}
	id, ok := lhs.(*tla.Ident)
	if !ok || cx.lookup(id.Name) != nil {
		return nil
	}
	v := g.varIdx[id.Name]
	if v == nil || cx.asg[v.name] {
		return nil
	}
	return v
}

func (g *gen) actAnd(cx *ctx, w *strings.Builder, items []tla.Expr, k func(*ctx)) {
	if len(items) == 0 {
		k(cx)
		return
	}
	g.act(cx, w, items[0], func(c2 *ctx) { g.actAnd(c2, w, items[1:], k) })
}

func (g *gen) actOr(cx *ctx, w *strings.Builder, items []tla.Expr, k func(*ctx)) {
	g.nondet = true
	for _, it := range items {
		w.WriteString("if func() bool {\n")
		g.act(cx, w, it, k)
		w.WriteString("}() {\nreturn true\n}\n")
	}
	w.WriteString("return false\n")
}

// isAction reports whether def is action-level (reads primed variables
// or uses UNCHANGED).
func (g *gen) isAction(def *tla.OpDef) bool {
	return g.primed(def.Body, map[string]bool{})
}

// actCall enters the action def. Below Next the first such definition
// names the successor: it becomes an action method called with a
// labelled yield. Deeper ones are inlined.
func (g *gen) actCall(cx *ctx, w *strings.Builder, def *tla.OpDef, args []tla.Expr, at tla.Pos, k func(*ctx)) {
	if len(args) != len(def.Params) {
		g.fail(at, "%s takes %d arguments, got %d", def.Name, len(def.Params), len(args))
	}
	var codes []string
	var types []*typ
	a := g.actByName[def.Name]
	for i, arg := range args {
		if def.Params[i].Arity > 0 {
			g.unsupported(arg.Pos(), "operator arguments")
		}
		var want *typ
		if a != nil {
			want = a.params[i]
		}
		c, t := g.expr(cx, arg, want)
		v := g.newTmp("a")
		fmt.Fprintf(w, "%s := %s\n", v, c)
		codes = append(codes, v)
		types = append(types, t)
	}
	if cx.labelled || cx.init {
		// Inline: bind the parameters and go on.
		c2 := cx.defCtx()
		c2.labelled = cx.labelled
		for i, p := range def.Params {
			c2 = c2.with(p.Name, codes[i], types[i])
		}
		g.act(c2, w, def.Body, func(c3 *ctx) {
			c4 := *cx
			c4.asg = c3.asg
			k(&c4)
		})
		return
	}
	if len(cx.asg) > 0 {
		g.unsupported(at, "an action below Next after some variables were assigned")
	}
	if a == nil {
		a = g.compileAction(def, types)
	}
	var ps []string
	for i, c := range codes {
		switch types[i].kind {
		case tBool:
			ps = append(ps, "specrt.B2I("+c+")")
		case tInt, tStr, tElem:
			ps = append(ps, "int("+c+")")
		default:
			g.unsupported(args[i].Pos(), "an action parameter of type %s (integers, strings, booleans and domain elements only)", types[i])
		}
	}
	all := append([]string{"s", "t"}, codes...)
	fmt.Fprintf(w, "if c.act%s(%s, func(t *State) bool {\nreturn yield(Action{ID: Act%s, Params: [MaxParams]int{%s}}, t)\n}) {\nreturn true\n}\n",
		a.goName, strings.Join(all, ", "), a.goName, strings.Join(ps, ", "))
	// The action method yields complete successors; nothing follows.
	w.WriteString("return false\n")
	_ = k
}

func (g *gen) compileAction(def *tla.OpDef, types []*typ) *actionInfo {
	a := &actionInfo{name: def.Name, goName: exported(def.Name), def: def, params: types}
	a.annots = tla.Annotations(g.mod.Doc(def))
	g.actByName[def.Name] = a
	g.actions = append(g.actions, a)
	if len(types) > g.maxParams {
		g.maxParams = len(types)
	}
	saved := g.nondet
	g.nondet = false
	cx := &ctx{g: g, s: "s", t: "t", asg: map[string]bool{}, labelled: true}
	var sig []string
	for i, p := range def.Params {
		v := "p_" + p.Name
		cx = cx.with(p.Name, v, types[i])
		sig = append(sig, v+" "+g.goType(types[i]))
	}
	var w strings.Builder
	fmt.Fprintf(&w, "func (c *Config) act%s(s, t *State, %s yield func(*State) bool) bool {\n", a.goName, strings.Join(append(sig, ""), ", "))
	g.act(cx, &w, def.Body, func(c2 *ctx) {
		for _, v := range g.vars {
			if !c2.asg[v.name] {
				g.fail(def.At, "action %s does not assign %s' on some path", def.Name, v.name)
			}
		}
		w.WriteString("if yield(t) {\nreturn true\n}\nreturn false\n")
	})
	w.WriteString("}\n")
	a.nondet = g.nondet
	g.nondet = saved
	a.code = w.String()
	return a
}

func (g *gen) compileNext() {
	def := g.defs[g.nextName]
	cx := &ctx{g: g, s: "s", t: "t", asg: map[string]bool{}}
	var w strings.Builder
	g.act(cx, &w, def.Body, func(c2 *ctx) {
		g.unsupported(def.At, "a disjunct of %s that is not a named action (write it as a definition)", g.nextName)
	})
	g.nextCode = w.String()
	if len(g.actions) == 0 {
		g.fail(def.At, "%s has no actions", g.nextName)
	}
}

func (g *gen) compileInit() {
	def := g.defs[g.initName]
	cx := &ctx{g: g, asg: map[string]bool{}, init: true}
	var w strings.Builder
	g.nondet = false
	g.act(cx, &w, def.Body, func(c2 *ctx) {
		for _, v := range g.vars {
			if !c2.asg[v.name] {
				g.fail(def.At, "%s does not assign %s", g.initName, v.name)
			}
		}
		w.WriteString("if yield(&t) {\nreturn true\n}\nreturn false\n")
	})
	g.initDet = !g.nondet
	g.initCode = w.String()
}

// compileProperties compiles the invariants and properties the
// configurations name: state predicates, [][A]_v step predicates, and
// for liveness properties the state predicates under their quantifiers.
func (g *gen) compileProperties() {
	seen := map[string]bool{}
	for _, c := range g.in.Configs {
		for _, n := range c.Invariants {
			if seen[n.Name] {
				continue
			}
			seen[n.Name] = true
			def := g.defs[n.Name]
			if def == nil || len(def.Params) > 0 {
				panic(&Error{File: c.File, Pos: n.Pos, Msg: "INVARIANT " + n.Name + " is not a definition without parameters"})
			}
			g.props = append(g.props, g.stateProp(def))
		}
		for _, n := range c.Properties {
			if seen[n.Name] {
				continue
			}
			seen[n.Name] = true
			def := g.defs[n.Name]
			if def == nil || len(def.Params) > 0 {
				panic(&Error{File: c.File, Pos: n.Pos, Msg: "PROPERTY " + n.Name + " is not a definition without parameters"})
			}
			g.props = append(g.props, g.temporalProp(def))
		}
	}
}

func (g *gen) stateProp(def *tla.OpDef) *propInfo {
	cx := &ctx{g: g, s: "s"}
	if g.primed(def.Body, map[string]bool{}) {
		g.fail(def.At, "invariant %s reads primed variables", def.Name)
	}
	code, t := g.callOp(cx, def, nil, def.At)
	if t.kind != tBool {
		g.fail(def.At, "invariant %s is not a predicate", def.Name)
	}
	return &propInfo{name: def.Name, kind: propInvariant, goName: exported(def.Name), code: code}
}

func (g *gen) temporalProp(def *tla.OpDef) *propInfo {
	if op, ok := def.Body.(*tla.OpApp); ok && op.Name == "[]" {
		switch x := op.Args[0].(type) {
		case *tla.ActionBox:
			cx := &ctx{g: g, s: "s", t: "t"}
			a, _ := g.expr(cx, x.Action, boolT)
			var parts []string
			for _, v := range g.unchangedVars(x.Sub) {
				parts = append(parts, g.eq("s."+v.goName, "t."+v.goName, v.t))
			}
			code := fmt.Sprintf("%sfunc (c *Config) %s(s, t *State) bool {\n\treturn %s || (%s)\n}\n",
				g.docOf(def, exported(def.Name)), exported(def.Name), a, strings.Join(parts, " && "))
			return &propInfo{name: def.Name, kind: propStep, goName: exported(def.Name), code: code}
		default:
			if !g.primed(x, map[string]bool{}) && !temporal(x) {
				cx := &ctx{g: g, s: "s"}
				p, _ := g.expr(cx, x, boolT)
				code := fmt.Sprintf("%sfunc (c *Config) %s(s *State) bool {\n\treturn %s\n}\n", g.docOf(def, exported(def.Name)), exported(def.Name), p)
				return &propInfo{name: def.Name, kind: propInvariant, goName: exported(def.Name), code: code}
			}
		}
	}
	// Liveness stays with the checker; compile the state predicates it
	// is made of, so that tests and the conformance suite can use them.
	// An atom outside gen's subset is skipped (and listed in the
	// generated file): nothing generated depends on it.
	p := &propInfo{name: def.Name, kind: propLiveness}
	g.skipping(p, func() { g.livenessAtoms(&ctx{g: g, s: "s"}, def.Body, p) })
	return p
}

func temporal(e tla.Expr) bool {
	found := false
	tla.Inspect(e, func(n tla.Node) bool {
		switch x := n.(type) {
		case *tla.OpApp:
			switch x.Name {
			case "[]", "<>", "~>", "-+->":
				found = true
			}
		case *tla.Fairness:
			found = true
		}
		return !found
	})
	return found
}

// atom compiles a state predicate of a liveness property for its side
// effect (operator methods), skipping it when gen cannot compile it.
func (g *gen) atom(cx *ctx, e tla.Expr, p *propInfo) {
	if temporal(e) {
		return
	}
	if g.primed(e, map[string]bool{}) {
		p.skipped = append(p.skipped, g.posMsg(e.Pos(), "an action-level formula: "+short(tla.Print(e))))
		return
	}
	g.skipping(p, func() { g.expr(cx, e, boolT) })
}

// skipping runs f; an error of gen in f is recorded in p, not raised.
func (g *gen) skipping(p *propInfo, f func()) {
	defer func() {
		if r := recover(); r != nil {
			err, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			p.skipped = append(p.skipped, err.Error())
		}
	}()
	f()
}

func (g *gen) livenessAtoms(cx *ctx, e tla.Expr, p *propInfo) {
	switch n := e.(type) {
	case *tla.Quant:
		c2 := cx
		for _, bd := range n.Bounds {
			if bd.Set == nil || bd.Tuple {
				return
			}
			for _, id := range bd.Names {
				_, c2 = g.loop(c2, id.Name, bd.Set)
			}
		}
		g.livenessAtoms(c2, n.Body, p)
	case *tla.OpApp:
		switch n.Name {
		case "[]", "<>", "~>", `/\`, `\/`, "=>", "~":
			for _, a := range n.Args {
				g.livenessAtoms(cx, a, p)
			}
			return
		}
		g.atom(cx, n, p)
	case *tla.Junction:
		for _, it := range n.Items {
			g.livenessAtoms(cx, it, p)
		}
	case *tla.FuncApp, *tla.Ident:
		g.atom(cx, n, p)
	}
}
