package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/tla"
)

// binding is a name bound by a quantifier, function constructor, LET or
// operator parameter: a Go expression of a type.
type binding struct {
	name, code string
	t          *typ
	parent     *binding
}

// ctx is where an expression is compiled.
type ctx struct {
	g *gen
	b *binding
	// s and t are the Go expressions (pointers) of the current and next
	// state; "" where there is none (constants; state predicates).
	s, t string
	// asg, in an action, lists the variables whose primed value is
	// already assigned; nil means every primed variable may be read.
	asg map[string]bool
	// at is @ in an EXCEPT update.
	at  string
	atT *typ
	// init: compiling an initial predicate, where unprimed variables are
	// the ones being assigned.
	init bool
	// labelled: inside an action method; deeper actions are inlined.
	labelled bool
}

func (cx *ctx) with(name, code string, t *typ) *ctx {
	c := *cx
	c.b = &binding{name: name, code: code, t: t, parent: cx.b}
	return &c
}

func (cx *ctx) lookup(name string) *binding {
	for b := cx.b; b != nil; b = b.parent {
		if b.name == name {
			return b
		}
	}
	return nil
}

// defCtx is the context a definition's body is compiled in: only its own
// parameters are bound.
func (cx *ctx) defCtx() *ctx {
	c := *cx
	c.b = nil
	c.at, c.atT = "", nil
	return &c
}

// expr compiles e to a Go expression; want, if not nil, is the type the
// context expects (it types empty sets, empty sequences, records and
// tuples).
func (g *gen) expr(cx *ctx, e tla.Expr, want *typ) (string, *typ) {
	code, t := g.expr1(cx, e, want)
	if want != nil && !sameType(t, want) {
		// An element of a product domain is also a tuple: convert.
		g.fail(e.Pos(), "%s has type %s where %s is expected", tla.Print(e), t, want)
	}
	return code, t
}

func (g *gen) expr1(cx *ctx, e tla.Expr, want *typ) (string, *typ) {
	switch n := e.(type) {
	case *tla.Bool:
		if n.Value {
			return "true", boolT
		}
		return "false", boolT
	case *tla.Num:
		if _, err := strconv.ParseInt(n.Value, 10, 64); err != nil {
			g.unsupported(n.At, "number %s", n.Value)
		}
		return n.Value, intT
	case *tla.Str:
		g.strs[n.Value] = true
		return strConst(n.Value), strT
	case *tla.AtSign:
		if cx.at == "" {
			g.fail(n.At, "@ outside an EXCEPT")
		}
		return cx.at, cx.atT
	case *tla.Ident:
		return g.ident(cx, n, want)
	case *tla.OpApp:
		return g.opApp(cx, n, want)
	case *tla.Junction:
		op := " && "
		if n.Op == tla.Or {
			op = " || "
		}
		var parts []string
		for _, it := range n.Items {
			c, _ := g.expr(cx, it, boolT)
			if c == "true" && n.Op == tla.And {
				continue
			}
			parts = append(parts, c)
		}
		if len(parts) == 0 {
			return "true", boolT
		}
		return "(" + strings.Join(parts, op) + ")", boolT
	case *tla.If:
		c, _ := g.expr(cx, n.Cond, boolT)
		a, at := g.expr(cx, n.Then, want)
		b, _ := g.expr(cx, n.Else, at)
		return fmt.Sprintf("func() %s { if %s { return %s }; return %s }()", g.goType(at), c, a, b), at
	case *tla.Case:
		var rt *typ = want
		var arms []string
		var conds []string
		for _, arm := range n.Arms {
			c, _ := g.expr(cx, arm.Cond, boolT)
			v, vt := g.expr(cx, arm.Val, rt)
			rt = vt
			conds = append(conds, c)
			arms = append(arms, v)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "func() %s { ", g.goType(rt))
		for i := range arms {
			fmt.Fprintf(&b, "if %s { return %s }; ", conds[i], arms[i])
		}
		if n.Other != nil {
			v, _ := g.expr(cx, n.Other, rt)
			fmt.Fprintf(&b, "return %s }()", v)
		} else {
			fmt.Fprintf(&b, "panic(%q) }()", g.posMsg(n.At, "no CASE arm is true and there is no OTHER"))
		}
		return b.String(), rt
	case *tla.Let:
		var b strings.Builder
		c2 := cx
		var decls []string
		for _, d := range n.Defs {
			od, ok := d.(*tla.OpDef)
			if !ok || len(od.Params) > 0 {
				g.unsupported(d.Pos(), "LET definitions with parameters or functions")
			}
			v := g.newTmp("l")
			code, t := g.expr(c2, od.Body, nil)
			// LET binds lazily, as TLA+ does: a definition is evaluated
			// where it is used (it may fail where it is not).
			decls = append(decls, fmt.Sprintf("%s := func() %s { return %s }; _ = %s; ", v, g.goType(t), code, v))
			c2 = c2.with(od.Name, v+"()", t)
		}
		body, bt := g.expr(c2, n.Body, want)
		fmt.Fprintf(&b, "func() %s { %s return %s }()", g.goType(bt), strings.Join(decls, ""), body)
		return b.String(), bt
	case *tla.Quant:
		return g.quant(cx, n)
	case *tla.FuncApp:
		return g.funcApp(cx, n)
	case *tla.FieldAccess:
		r, rt := g.expr(cx, n.Rec, nil)
		if rt.kind != tRec {
			g.fail(n.At, "%s is not a record", tla.Print(n.Rec))
		}
		for _, f := range rt.fields {
			if f.name == n.Field {
				return r + "." + f.goName, f.t
			}
		}
		g.fail(n.At, "record %s has no field %s", rt.name, n.Field)
	case *tla.RecordCons:
		return g.recordCons(cx, n, want)
	case *tla.Tuple:
		return g.tuple(cx, n, want)
	case *tla.SetEnum:
		return g.setEnum(cx, n, want)
	case *tla.Except:
		return g.except(cx, n)
	case *tla.FuncCons:
		return g.funcCons(cx, n, want)
	case *tla.SetFilter:
		return g.setFilter(cx, n)
	}
	g.unsupported(e.Pos(), "%s (%s)", nodeName(e), short(tla.Print(e)))
	return "", nil
}

func nodeName(e tla.Expr) string {
	switch e.(type) {
	case *tla.Choose:
		return "CHOOSE"
	case *tla.SetFilter:
		return "set filter {x \\in S : P}"
	case *tla.SetMap:
		return "set map {e : x \\in S}"
	case *tla.Lambda:
		return "LAMBDA"
	case *tla.FuncSet:
		return "a function set as a value"
	case *tla.RecordSet:
		return "a record set as a value"
	case *tla.Cross:
		return "a Cartesian product as a value"
	case *tla.ActionBox, *tla.ActionAngle:
		return "an action subscript here"
	case *tla.Fairness:
		return "fairness"
	}
	return fmt.Sprintf("%T", e)
}

func short(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

func (g *gen) posMsg(pos tla.Pos, msg string) string {
	return (&Error{File: g.file, Pos: pos, Msg: msg}).Error()
}

func strConst(s string) string {
	var b strings.Builder
	b.WriteString("Str")
	for _, r := range s {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "_%x", r)
		}
	}
	return b.String()
}

// use returns what the name n (an *Ident or *OpApp) stands for, as the
// resolver bound it.
func (g *gen) use(n tla.Expr) *tla.Symbol {
	u, ok := g.info.Use(n)
	if !ok {
		name := tla.Print(n)
		switch x := n.(type) {
		case *tla.Ident:
			name = x.Name
		case *tla.OpApp:
			name = x.Name
		}
		g.fail(n.Pos(), "%s is not defined", name)
	}
	if len(u.Path) > 0 || u.Selector {
		g.unsupported(n.Pos(), "module-qualified names")
	}
	return u.Symbol
}

func (g *gen) ident(cx *ctx, n *tla.Ident, want *typ) (string, *typ) {
	s := g.use(n)
	if s.Local {
		// Names in scope are distinct (the resolver rejects a name
		// declared again), so the binding of the name is the symbol's.
		b := cx.lookup(s.Name)
		if b == nil {
			g.unsupported(n.At, "%s (a %s) here", n.Name, s.Kind)
		}
		return b.code, b.t
	}
	switch s.Kind {
	case tla.SymVariable:
		v := g.varIdx[s.Name]
		if cx.s == "" && !cx.init {
			g.fail(n.At, "variable %s in a constant expression", n.Name)
		}
		if cx.init {
			if !cx.asg[n.Name] {
				g.fail(n.At, "%s is read before the initial predicate assigns it", n.Name)
			}
			return "t." + v.goName, v.t
		}
		return cx.s + "." + v.goName, v.t
	case tla.SymConstant:
		switch g.consts[n.Name] {
		case cInt:
			return "c." + exported(n.Name), intT
		case cBool:
			return "c." + exported(n.Name), boolT
		case cModelSet:
			d := g.domains[n.Name]
			d.inSet = true
			return "c." + d.field + ".All()", &typ{kind: tSet, elem: d.elemType()}
		case cIntSet:
			return "c." + exported(n.Name), &typ{kind: tIntSet, dom: g.domains[n.Name]}
		}
		g.unsupported(n.At, "constant %s of this kind", n.Name)
	case tla.SymBuiltin:
		switch s.Builtin.Op {
		case tla.OpBoolean, tla.OpNat, tla.OpInt, tla.OpString:
			g.unsupported(n.At, "%s as a value (only on the right of \\in)", n.Name)
		}
		g.unsupported(n.At, "%s as a value", n.Name)
	case tla.SymDefinition:
		def, ok := s.Decl.(*tla.OpDef)
		if !ok || g.defs[s.Name] != def {
			g.unsupported(n.At, "%s as a value", n.Name)
		}
		if !g.refsVars(def.Body, map[string]bool{}) {
			return g.constRef(n)
		}
		return g.callOp(cx, def, nil, n.At)
	}
	g.unsupported(n.At, "%s as a value", n.Name)
	return "", nil
}

// constRef refers to a constant-level definition, computed in LoadConfig.
func (g *gen) constRef(n *tla.Ident) (string, *typ) {
	def := g.defs[n.Name]
	if _, ok := def.Body.(*tla.Cross); ok {
		d := g.domainOf(n)
		d.inSet = true
		return "c." + d.field + ".All()", &typ{kind: tSet, elem: d.elemType()}
	}
	if g.isIntSetExpr(def.Body) {
		d := g.domainOf(n)
		return "c." + d.field, &typ{kind: tIntSet, dom: d}
	}
	switch def.Body.(type) {
	case *tla.RecordSet, *tla.FuncSet:
		g.unsupported(n.At, "%s as a value (record and function sets only on the right of \\in)", n.Name)
	}
	cd := g.registerConstDef(n.Name, nil, nil)
	return "c." + cd.goName, cd.t
}

// callOp calls a user operator compiled to a method (the resolver saw
// that it is given as many arguments as it takes).
func (g *gen) callOp(cx *ctx, def *tla.OpDef, args []tla.Expr, at tla.Pos) (string, *typ) {
	first := g.ops[def.Name]
	var codes []string
	var types []*typ
	key := def.Name + "("
	for i, a := range args {
		if def.Params[i].Arity > 0 {
			g.unsupported(a.Pos(), "operator arguments (%s's parameter %s)", def.Name, def.Params[i].Name)
		}
		// Arguments typed by their context ({}, << >>, records) take
		// the type of the first instance's parameter.
		var want *typ
		if first != nil && needsWant(a) {
			want = first.params[i]
		}
		c, t := g.expr(cx, a, want)
		codes = append(codes, c)
		types = append(types, t)
		key += t.key() + ";"
	}
	// An operator becomes one method per list of argument types.
	inst := g.opInsts[key]
	if inst == nil {
		inst = g.instantiate(def, types, key)
	}
	if inst.primed {
		if cx.t == "" {
			g.fail(at, "%s reads primed variables; it is used where there is no next state", def.Name)
		}
		if cx.asg != nil {
			g.unsupported(at, "%s reads primed variables inside an action (inline it)", def.Name)
		}
	}
	st := cx.s
	if st == "" {
		st = "nil"
	}
	all := []string{st}
	if inst.primed {
		all = append(all, cx.t)
	}
	all = append(all, codes...)
	return fmt.Sprintf("c.%s(%s)", inst.goName, strings.Join(all, ", ")), inst.result
}

// instantiate compiles the operator def as a method for argument types.
// The first instance is named after the operator, later ones (other
// argument types) get a numeric suffix.
func (g *gen) instantiate(def *tla.OpDef, types []*typ, key string) *opInst {
	if g.opBusy[def.Name] {
		g.unsupported(def.At, "recursive operator %s", def.Name)
	}
	g.opBusy[def.Name] = true
	defer delete(g.opBusy, def.Name)
	inst := &opInst{def: def, goName: exported(def.Name), params: types, busy: true}
	inst.primed = g.primed(def.Body, map[string]bool{})
	for _, a := range g.actions {
		if a.goName == inst.goName {
			inst.goName = "Op" + inst.goName
		}
	}
	if g.ops[def.Name] != nil {
		g.opCount[def.Name]++
		inst.goName = fmt.Sprintf("%s_%d", inst.goName, g.opCount[def.Name]+1)
	}
	cx := &ctx{g: g, s: "s"}
	if inst.primed {
		cx.t = "t"
	}
	var params []string
	for i, p := range def.Params {
		v := "p_" + p.Name
		cx = cx.with(p.Name, v, types[i])
		params = append(params, v+" "+g.goType(types[i]))
	}
	code, rt := g.expr(cx, def.Body, nil)
	inst.result = rt
	inst.busy = false
	sig := "s *State"
	if inst.primed {
		sig += ", t *State"
	}
	if len(params) > 0 {
		sig += ", " + strings.Join(params, ", ")
	}
	inst.code = fmt.Sprintf("%sfunc (c *Config) %s(%s) %s {\n\treturn %s\n}\n", g.docOf(def, inst.goName), inst.goName, sig, g.goType(rt), code)
	// Registered only once compiled, so that a failure leaves nothing
	// that would be called but never emitted.
	if g.ops[def.Name] == nil {
		g.ops[def.Name] = inst
	}
	g.opInsts[key] = inst
	g.opList = append(g.opList, inst)
	return inst
}
