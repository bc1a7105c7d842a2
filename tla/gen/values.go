package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/tla"
)

// Functions, tuples, sets and records: application, construction, EXCEPT,
// membership and filters.

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
