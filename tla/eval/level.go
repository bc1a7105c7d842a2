package eval

import (
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// cachedValue returns the value of a constant-level definition once it has
// been computed; workers read it without locking.
func (d *def) cachedValue() value.Value {
	if b := d.cached.Load(); b != nil {
		return b.v
	}
	return nil
}

func (d *def) setCache(v value.Value) { d.cached.Store(&valueBox{v}) }

// valueBox lets an interface value live behind an atomic pointer.
type valueBox struct{ v value.Value }

// isConstant reports whether d's body depends on no state variable, so its
// value can be computed once.
func (d *def) isConstant() bool {
	if l := d.constLevel.Load(); l != 0 {
		return l == 1
	}
	cacheMu.Lock()
	l := levelOfDef(d)
	cacheMu.Unlock()
	if l == 0 {
		d.constLevel.Store(1)
	} else {
		d.constLevel.Store(2)
	}
	return l == 0
}

// levelOfDef computes (and records) whether a definition is constant (0) or
// not (1). Must be called with cacheMu held.
func levelOfDef(d *def) int {
	if d.level >= 0 {
		return d.level
	}
	if d.computing {
		return 0 // recursion: the other uses decide
	}
	d.computing = true
	l := exprLevel(d.body, d.sc)
	if d.fn != nil {
		for _, b := range d.fn.Bounds {
			if b.Set != nil {
				l = max(l, exprLevel(b.Set, d.sc))
			}
		}
	}
	d.computing = false
	d.level = l
	return l
}

func nameLevel(name string, sc *scope) int {
	e := sc.lookup(name)
	if e == nil {
		return 0
	}
	switch e.kind {
	case entVar:
		return 1
	case entDef:
		return levelOfDef(e.def)
	case entSubst:
		return exprLevel(e.subst.expr, e.subst.sc)
	case entInstance:
		return 1 // conservatively: instances may bring variables
	}
	return 0
}

// exprLevel is 0 when e depends on no variable (through definitions and
// substitutions), 1 otherwise. Names bound inside e are treated as their
// scope namesakes, which can only make the answer more conservative.
func exprLevel(e tla.Expr, sc *scope) int {
	l := 0
	walk(e, func(x tla.Expr) bool {
		if l > 0 {
			return false
		}
		switch n := x.(type) {
		case *tla.Ident:
			l = max(l, nameLevel(n.Name, sc))
		case *tla.OpApp:
			switch n.Name {
			case "'", "ENABLED", "UNCHANGED", "[]", "<>", "~>", "TLCGet", "TLCSet":
				// TLCGet and TLCSet read and write the checker: never a
				// constant, computed once.
				if len(n.Prefix) == 0 {
					l = 1
					return false
				}
			}
			if len(n.Prefix) > 0 {
				l = 1
				return false
			}
			l = max(l, nameLevel(n.Name, sc))
		case *tla.ActionBox, *tla.ActionAngle, *tla.Fairness:
			l = 1
		}
		return l == 0
	})
	return l
}

// walk calls f on e and its subexpressions, depth first, while f returns
// true.
func walk(e tla.Expr, f func(tla.Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	w := func(xs ...tla.Expr) {
		for _, x := range xs {
			walk(x, f)
		}
	}
	bounds := func(bs []*tla.Bound) {
		for _, b := range bs {
			if b.Set != nil {
				walk(b.Set, f)
			}
		}
	}
	switch n := e.(type) {
	case *tla.OpApp:
		for _, r := range n.Prefix {
			w(r.Args...)
		}
		w(n.Args...)
	case *tla.SetEnum:
		w(n.Elems...)
	case *tla.SetFilter:
		bounds([]*tla.Bound{n.Bound})
		w(n.Pred)
	case *tla.SetMap:
		bounds(n.Bounds)
		w(n.Elem)
	case *tla.Quant:
		bounds(n.Bounds)
		w(n.Body)
	case *tla.Choose:
		bounds([]*tla.Bound{n.Bound})
		w(n.Body)
	case *tla.FuncCons:
		bounds(n.Bounds)
		w(n.Body)
	case *tla.FuncSet:
		w(n.Dom, n.Rng)
	case *tla.RecordCons:
		for _, fl := range n.Fields {
			w(fl.Val)
		}
	case *tla.RecordSet:
		for _, fl := range n.Fields {
			w(fl.Val)
		}
	case *tla.Except:
		w(n.Func)
		for _, u := range n.Updates {
			for _, st := range u.Path {
				w(st.Index...)
			}
			w(u.Val)
		}
	case *tla.FuncApp:
		w(n.Func)
		w(n.Args...)
	case *tla.FieldAccess:
		w(n.Rec)
	case *tla.Tuple:
		w(n.Elems...)
	case *tla.Cross:
		w(n.Sets...)
	case *tla.If:
		w(n.Cond, n.Then, n.Else)
	case *tla.Case:
		for _, a := range n.Arms {
			w(a.Cond, a.Val)
		}
		if n.Other != nil {
			w(n.Other)
		}
	case *tla.Let:
		for _, u := range n.Defs {
			switch d := u.(type) {
			case *tla.OpDef:
				w(d.Body)
			case *tla.FuncDef:
				bounds(d.Bounds)
				w(d.Body)
			}
		}
		w(n.Body)
	case *tla.Lambda:
		w(n.Body)
	case *tla.Junction:
		w(n.Items...)
	case *tla.ActionBox:
		w(n.Action, n.Sub)
	case *tla.ActionAngle:
		w(n.Action, n.Sub)
	case *tla.Fairness:
		w(n.Sub, n.Action)
	}
}
