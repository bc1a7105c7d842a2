package gen

import (
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/tla"
)

// Built-in operators, equality, quantifiers and the loops over the sets
// they range over.

func (g *gen) opApp(cx *ctx, n *tla.OpApp, want *typ) (string, *typ) {
	s := g.use(n)
	switch {
	case s.Kind == tla.SymDefinition && !s.Local:
		def, ok := s.Decl.(*tla.OpDef)
		if !ok || g.defs[s.Name] != def {
			g.unsupported(n.At, "operator %s", n.Name)
		}
		if g.opBusy[n.Name] {
			g.unsupported(n.At, "recursive operator %s", n.Name)
		}
		return g.callOp(cx, def, n.Args, n.At)
	case s.Kind != tla.SymBuiltin:
		g.unsupported(n.At, "applying %s (a %s)", n.Name, s.Kind)
	}
	a := n.Args
	bin := func(op string, t *typ, rt *typ) (string, *typ) {
		x, _ := g.expr(cx, a[0], t)
		y, _ := g.expr(cx, a[1], t)
		return "(" + x + " " + op + " " + y + ")", rt
	}
	switch s.Builtin.Op {
	case tla.OpPrime:
		if cx.t == "" {
			g.fail(n.At, "a primed expression where there is no next state")
		}
		if id, ok := a[0].(*tla.Ident); ok && g.use(id).Kind == tla.SymVariable {
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
	case tla.OpNot:
		x, _ := g.expr(cx, a[0], boolT)
		return "!" + x, boolT
	case tla.OpAnd:
		return bin("&&", boolT, boolT)
	case tla.OpOr:
		return bin("||", boolT, boolT)
	case tla.OpImplies:
		x, _ := g.expr(cx, a[0], boolT)
		y, _ := g.expr(cx, a[1], boolT)
		return "(!" + x + " || " + y + ")", boolT
	case tla.OpEquiv:
		return bin("==", boolT, boolT)
	case tla.OpEq, tla.OpNeq:
		x, y, t := g.pair(cx, a[0], a[1])
		eq := g.eq(x, y, t)
		if s.Builtin.Op == tla.OpNeq {
			return "!" + eq, boolT
		}
		return eq, boolT
	case tla.OpLt, tla.OpGt, tla.OpLe, tla.OpGe:
		return bin(n.Name, intT, boolT)
	case tla.OpPlus, tla.OpMinus, tla.OpTimes:
		// Checked: the interpreter fails on 64-bit overflow, so does
		// the generated code (it panics) rather than wrap.
		x, _ := g.expr(cx, a[0], intT)
		y, _ := g.expr(cx, a[1], intT)
		fn := map[tla.Op]string{tla.OpPlus: "specrt.AddInt", tla.OpMinus: "specrt.SubInt", tla.OpTimes: "specrt.MulInt"}[s.Builtin.Op]
		return fn + "(" + x + ", " + y + ")", intT
	case tla.OpDiv:
		x, _ := g.expr(cx, a[0], intT)
		y, _ := g.expr(cx, a[1], intT)
		return "specrt.FloorDiv(" + x + ", " + y + ")", intT
	case tla.OpMod:
		x, _ := g.expr(cx, a[0], intT)
		y, _ := g.expr(cx, a[1], intT)
		return "specrt.FloorMod(" + x + ", " + y + ")", intT
	case tla.OpNeg:
		x, _ := g.expr(cx, a[0], intT)
		return "specrt.SubInt(0, " + x + ")", intT
	case tla.OpIn, tla.OpNotIn:
		x, xt := g.expr(cx, a[0], nil)
		m := g.member(cx, x, xt, a[1])
		if s.Builtin.Op == tla.OpNotIn {
			return "!(" + m + ")", boolT
		}
		return m, boolT
	case tla.OpCup, tla.OpCap, tla.OpSetMinus:
		x, y, t := g.pair(cx, a[0], a[1])
		if t.kind != tSet {
			g.unsupported(n.At, "%s on %s (bitset sets only)", n.Name, t)
		}
		op := map[tla.Op]string{tla.OpCup: "|", tla.OpCap: "&", tla.OpSetMinus: "&^"}[s.Builtin.Op]
		return "(" + x + " " + op + " " + y + ")", t
	case tla.OpSubseteq:
		x, y, t := g.pair(cx, a[0], a[1])
		if t.kind != tSet {
			g.unsupported(n.At, "\\subseteq on %s", t)
		}
		return "(" + x + " &^ " + y + " == 0)", boolT
	case tla.OpCardinality:
		x, t := g.expr(cx, a[0], nil)
		switch t.kind {
		case tSet:
			return "bits.OnesCount64(" + x + ")", intT
		case tIntSet, tDomainSet:
			return x + ".Size()", intT
		}
		g.unsupported(n.At, "Cardinality of %s", t)
	case tla.OpLen:
		x, t := g.expr(cx, a[0], nil)
		if t.kind != tSeq {
			g.fail(n.At, "Len of %s", t)
		}
		return "len(" + x + ")", intT
	case tla.OpHead:
		x, t := g.expr(cx, a[0], nil)
		if t.kind != tSeq {
			g.fail(n.At, "Head of %s", t)
		}
		return x + "[0]", t.elem
	case tla.OpTail:
		x, t := g.expr(cx, a[0], want)
		if t.kind != tSeq {
			g.fail(n.At, "Tail of %s", t)
		}
		return x + "[1:]", t
	case tla.OpAppend:
		x, t := g.expr(cx, a[0], want)
		if t.kind != tSeq {
			g.fail(n.At, "Append to %s", t)
		}
		y, _ := g.expr(cx, a[1], t.elem)
		return "specrt.Append(" + x + ", " + y + ")", t
	case tla.OpConcat:
		x, y, t := g.pair(cx, a[0], a[1])
		if t.kind != tSeq {
			g.fail(n.At, "\\o of %s", t)
		}
		return "specrt.Concat(" + x + ", " + y + ")", t
	case tla.OpUnchanged:
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

// checkArity rejects a built-in operator applied to the wrong number of
// arguments (Append(s), Len(a, b)), as the resolver's table has it: the
// resolver reported it already, this keeps the compiler from indexing
// arguments that are not there.
func (g *gen) checkArity(n *tla.OpApp) {
	if u, ok := g.info.Use(n); ok && u.Kind == tla.SymBuiltin && len(n.Args) != u.Arity() {
		g.fail(n.At, "%s takes %d argument(s), got %d", n.Name, u.Arity(), len(n.Args))
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
		switch s := g.use(n); {
		case s.Kind == tla.SymVariable:
			return []*varInfo{g.varIdx[s.Name]}
		case s.Kind == tla.SymDefinition && !s.Local && s.Arity() == 0:
			if d, ok := s.Decl.(*tla.OpDef); ok && g.defs[s.Name] == d {
				return g.unchangedVars(d.Body)
			}
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
	if id, ok := set.(*tla.Ident); ok && !g.use(id).Local && g.use(id).Kind != tla.SymVariable {
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

// domainIdent returns the domain an identifier (a constant or a
// definition) names, or nil.
func (g *gen) domainIdent(id *tla.Ident) *domain {
	if d, ok := g.domains[id.Name]; ok {
		return d
	}
	if def := g.defs[id.Name]; def != nil && len(def.Params) == 0 && g.use(id).Decl == def {
		if _, ok := def.Body.(*tla.Cross); ok {
			return g.domainOf(id)
		}
		if g.isIntSetExpr(def.Body) {
			return g.domainOf(id)
		}
	}
	return nil
}
