package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/spec/tla"
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

func (g *gen) ident(cx *ctx, n *tla.Ident, want *typ) (string, *typ) {
	if b := cx.lookup(n.Name); b != nil {
		return b.code, b.t
	}
	if v := g.varIdx[n.Name]; v != nil {
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
	}
	if k, ok := g.consts[n.Name]; ok {
		switch k {
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
	}
	switch n.Name {
	case "BOOLEAN", "Nat", "Int", "STRING":
		g.unsupported(n.At, "%s as a value (only on the right of \\in)", n.Name)
	}
	def := g.defs[n.Name]
	if def == nil {
		g.fail(n.At, "%s is not defined", n.Name)
	}
	if len(def.Params) > 0 {
		g.unsupported(n.At, "operator %s passed as a value", n.Name)
	}
	if !g.refsVars(def.Body, map[string]bool{}) {
		return g.constRef(n)
	}
	return g.callOp(cx, def, nil, n.At)
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

// callOp calls a user operator compiled to a method.
func (g *gen) callOp(cx *ctx, def *tla.OpDef, args []tla.Expr, at tla.Pos) (string, *typ) {
	if len(args) != len(def.Params) {
		g.fail(at, "%s takes %d arguments, got %d", def.Name, len(def.Params), len(args))
	}
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

func (g *gen) opApp(cx *ctx, n *tla.OpApp, want *typ) (string, *typ) {
	if len(n.Prefix) > 0 {
		g.unsupported(n.At, "module-qualified names")
	}
	if def := g.defs[n.Name]; def != nil {
		if g.opBusy[n.Name] {
			g.unsupported(n.At, "recursive operator %s", n.Name)
		}
		return g.callOp(cx, def, n.Args, n.At)
	}
	g.checkArity(n)
	a := n.Args
	bin := func(op string, t *typ, rt *typ) (string, *typ) {
		x, _ := g.expr(cx, a[0], t)
		y, _ := g.expr(cx, a[1], t)
		return "(" + x + " " + op + " " + y + ")", rt
	}
	switch n.Name {
	case "'":
		if cx.t == "" {
			g.fail(n.At, "a primed expression where there is no next state")
		}
		if id, ok := a[0].(*tla.Ident); ok && g.varIdx[id.Name] != nil && cx.lookup(id.Name) == nil {
			if cx.asg != nil && !cx.asg[id.Name] {
				g.fail(n.At, "%s' is read before the action assigns it", id.Name)
			}
			v := g.varIdx[id.Name]
			return cx.t + "." + v.goName, v.t
		}
		c2 := *cx
		c2.s, c2.t = cx.t, ""
		if cx.asg != nil {
			g.unsupported(n.At, "priming an expression inside an action (prime variables only)")
		}
		return g.expr(&c2, a[0], want)
	case "~":
		x, _ := g.expr(cx, a[0], boolT)
		return "!" + x, boolT
	case `/\`:
		return bin("&&", boolT, boolT)
	case `\/`:
		return bin("||", boolT, boolT)
	case "=>":
		x, _ := g.expr(cx, a[0], boolT)
		y, _ := g.expr(cx, a[1], boolT)
		return "(!" + x + " || " + y + ")", boolT
	case "<=>":
		return bin("==", boolT, boolT)
	case "=", "/=":
		x, y, t := g.pair(cx, a[0], a[1])
		eq := g.eq(x, y, t)
		if n.Name == "/=" {
			return "!" + eq, boolT
		}
		return eq, boolT
	case "<", ">", "<=", ">=":
		return bin(n.Name, intT, boolT)
	case "+", "-", "*":
		// Checked: the interpreter fails on 64-bit overflow, so does
		// the generated code (it panics) rather than wrap.
		x, _ := g.expr(cx, a[0], intT)
		y, _ := g.expr(cx, a[1], intT)
		fn := map[string]string{"+": "specrt.AddInt", "-": "specrt.SubInt", "*": "specrt.MulInt"}[n.Name]
		return fn + "(" + x + ", " + y + ")", intT
	case `\div`:
		x, _ := g.expr(cx, a[0], intT)
		y, _ := g.expr(cx, a[1], intT)
		return "specrt.FloorDiv(" + x + ", " + y + ")", intT
	case "%":
		x, _ := g.expr(cx, a[0], intT)
		y, _ := g.expr(cx, a[1], intT)
		return "specrt.FloorMod(" + x + ", " + y + ")", intT
	case "-.":
		x, _ := g.expr(cx, a[0], intT)
		return "specrt.SubInt(0, " + x + ")", intT
	case `\in`, `\notin`:
		x, xt := g.expr(cx, a[0], nil)
		m := g.member(cx, x, xt, a[1])
		if n.Name == `\notin` {
			return "!(" + m + ")", boolT
		}
		return m, boolT
	case `\cup`, `\cap`, `\`:
		x, y, t := g.pair(cx, a[0], a[1])
		if t.kind != tSet {
			g.unsupported(n.At, "%s on %s (bitset sets only)", n.Name, t)
		}
		op := map[string]string{`\cup`: "|", `\cap`: "&", `\`: "&^"}[n.Name]
		return "(" + x + " " + op + " " + y + ")", t
	case `\subseteq`:
		x, y, t := g.pair(cx, a[0], a[1])
		if t.kind != tSet {
			g.unsupported(n.At, "\\subseteq on %s", t)
		}
		return "(" + x + " &^ " + y + " == 0)", boolT
	case "Cardinality":
		x, t := g.expr(cx, a[0], nil)
		switch t.kind {
		case tSet:
			return "bits.OnesCount64(" + x + ")", intT
		case tIntSet, tDomainSet:
			return x + ".Size()", intT
		}
		g.unsupported(n.At, "Cardinality of %s", t)
	case "Len":
		x, t := g.expr(cx, a[0], nil)
		if t.kind != tSeq {
			g.fail(n.At, "Len of %s", t)
		}
		return "len(" + x + ")", intT
	case "Head":
		x, t := g.expr(cx, a[0], nil)
		if t.kind != tSeq {
			g.fail(n.At, "Head of %s", t)
		}
		return x + "[0]", t.elem
	case "Tail":
		x, t := g.expr(cx, a[0], want)
		if t.kind != tSeq {
			g.fail(n.At, "Tail of %s", t)
		}
		return x + "[1:]", t
	case "Append":
		x, t := g.expr(cx, a[0], want)
		if t.kind != tSeq {
			g.fail(n.At, "Append to %s", t)
		}
		y, _ := g.expr(cx, a[1], t.elem)
		return "specrt.Append(" + x + ", " + y + ")", t
	case `\o`:
		x, y, t := g.pair(cx, a[0], a[1])
		if t.kind != tSeq {
			g.fail(n.At, "\\o of %s", t)
		}
		return "specrt.Concat(" + x + ", " + y + ")", t
	case "UNCHANGED":
		if cx.t == "" {
			g.fail(n.At, "UNCHANGED where there is no next state")
		}
		var parts []string
		for _, v := range g.unchangedVars(a[0]) {
			parts = append(parts, g.eq(cx.s+"."+v.goName, cx.t+"."+v.goName, v.t))
		}
		return "(" + strings.Join(parts, " && ") + ")", boolT
	}
	g.unsupported(n.At, "operator %s", n.Name)
	return "", nil
}

// builtinArity is the number of arguments of the built-in operators gen
// compiles; the parser checks infix and prefix forms, not calls.
var builtinArity = map[string]int{
	"Cardinality": 1, "Len": 1, "Head": 1, "Tail": 1, "Append": 2, "Seq": 1,
	"SUBSET": 1, "UNCHANGED": 1, "'": 1, "~": 1, "-.": 1,
}

// checkArity rejects a built-in operator applied to the wrong number of
// arguments (Append(s), Len(a, b)).
func (g *gen) checkArity(n *tla.OpApp) {
	if k, ok := builtinArity[n.Name]; ok && len(n.Args) != k {
		g.fail(n.At, "%s takes %d argument(s), got %d", n.Name, k, len(n.Args))
	}
}

// pair compiles two operands that must have the same type, letting the
// one whose type is known type the other (e.g. x = {} or x = << >>).
func (g *gen) pair(cx *ctx, a, b tla.Expr) (string, string, *typ) {
	if needsWant(a) && !needsWant(b) {
		y, t := g.expr(cx, b, nil)
		x, _ := g.expr(cx, a, t)
		return x, y, t
	}
	x, t := g.expr(cx, a, nil)
	y, _ := g.expr(cx, b, t)
	return x, y, t
}

func needsWant(e tla.Expr) bool {
	switch n := e.(type) {
	case *tla.SetEnum:
		return len(n.Elems) == 0
	case *tla.Tuple:
		return true
	case *tla.RecordCons:
		return true
	}
	return false
}

// unchangedVars flattens UNCHANGED's argument (a variable, a tuple of
// them, or a definition naming such a tuple) to variables.
func (g *gen) unchangedVars(e tla.Expr) []*varInfo {
	switch n := e.(type) {
	case *tla.Tuple:
		var out []*varInfo
		for _, el := range n.Elems {
			out = append(out, g.unchangedVars(el)...)
		}
		return out
	case *tla.Ident:
		if v := g.varIdx[n.Name]; v != nil {
			return []*varInfo{v}
		}
		if d := g.defs[n.Name]; d != nil && len(d.Params) == 0 {
			return g.unchangedVars(d.Body)
		}
	}
	g.unsupported(e.Pos(), "UNCHANGED %s (variables or tuples of variables only)", tla.Print(e))
	return nil
}

// eq is TLA+ equality of two Go values of type t.
func (g *gen) eq(x, y string, t *typ) string {
	if t.comparable() {
		return "(" + x + " == " + y + ")"
	}
	if y == "nil" {
		return "(len(" + x + ") == 0)"
	}
	return g.helper("eq", t) + "(" + x + ", " + y + ")"
}

func (g *gen) quant(cx *ctx, n *tla.Quant) (string, *typ) {
	var b strings.Builder
	b.WriteString("func() bool { ")
	closers := 0
	c2 := cx
	for _, bd := range n.Bounds {
		if bd.Set == nil {
			g.unsupported(bd.At, "unbounded quantifier")
		}
		if bd.Tuple {
			g.unsupported(bd.At, "tuple pattern in a bound")
		}
		for _, id := range bd.Names {
			var loop string
			loop, c2 = g.loop(c2, id.Name, bd.Set)
			b.WriteString(loop + " { ")
			closers++
		}
	}
	body, _ := g.expr(c2, n.Body, boolT)
	if n.Kind == tla.Forall {
		fmt.Fprintf(&b, "if !%s { return false }", paren(body))
	} else {
		fmt.Fprintf(&b, "if %s { return true }", body)
	}
	b.WriteString(strings.Repeat(" }", closers))
	if n.Kind == tla.Forall {
		b.WriteString("; return true }()")
	} else {
		b.WriteString("; return false }()")
	}
	return b.String(), boolT
}

func paren(s string) string {
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		return s
	}
	return "(" + s + ")"
}

// loop returns a Go for-clause binding name to each element of set, and
// the context with name bound.
func (g *gen) loop(cx *ctx, name string, set tla.Expr) (string, *ctx) {
	v := g.newTmp("v")
	if id, ok := set.(*tla.Ident); ok && cx.lookup(id.Name) == nil && g.varIdx[id.Name] == nil {
		if d := g.domainIdent(id); d != nil {
			if d.kind == dInts {
				return fmt.Sprintf("for _, %s := range %s.Ints", v, g.domainValue(d)), cx.with(name, v, intT)
			}
			return fmt.Sprintf("for %s := %s(0); int(%s) < %s.Size(); %s++", v, d.goType, v, g.domainValue(d), v), cx.with(name, v, d.elemType())
		}
	}
	if op, ok := set.(*tla.OpApp); ok && op.Name == ".." {
		lo, _ := g.expr(cx, op.Args[0], intT)
		hi, _ := g.expr(cx, op.Args[1], intT)
		h := g.newTmp("hi")
		return fmt.Sprintf("for %s, %s := %s, %s; %s <= %s; %s++", v, h, lo, hi, v, h, v), cx.with(name, v, intT)
	}
	s, t := g.expr(cx, set, nil)
	switch t.kind {
	case tSet:
		bs := g.newTmp("bs")
		return fmt.Sprintf("for %s := %s; %s != 0; %s &= %s - 1", bs, s, bs, bs, bs), cx.with(name, fmt.Sprintf("%s(bits.TrailingZeros64(%s))", g.goType(t.elem), bs), t.elem)
	case tIntSet:
		return fmt.Sprintf("for _, %s := range %s.Ints", v, s), cx.with(name, v, intT)
	}
	g.unsupported(set.Pos(), "quantifying over %s", t)
	return "", nil
}

// domainIdent returns the domain an identifier names, or nil.
func (g *gen) domainIdent(id *tla.Ident) *domain {
	if d, ok := g.domains[id.Name]; ok {
		return d
	}
	if def := g.defs[id.Name]; def != nil && len(def.Params) == 0 {
		if _, ok := def.Body.(*tla.Cross); ok {
			return g.domainOf(id)
		}
		if g.isIntSetExpr(def.Body) {
			return g.domainOf(id)
		}
	}
	return nil
}

func (g *gen) funcApp(cx *ctx, n *tla.FuncApp) (string, *typ) {
	f, ft := g.expr(cx, n.Func, nil)
	if len(n.Args) != 1 {
		g.unsupported(n.At, "function application with %d arguments", len(n.Args))
	}
	switch ft.kind {
	case tFunc:
		return f + "[" + g.index(cx, n.Args[0], ft.dom) + "]", ft.elem
	case tSeq:
		i, _ := g.expr(cx, n.Args[0], intT)
		return f + "[" + i + "-1]", ft.elem
	case tElem:
		d := ft.dom
		num, ok := n.Args[0].(*tla.Num)
		if d.kind != dProduct || !ok {
			g.unsupported(n.At, "applying %s to %s (tuple components need a literal index)", ft, tla.Print(n.Args[0]))
		}
		k, _ := strconv.Atoi(num.Value)
		if k < 1 || k > len(d.comps) {
			g.fail(n.At, "component %d of a %d-tuple", k, len(d.comps))
		}
		comp := d.comps[k-1]
		code := fmt.Sprintf("%s.Comp(int(%s), %d)", g.domainValue(d), f, k-1)
		if comp.kind == dInts {
			return code, intT
		}
		return comp.goType + "(" + code + ")", comp.elemType()
	}
	g.unsupported(n.At, "applying %s", ft)
	return "", nil
}

// index compiles x as an element index of domain d.
func (g *gen) index(cx *ctx, x tla.Expr, d *domain) string {
	if tup, ok := x.(*tla.Tuple); ok && d.kind == dProduct {
		c, _ := g.tuple(cx, tup, d.elemType())
		return c
	}
	c, t := g.expr(cx, x, d.elemType())
	_ = t
	if d.kind == dInts {
		return g.domainValue(d) + ".IntIndex(" + c + ")"
	}
	return c
}

func (g *gen) tuple(cx *ctx, n *tla.Tuple, want *typ) (string, *typ) {
	if want == nil {
		g.unsupported(n.At, "a tuple whose type is not known from its context (a product domain element or a sequence)")
	}
	switch want.kind {
	case tElem:
		d := want.dom
		if d.kind != dProduct || len(d.comps) != len(n.Elems) {
			g.fail(n.At, "%s is not an element of %s", tla.Print(n), d.name)
		}
		var keys []string
		for i, el := range n.Elems {
			c, _ := g.expr(cx, el, d.comps[i].elemType())
			if d.comps[i].kind != dInts {
				c = "int(" + c + ")"
			}
			keys = append(keys, c)
		}
		return fmt.Sprintf("%s(%s.Index(%s))", d.goType, g.domainValue(d), strings.Join(keys, ", ")), want
	case tSeq:
		if len(n.Elems) == 0 {
			return "nil", want
		}
		var els []string
		for _, el := range n.Elems {
			c, _ := g.expr(cx, el, want.elem)
			els = append(els, c)
		}
		return g.goType(want) + "{" + strings.Join(els, ", ") + "}", want
	}
	g.unsupported(n.At, "a tuple as %s", want)
	return "", nil
}

func (g *gen) setEnum(cx *ctx, n *tla.SetEnum, want *typ) (string, *typ) {
	var et *typ
	if want != nil {
		if want.kind != tSet {
			g.fail(n.At, "a set where %s is expected", want)
		}
		et = want.elem
	}
	if len(n.Elems) == 0 {
		if et == nil {
			g.unsupported(n.At, "{} whose element type is not known from its context")
		}
		return "uint64(0)", want
	}
	var parts []string
	for _, el := range n.Elems {
		c, t := g.expr(cx, el, et)
		et = t
		parts = append(parts, "specrt.Bit(int("+c+"))")
	}
	g.needBitset(n.At, et)
	return "(" + strings.Join(parts, " | ") + ")", &typ{kind: tSet, elem: et}
}

func (g *gen) recordCons(cx *ctx, n *tla.RecordCons, want *typ) (string, *typ) {
	seen := map[string]bool{}
	for _, f := range n.Fields {
		if seen[f.Name] {
			g.fail(f.At, "record field %s given twice", f.Name)
		}
		seen[f.Name] = true
	}
	t := want
	if t == nil || t.kind != tRec {
		var fs []*field
		for _, f := range n.Fields {
			_, ft := g.expr(cx, f.Val, nil)
			fs = append(fs, &field{name: f.Name, goName: exported(f.Name), t: ft})
		}
		t = g.recordType(fs, "", n.At)
	}
	if len(t.fields) != len(n.Fields) {
		g.fail(n.At, "record %s does not have the fields of %s", tla.Print(n), t.name)
	}
	var parts []string
	for _, f := range n.Fields {
		var ft *field
		for _, x := range t.fields {
			if x.name == f.Name {
				ft = x
			}
		}
		if ft == nil {
			g.fail(f.At, "record type %s has no field %s", t.name, f.Name)
		}
		c, _ := g.expr(cx, f.Val, ft.t)
		parts = append(parts, ft.goName+": "+c)
	}
	return t.name + "{" + strings.Join(parts, ", ") + "}", t
}

func (g *gen) except(cx *ctx, n *tla.Except) (string, *typ) {
	f, ft := g.expr(cx, n.Func, nil)
	var b strings.Builder
	old := g.newTmp("old")
	r := g.newTmp("r")
	fmt.Fprintf(&b, "func(%s %s) %s { ", old, g.goType(ft), g.goType(ft))
	switch ft.kind {
	case tFunc, tSeq:
		fmt.Fprintf(&b, "%s := slices.Clone(%s); ", r, old)
	case tRec:
		fmt.Fprintf(&b, "%s := %s; ", r, old)
	default:
		g.fail(n.At, "EXCEPT on %s", ft)
	}
	for _, u := range n.Updates {
		if len(u.Path) != 1 {
			g.unsupported(u.At, "EXCEPT path with %d steps", len(u.Path))
		}
		st := u.Path[0]
		var lhs string
		var vt *typ
		switch {
		case st.Field != "" && ft.kind == tRec:
			for _, fl := range ft.fields {
				if fl.name == st.Field {
					lhs, vt = r+"."+fl.goName, fl.t
				}
			}
			if lhs == "" {
				g.fail(st.At, "record has no field %s", st.Field)
			}
			c2 := *cx
			c2.at, c2.atT = old+strings.TrimPrefix(lhs, r), vt
			v, _ := g.expr(&c2, u.Val, vt)
			fmt.Fprintf(&b, "%s = %s; ", lhs, v)
			continue
		case len(st.Index) == 1 && ft.kind == tFunc:
			i := g.newTmp("i")
			fmt.Fprintf(&b, "%s := %s; ", i, g.index(cx, st.Index[0], ft.dom))
			lhs, vt = r+"["+i+"]", ft.elem
		case len(st.Index) == 1 && ft.kind == tSeq:
			i := g.newTmp("i")
			ic, _ := g.expr(cx, st.Index[0], intT)
			fmt.Fprintf(&b, "%s := %s - 1; ", i, ic)
			lhs, vt = r+"["+i+"]", ft.elem
		default:
			g.unsupported(st.At, "this EXCEPT step")
		}
		c2 := *cx
		c2.at, c2.atT = old+lhs[len(r):], vt
		v, _ := g.expr(&c2, u.Val, vt)
		fmt.Fprintf(&b, "%s = %s; ", lhs, v)
	}
	fmt.Fprintf(&b, "return %s }(%s)", r, f)
	return b.String(), ft
}

func (g *gen) funcCons(cx *ctx, n *tla.FuncCons, want *typ) (string, *typ) {
	if len(n.Bounds) != 1 || len(n.Bounds[0].Names) != 1 || n.Bounds[0].Tuple {
		g.unsupported(n.At, "function constructor with more than one bound variable")
	}
	bd := n.Bounds[0]
	id, ok := bd.Set.(*tla.Ident)
	var d *domain
	if ok {
		d = g.domainIdent(id)
	}
	if d == nil {
		g.unsupported(bd.Set.Pos(), "function constructor over %s (a named constant domain only)", tla.Print(bd.Set))
	}
	v := g.newTmp("x")
	r := g.newTmp("r")
	et := d.elemType()
	c2 := cx.with(bd.Names[0].Name, v, et)
	var bw *typ
	if want != nil && want.kind == tFunc {
		bw = want.elem
	}
	body, bt := g.expr(c2, n.Body, bw)
	t := &typ{kind: tFunc, dom: d, elem: bt}
	dv := g.domainValue(d)
	var b strings.Builder
	fmt.Fprintf(&b, "func() %s { %s := make(%s, %s.Size()); for i := range %s { ", g.goType(t), r, g.goType(t), dv, r)
	if d.kind == dInts {
		fmt.Fprintf(&b, "%s := %s.Ints[i]; ", v, dv)
	} else {
		fmt.Fprintf(&b, "%s := %s(i); ", v, d.goType)
	}
	fmt.Fprintf(&b, "_ = %s; %s[i] = %s }; return %s }()", v, r, body, r)
	return b.String(), t
}

// member compiles `x \in S` for x a Go value of type xt.
func (g *gen) member(cx *ctx, x string, xt *typ, s tla.Expr) string {
	switch n := s.(type) {
	case *tla.Ident:
		if cx.lookup(n.Name) == nil && g.varIdx[n.Name] == nil {
			switch n.Name {
			case "BOOLEAN":
				g.check(n.At, xt, boolT)
				return "true"
			case "Nat":
				g.check(n.At, xt, intT)
				return "(" + x + " >= 0)"
			case "Int":
				g.check(n.At, xt, intT)
				return "true"
			}
			if d := g.domainIdent(n); d != nil {
				if d.kind == dInts {
					g.check(n.At, xt, intT)
					return "(" + g.domainValue(d) + ".IntIndex(" + x + ") >= 0)"
				}
				g.check(n.At, xt, d.elemType())
				return "true"
			}
			if def := g.defs[n.Name]; def != nil && len(def.Params) == 0 {
				switch def.Body.(type) {
				case *tla.RecordSet, *tla.FuncSet:
					return g.member(cx.defCtx(), x, xt, def.Body)
				}
				if op, ok := def.Body.(*tla.OpApp); ok && (op.Name == "Seq" || op.Name == "SUBSET") {
					return g.member(cx.defCtx(), x, xt, def.Body)
				}
			}
		}
	case *tla.OpApp:
		g.checkArity(n)
		switch n.Name {
		case "SUBSET":
			if xt.kind != tSet {
				g.fail(n.At, "%s is not a set", x)
			}
			y, _ := g.expr(cx, n.Args[0], xt)
			return "(" + x + " &^ " + y + " == 0)"
		case "Seq":
			if xt.kind != tSeq {
				g.fail(n.At, "%s is not a sequence", x)
			}
			e := g.newTmp("e")
			inner := g.member(cx, e, xt.elem, n.Args[0])
			if inner == "true" {
				return "true"
			}
			return fmt.Sprintf("func() bool { for _, %s := range %s { if !%s { return false } }; return true }()", e, x, paren(inner))
		case "..":
			g.check(n.At, xt, intT)
			lo, _ := g.expr(cx, n.Args[0], intT)
			hi, _ := g.expr(cx, n.Args[1], intT)
			return fmt.Sprintf("(%s >= %s && %s <= %s)", x, lo, x, hi)
		case `\cup`:
			return "(" + g.member(cx, x, xt, n.Args[0]) + " || " + g.member(cx, x, xt, n.Args[1]) + ")"
		case `\cap`:
			return "(" + g.member(cx, x, xt, n.Args[0]) + " && " + g.member(cx, x, xt, n.Args[1]) + ")"
		case `\`:
			return "(" + g.member(cx, x, xt, n.Args[0]) + " && !" + g.member(cx, x, xt, n.Args[1]) + ")"
		}
	case *tla.SetEnum:
		if len(n.Elems) == 0 {
			return "false"
		}
		var parts []string
		for _, el := range n.Elems {
			y, _ := g.expr(cx, el, xt)
			parts = append(parts, g.eq(x, y, xt))
		}
		return "(" + strings.Join(parts, " || ") + ")"
	case *tla.FuncSet:
		if xt.kind != tFunc {
			g.fail(n.At, "%s is not a function", x)
		}
		d := g.domainOf(n.Dom)
		if d != xt.dom {
			g.fail(n.At, "a function over %s is not in a function set over %s", xt.dom.name, d.name)
		}
		e := g.newTmp("e")
		inner := g.member(cx, e, xt.elem, n.Rng)
		if inner == "true" {
			return fmt.Sprintf("(len(%s) == %s.Size())", x, g.domainValue(d))
		}
		return fmt.Sprintf("(len(%s) == %s.Size() && func() bool { for _, %s := range %s { if !%s { return false } }; return true }())", x, g.domainValue(d), e, x, paren(inner))
	case *tla.RecordSet:
		if xt.kind != tRec || len(xt.fields) != len(n.Fields) {
			g.fail(n.At, "%s is not a record with these fields", x)
		}
		var parts []string
		for _, f := range n.Fields {
			var ft *field
			for _, y := range xt.fields {
				if y.name == f.Name {
					ft = y
				}
			}
			if ft == nil {
				g.fail(f.At, "record has no field %s", f.Name)
			}
			if m := g.member(cx, x+"."+ft.goName, ft.t, f.Val); m != "true" {
				parts = append(parts, m)
			}
		}
		if len(parts) == 0 {
			return "true"
		}
		return "(" + strings.Join(parts, " && ") + ")"
	case *tla.Cross:
		g.unsupported(n.At, "membership in an unnamed Cartesian product")
	}
	y, st := g.expr1(cx, s, &typ{kind: tSet, elem: xt})
	switch st.kind {
	case tSet:
		g.check(s.Pos(), xt, st.elem)
		return "(" + y + ">>uint(" + x + ")&1 != 0)"
	case tIntSet:
		return "(" + y + ".IntIndex(" + x + ") >= 0)"
	}
	g.unsupported(s.Pos(), "membership in %s", st)
	return ""
}

func (g *gen) check(pos tla.Pos, have, want *typ) {
	if !sameType(have, want) {
		g.fail(pos, "a value of type %s tested for membership in a set of %s", have, want)
	}
}

// setFilter compiles {x \in S : P} for S a domain or a bitset set: a
// bitset of the elements satisfying P.
func (g *gen) setFilter(cx *ctx, n *tla.SetFilter) (string, *typ) {
	bd := n.Bound
	if bd.Tuple || len(bd.Names) != 1 || bd.Set == nil {
		g.unsupported(n.At, "set filter with a tuple pattern")
	}
	loop, c2 := g.loop(cx, bd.Names[0].Name, bd.Set)
	et := c2.b.t
	g.needBitset(n.At, et)
	p, _ := g.expr(c2, n.Pred, boolT)
	r := g.newTmp("set")
	return fmt.Sprintf("func() uint64 { var %s uint64; %s { if %s { %s |= specrt.Bit(int(%s)) } }; return %s }()", r, loop, p, r, c2.b.code, r),
		&typ{kind: tSet, elem: et}
}
