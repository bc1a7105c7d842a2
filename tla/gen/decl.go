package gen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/cfg"
)

// Declarations: the constants' kinds from the configurations, the
// variables' types from TypeOK, and the constant sets (domains) that
// functions and action parameters range over.

// classifyConstants fixes each constant's kind from the configurations:
// every configuration must give it a value of the same kind.
func (g *gen) classifyConstants() {
	if len(g.in.Configs) == 0 {
		g.fail(g.mod.At, "no configuration given: gen needs at least one .cfg to know the constants' kinds")
	}
	for _, name := range g.cnames {
		for _, c := range g.in.Configs {
			var def *cfg.ConstantDef
			for _, d := range c.Constants {
				if d.Name == name {
					def = d
				}
			}
			if def == nil {
				panic(&Error{File: c.File, Msg: fmt.Sprintf("constant %s is not given a value", name)})
			}
			if def.Value == nil || len(def.Args) > 0 || def.Module != "" {
				panic(&Error{File: c.File, Pos: def.Pos, Msg: fmt.Sprintf("constant %s: only plain values are %v", name, ErrUnsupported), Err: ErrUnsupported})
			}
			var k constKind
			v := def.Value
			switch v.Kind {
			case cfg.Int:
				k = cInt
			case cfg.Bool:
				k = cBool
			case cfg.Set:
				k = cModelSet
				allInt := len(v.Elem) > 0
				for _, e := range v.Elem {
					if e.Kind != cfg.Int {
						allInt = false
					}
					if e.Kind != cfg.ModelValue && e.Kind != cfg.Int {
						panic(&Error{File: c.File, Pos: e.Pos, Msg: fmt.Sprintf("constant %s: a set of %s is %v (model values or integers only)", name, e.Kind, ErrUnsupported), Err: ErrUnsupported})
					}
				}
				if allInt {
					k = cIntSet
				}
			default:
				panic(&Error{File: c.File, Pos: v.Pos, Msg: fmt.Sprintf("constant %s: a %s value is %v", name, v.Kind, ErrUnsupported), Err: ErrUnsupported})
			}
			if old, ok := g.consts[name]; ok && old != k {
				panic(&Error{File: c.File, Pos: def.Pos, Msg: fmt.Sprintf("constant %s has a different kind of value than in another configuration", name)})
			}
			g.consts[name] = k
		}
		switch g.consts[name] {
		case cModelSet:
			g.domainOfConst(name, dModel)
		case cIntSet:
			g.domainOfConst(name, dInts)
		}
	}
}

func (g *gen) domainOfConst(name string, k domKind) *domain {
	if d, ok := g.domains[name]; ok {
		return d
	}
	d := &domain{name: name, kind: k, goType: exported(name), field: exported(name)}
	g.domains[name] = d
	g.domList = append(g.domList, d)
	return d
}

// typeVars gives every variable its type from the conjuncts `v \in T` of
// TypeOK.
func (g *gen) typeVars() {
	def := g.defs["TypeOK"]
	if def == nil {
		g.fail(g.mod.At, "no TypeOK: gen derives the variables' Go types from a definition TypeOK == /\\ v \\in T /\\ ...")
	}
	var walk func(e tla.Expr)
	walk = func(e tla.Expr) {
		switch n := e.(type) {
		case *tla.Junction:
			if n.Op == tla.And {
				for _, it := range n.Items {
					walk(it)
				}
			}
		case *tla.OpApp:
			if n.Name == `/\` {
				for _, it := range n.Args {
					walk(it)
				}
				return
			}
			if n.Name == `\in` && len(n.Prefix) == 0 {
				if id, ok := n.Args[0].(*tla.Ident); ok {
					if v := g.varIdx[id.Name]; v != nil && v.t == nil {
						v.t = g.typeOfSet(n.Args[1], "")
						v.typeText = tla.Print(n.Args[1])
					}
				}
			}
		}
	}
	walk(def.Body)
	for _, v := range g.vars {
		if v.t == nil {
			g.fail(v.pos, "TypeOK has no conjunct %s \\in T that gives %s a type", v.name, v.name)
		}
	}
	g.varsOK = true
}

// typeOfSet returns the type of the elements of the set expression e, as
// written in TypeOK. hint names record types.
func (g *gen) typeOfSet(e tla.Expr, hint string) *typ {
	switch n := e.(type) {
	case *tla.Ident:
		switch n.Name {
		case "BOOLEAN":
			return boolT
		case "Nat", "Int":
			return intT
		}
		if k, ok := g.consts[n.Name]; ok {
			switch k {
			case cModelSet:
				return g.domains[n.Name].elemType()
			case cIntSet:
				return intT
			}
			g.fail(n.At, "%s is not a set", n.Name)
		}
		if d := g.defs[n.Name]; d != nil && len(d.Params) == 0 {
			if _, ok := d.Body.(*tla.Cross); ok {
				return g.domainOf(n).elemType()
			}
			return g.typeOfSet(d.Body, n.Name)
		}
	case *tla.SetEnum:
		if len(n.Elems) == 0 {
			g.unsupported(n.At, "the empty set as a type")
		}
		var t *typ
		for _, el := range n.Elems {
			var et *typ
			switch x := el.(type) {
			case *tla.Str:
				g.strs[x.Value] = true
				et = strT
			case *tla.Num:
				et = intT
			case *tla.Bool:
				et = boolT
			default:
				g.unsupported(el.Pos(), "a set of %T as a type (literals only)", el)
			}
			if t != nil && !sameType(t, et) {
				g.fail(el.Pos(), "a set mixes %s and %s", t, et)
			}
			t = et
		}
		return t
	case *tla.OpApp:
		if len(n.Prefix) > 0 {
			break
		}
		g.checkArity(n)
		switch n.Name {
		case `\cup`, `\cap`, `\`:
			a := g.typeOfSet(n.Args[0], hint)
			b := g.typeOfSet(n.Args[1], hint)
			if !sameType(a, b) {
				g.fail(n.At, "%s of sets of %s and %s", n.Name, a, b)
			}
			return a
		case "..":
			return intT
		case "SUBSET":
			et := g.typeOfSet(n.Args[0], "")
			g.needBitset(n.At, et)
			return &typ{kind: tSet, elem: et}
		case "Seq":
			return &typ{kind: tSeq, elem: g.typeOfSet(n.Args[0], hint)}
		}
	case *tla.FuncSet:
		d := g.domainOf(n.Dom)
		return &typ{kind: tFunc, dom: d, elem: g.typeOfSet(n.Rng, "")}
	case *tla.RecordSet:
		var fs []*field
		seen := map[string]bool{}
		for _, f := range n.Fields {
			if seen[f.Name] {
				g.fail(f.At, "record field %s given twice", f.Name)
			}
			seen[f.Name] = true
			fs = append(fs, &field{name: f.Name, goName: exported(f.Name), t: g.typeOfSet(f.Val, "")})
		}
		return g.recordType(fs, hint, n.At)
	case *tla.If:
		return g.typeOfSet(n.Then, hint)
	}
	g.unsupported(e.Pos(), "%s as a type in TypeOK", tla.Print(e))
	return nil
}

// needBitset records that sets of t are bitsets.
func (g *gen) needBitset(pos tla.Pos, t *typ) {
	switch t.kind {
	case tStr:
	case tElem:
		t.dom.inSet = true
	default:
		g.unsupported(pos, "a set of %s (sets hold model values, product elements or strings)", t)
	}
}

func (g *gen) recordType(fs []*field, hint string, pos tla.Pos) *typ {
	sort.Slice(fs, func(i, j int) bool { return fs[i].name < fs[j].name })
	t := &typ{kind: tRec, fields: fs}
	if old, ok := g.records[t.key()]; ok {
		return old
	}
	if hint == "" {
		hint = fmt.Sprintf("Record%d", len(g.recList)+1)
	}
	t.name = exported(hint)
	for _, r := range g.recList {
		if r.name == t.name {
			t.name = fmt.Sprintf("%s%d", t.name, len(g.recList)+1)
		}
	}
	g.records[t.key()] = t
	g.recList = append(g.recList, t)
	return t
}

// domainOf resolves e to a finite constant domain (function domains,
// quantifier ranges of actions).
func (g *gen) domainOf(e tla.Expr) *domain {
	id, ok := e.(*tla.Ident)
	if !ok {
		g.unsupported(e.Pos(), "%s as a function domain (name the set: a CONSTANT or a definition)", tla.Print(e))
	}
	if d, ok := g.domains[id.Name]; ok {
		return d
	}
	def := g.defs[id.Name]
	if def == nil || len(def.Params) > 0 {
		g.unsupported(id.At, "%s as a function domain", id.Name)
	}
	if g.refsVars(def.Body, map[string]bool{}) {
		g.unsupported(id.At, "%s as a function domain: it depends on variables", id.Name)
	}
	// A failure below (an unsupported expression) must leave no half-made
	// domain behind: liveness atoms are compiled on a best-effort basis.
	nDoms := len(g.domList)
	done := false
	defer func() {
		if !done {
			delete(g.domains, id.Name)
			g.domList = g.domList[:nDoms]
		}
	}()
	switch b := def.Body.(type) {
	case *tla.Cross:
		var comps []*domain
		for _, s := range b.Sets {
			comps = append(comps, g.domainOf(s))
		}
		d := &domain{name: id.Name, kind: dProduct, comps: comps, goType: exported(id.Name), field: exported(id.Name)}
		g.domains[id.Name] = d
		g.domList = append(g.domList, d)
		// Computed in NewConfig once its components are.
		g.registerConstDef(id.Name, &typ{kind: tDomainSet, dom: d}, d)
		done = true
		return d
	}
	if g.isIntSetExpr(def.Body) {
		d := &domain{name: id.Name, kind: dInts, field: exported(id.Name)}
		g.domains[id.Name] = d
		g.domList = append(g.domList, d)
		g.registerConstDef(id.Name, &typ{kind: tIntSet, dom: d}, d)
		done = true
		return d
	}
	g.unsupported(id.At, "%s as a function domain (a constant set of model values, of integers, or a product of those)", id.Name)
	return nil
}

func (g *gen) isIntSetExpr(e tla.Expr) bool {
	switch n := e.(type) {
	case *tla.SetEnum:
		for _, el := range n.Elems {
			if _, ok := el.(*tla.Num); !ok {
				return false
			}
		}
		return len(n.Elems) > 0
	case *tla.If:
		return g.isIntSetExpr(n.Then) && g.isIntSetExpr(n.Else)
	case *tla.OpApp:
		if n.Name == ".." {
			return true
		}
		if n.Name == `\cup` || n.Name == `\cap` || n.Name == `\` {
			return g.isIntSetExpr(n.Args[0])
		}
	case *tla.Ident:
		if g.consts[n.Name] == cIntSet {
			return true
		}
		if d := g.defs[n.Name]; d != nil && len(d.Params) == 0 {
			return g.isIntSetExpr(d.Body)
		}
	}
	return false
}

func (g *gen) registerConstDef(name string, t *typ, d *domain) *constDef {
	if cd, ok := g.constDefs[name]; ok {
		return cd
	}
	def := g.defs[name]
	if g.constBusy[name] {
		g.unsupported(def.At, "recursive definition %s", name)
	}
	g.constBusy[name] = true
	defer delete(g.constBusy, name)
	cd := &constDef{name: name, goName: exported(name), dom: d}
	cx := &ctx{g: g}
	switch {
	case d != nil && d.kind == dProduct:
		var comps []string
		for _, c := range d.comps {
			comps = append(comps, g.domainValue(c))
		}
		cd.code = fmt.Sprintf("specrt.NewProduct(%q, %s)", name, strings.Join(comps, ", "))
		cd.t = t
	case d != nil && d.kind == dInts:
		cd.code = g.intSetExpr(cx, def.Body, name)
		cd.t = t
	default:
		code, ct := g.expr(cx, def.Body, nil)
		cd.code, cd.t = code, ct
	}
	g.constDefs[name] = cd
	g.constList = append(g.constList, cd)
	return cd
}

// domainValue is the Go expression of a domain's *Domain, registering a
// constant definition behind it if needed.
func (g *gen) domainValue(d *domain) string {
	if _, isConst := g.consts[d.name]; !isConst {
		if _, ok := g.constDefs[d.name]; !ok {
			g.domainOf(&tla.Ident{At: g.defs[d.name].At, Name: d.name})
		}
	}
	return "c." + d.field
}

// intSetExpr compiles a constant set of integers to a *Domain expression.
func (g *gen) intSetExpr(cx *ctx, e tla.Expr, name string) string {
	switch n := e.(type) {
	case *tla.SetEnum:
		var els []string
		for _, el := range n.Elems {
			c, _ := g.expr(cx, el, intT)
			els = append(els, c)
		}
		return fmt.Sprintf("specrt.NewInts(%q, %s)", name, strings.Join(els, ", "))
	case *tla.If:
		c, _ := g.expr(cx, n.Cond, boolT)
		return fmt.Sprintf("func() *specrt.Domain { if %s { return %s }; return %s }()", c, g.intSetExpr(cx, n.Then, name), g.intSetExpr(cx, n.Else, name))
	case *tla.OpApp:
		switch n.Name {
		case "..":
			a, _ := g.expr(cx, n.Args[0], intT)
			b, _ := g.expr(cx, n.Args[1], intT)
			return fmt.Sprintf("specrt.NewRange(%q, %s, %s)", name, a, b)
		case `\cup`, `\cap`, `\`:
			op := "specrt." + map[string]string{`\cup`: "UnionInts", `\cap`: "InterInts", `\`: "DiffInts"}[n.Name]
			return fmt.Sprintf("%s(%q, %s, %s)", op, name, g.intSetExpr(cx, n.Args[0], name), g.intSetExpr(cx, n.Args[1], name))
		}
	case *tla.Ident:
		if g.consts[n.Name] == cIntSet {
			return "c." + exported(n.Name)
		}
		if d := g.defs[n.Name]; d != nil {
			return g.domainValue(g.domainOf(n))
		}
	}
	g.unsupported(e.Pos(), "%s as a constant set of integers", tla.Print(e))
	return ""
}
