package tla

import (
	"fmt"
	"slices"
)

// level is the level of an expression as far as it is known inside a
// definition: at least c, and at least the level of the arguments passed
// for the parameters ps (of this or an enclosing definition).
type level struct {
	c  int
	ps []*Symbol
}

func (a level) join(b level) level {
	a.c = max(a.c, b.c)
	for _, p := range b.ps {
		if !slices.Contains(a.ps, p) {
			a.ps = append(a.ps, p)
		}
	}
	return a
}

var levelNames = [...]string{"a constant", "a state-level expression", "an action", "a temporal formula"}

var levelLimits = [...]string{"a constant", "a constant or state-level expression", "an expression of at most action level", "any formula"}

// atMost checks that an expression of level l, argument of what (at pos),
// has at most level limit, and bounds the parameters it depends on.
func (r *resolver) atMost(l level, limit int, arg Expr, pos Pos, what string) level {
	if l.c > limit {
		r.errorf(pos, "level error: %s is %s, but %s takes %s", short(Print(arg)), levelNames[l.c], what, levelLimits[limit])
	}
	for _, p := range l.ps {
		p.maxLevel = min(p.maxLevel, limit)
	}
	return l
}

func short(s string) string {
	if len(s) > 48 {
		return s[:45] + "..."
	}
	return s
}

// all resolves es, each of level at most limit in what.
func (r *resolver) all(limit int, pos Pos, what string, es ...Expr) level {
	var l level
	for _, e := range es {
		l = l.join(r.atMost(r.expr(e), limit, e, pos, what))
	}
	return l
}

// expr resolves the names of e and returns its level.
func (r *resolver) expr(e Expr) level {
	switch n := e.(type) {
	case nil, *Bool, *Num, *Str:
		return level{}
	case *AtSign:
		for i := len(r.groups) - 1; i >= 0; i-- {
			if g := r.groups[i]; g.at {
				r.info.uses[n] = Use{Symbol: g.syms[0], Up: len(r.groups) - 1 - i}
				return level{}
			}
		}
		r.errorf(n.At, "@ is used outside the new value of an EXCEPT update")
		return level{}
	case *Ident:
		return r.ident(n)
	case *OpApp:
		return r.opApp(n)
	case *Junction:
		return r.all(TemporalLevel, n.At, "a conjunction or disjunction", n.Items...)
	case *If:
		return r.all(TemporalLevel, n.At, "IF/THEN/ELSE", n.Cond, n.Then, n.Else)
	case *Case:
		var l level
		for _, a := range n.Arms {
			l = l.join(r.all(TemporalLevel, a.At, "CASE", a.Cond, a.Val))
		}
		if n.Other != nil {
			l = l.join(r.all(TemporalLevel, n.At, "CASE", n.Other))
		}
		return l
	case *Let:
		return r.let(n)
	case *SetEnum:
		return r.all(ActionLevel, n.At, "a set element", n.Elems...)
	case *Tuple:
		return r.all(ActionLevel, n.At, "a tuple component", n.Elems...)
	case *SetFilter:
		return r.bounds(n, []*Bound{n.Bound}, func() level {
			return r.all(ActionLevel, n.At, "the condition of a set {x \\in S : P}", n.Pred)
		})
	case *SetMap:
		return r.bounds(n, n.Bounds, func() level {
			return r.all(ActionLevel, n.At, "the element of a set {e : x \\in S}", n.Elem)
		})
	case *Quant:
		return r.bounds(n, n.Bounds, func() level { return r.expr(n.Body) })
	case *Choose:
		return r.bounds(n, []*Bound{n.Bound}, func() level {
			return r.all(ActionLevel, n.At, "CHOOSE", n.Body)
		})
	case *FuncCons:
		return r.bounds(n, n.Bounds, func() level { return r.expr(n.Body) })
	case *FuncSet:
		return r.all(ActionLevel, n.At, "a function set", n.Dom, n.Rng)
	case *RecordCons:
		var l level
		for _, f := range n.Fields {
			l = l.join(r.expr(f.Val))
		}
		return l
	case *RecordSet:
		var l level
		for _, f := range n.Fields {
			l = l.join(r.all(ActionLevel, f.At, "a record set", f.Val))
		}
		return l
	case *Except:
		return r.except(n)
	case *FuncApp:
		l := r.all(ActionLevel, n.At, "a function application", n.Func)
		return l.join(r.all(ActionLevel, n.At, "a function application", n.Args...))
	case *FieldAccess:
		return r.all(ActionLevel, n.At, "a record field", n.Rec)
	case *Cross:
		return r.all(ActionLevel, n.At, "a Cartesian product", n.Sets...)
	case *Lambda:
		r.errorf(n.At, "a LAMBDA can only be the argument of an operator parameter")
		r.lambda(n, len(n.Params))
		return level{}
	case *ActionBox:
		l := r.all(ActionLevel, n.At, "[A]_v (A)", n.Action)
		r.all(StateLevel, n.At, "[A]_v (v)", n.Sub)
		return level{c: ActionLevel, ps: l.ps}
	case *ActionAngle:
		l := r.all(ActionLevel, n.At, "<<A>>_v (A)", n.Action)
		r.all(StateLevel, n.At, "<<A>>_v (v)", n.Sub)
		return level{c: ActionLevel, ps: l.ps}
	case *Fairness:
		r.all(StateLevel, n.At, "WF_v(A) and SF_v(A) (v)", n.Sub)
		r.all(ActionLevel, n.At, "WF_v(A) and SF_v(A) (A)", n.Action)
		return level{c: TemporalLevel}
	}
	r.errorf(e.Pos(), "unexpected %T", e)
	return level{}
}

// bounds resolves the sets of bs, then body with their names bound in a
// group of binder.
func (r *resolver) bounds(binder Node, bs []*Bound, body func() level) level {
	var l level
	n := 0
	for _, b := range bs {
		if b.Set != nil {
			l = l.join(r.expr(b.Set))
		}
		n += len(b.Names)
	}
	if n == 0 {
		return l.join(body())
	}
	r.push(binder, n)
	i := 0
	for _, b := range bs {
		for _, id := range b.Names {
			r.bind(&Symbol{Kind: SymBound, Name: id.Name, Module: r.mod, At: id.At, Decl: id}, i)
			i++
		}
	}
	l = l.join(body())
	r.pop()
	return l
}

// let resolves LET definitions in order (each sees those before it, and
// those declared RECURSIVE), then the body.
func (r *resolver) let(n *Let) level {
	slot := map[string]int{}
	count := 0
	for _, u := range n.Defs {
		switch d := u.(type) {
		case *OpDef:
			slot[d.Name] = count
			count++
		case *FuncDef:
			slot[d.Name] = count
			count++
		}
	}
	if count == 0 {
		return r.expr(n.Body)
	}
	r.push(n, count)
	for _, u := range n.Defs {
		switch d := u.(type) {
		case *Recursive:
			for _, p := range d.Ops {
				i, ok := slot[p.Name]
				if !ok {
					r.errorf(p.At, "%s is declared RECURSIVE but not defined in this LET", p.Name)
					continue
				}
				r.bind(&Symbol{Kind: SymDefinition, Name: p.Name, Module: r.mod, At: p.At, Params: args(p.Arity), Recursive: true}, i)
			}
		case *OpDef:
			if s := r.opDef(d, true); s != nil {
				r.bind(s, slot[d.Name])
			}
		case *FuncDef:
			s := r.bind(&Symbol{Kind: SymDefinition, Name: d.Name, Module: r.mod, At: d.At, Decl: d}, slot[d.Name])
			r.funcDef(d, s)
		}
	}
	l := r.expr(n.Body)
	r.pop()
	return l
}

// except resolves [f EXCEPT ![a] = v, ...]; a v that uses @ is resolved
// in a group binding @.
func (r *resolver) except(n *Except) level {
	l := r.all(ActionLevel, n.At, "EXCEPT", n.Func)
	for _, u := range n.Updates {
		for _, st := range u.Path {
			l = l.join(r.all(ActionLevel, st.At, "an EXCEPT path", st.Index...))
		}
		if !usesAt(u.Val) {
			l = l.join(r.all(ActionLevel, u.At, "EXCEPT", u.Val))
			continue
		}
		r.push(u, 1)
		g := r.groups[len(r.groups)-1]
		g.at = true
		g.syms = append(g.syms, &Symbol{Kind: SymBound, Name: "@", Module: r.mod, At: u.At, Local: true, defined: true})
		r.info.atBound[u] = true
		l = l.join(r.all(ActionLevel, u.At, "EXCEPT", u.Val))
		r.pop()
	}
	return l
}

// usesAt reports whether e has an @ in it (one of a nested EXCEPT's
// update too, which at worst binds @ where it is not needed).
func usesAt(e Expr) bool {
	found := false
	Inspect(e, func(n Node) bool {
		_, at := n.(*AtSign)
		found = found || at
		return !found
	})
	return found
}

// lambda resolves a LAMBDA passed for an operator of arity arguments.
func (r *resolver) lambda(n *Lambda, arity int) level {
	if len(n.Params) != arity {
		r.errorf(n.At, "LAMBDA with %d parameters where an operator of %d arguments is expected", len(n.Params), arity)
	}
	r.push(n, len(n.Params))
	for i, p := range n.Params {
		r.bind(&Symbol{Kind: SymParameter, Name: p.Name, Module: r.mod, At: p.At, Decl: p}, i)
	}
	r.expr(n.Body)
	r.pop()
	return level{}
}

// ident resolves a bare name, used as a value.
func (r *resolver) ident(n *Ident) level {
	s, up := r.lookup(n.Name)
	if s == nil {
		r.errorf(n.At, "unknown name %s%s", n.Name, r.hint(n.Name))
		return level{}
	}
	if s.Arity() > 0 {
		r.errorf(n.At, "%s takes %d argument(s), got 0", n.Name, s.Arity())
		return level{}
	}
	if s.Kind == SymInstance {
		r.errorf(n.At, "%s is a module instance: write %s!Name", n.Name, n.Name)
		return level{}
	}
	r.info.uses[n] = Use{Symbol: s, Up: up}
	return r.apply(s, n, nil, nil)
}

// hint says why a name may be unknown.
func (r *resolver) hint(name string) string {
	if d := r.defining; d != nil && d.Name == name {
		return fmt.Sprintf(" (%s is used in its own definition: a recursive operator must be declared RECURSIVE %s before it)", name, recursiveDecl(d))
	}
	for _, b := range Builtins {
		if b.Name == name && b.Module != "" {
			return fmt.Sprintf(" (it is defined in the standard module %s: EXTENDS %s)", b.Module, b.Module)
		}
	}
	for _, u := range r.mod.Units {
		if d, ok := u.(*OpDef); ok && d.Name == name {
			return fmt.Sprintf(" (it is defined below, at %s: an operator must be defined before it is used, or declared RECURSIVE %s before)", d.At, recursiveDecl(d))
		}
		if d, ok := u.(*FuncDef); ok && d.Name == name {
			return fmt.Sprintf(" (it is defined below, at %s: a definition must come before its uses)", d.At)
		}
	}
	return ""
}

// recursiveDecl renders the RECURSIVE declaration of d: F(_, _).
func recursiveDecl(d *OpDef) string {
	if len(d.Params) == 0 {
		return d.Name
	}
	s := d.Name + "("
	for i := range d.Params {
		if i > 0 {
			s += ", "
		}
		s += "_"
	}
	return s + ")"
}

// opApp resolves an operator application.
func (r *resolver) opApp(n *OpApp) level {
	if len(n.Prefix) > 0 {
		return r.qualified(n, -1)
	}
	s, up := r.lookup(n.Name)
	if s == nil {
		r.errorf(n.At, "unknown operator %s%s", n.Name, r.hint(n.Name))
		r.all(TemporalLevel, n.At, "", n.Args...)
		return level{}
	}
	if len(n.Args) != s.Arity() {
		r.errorf(n.At, "%s takes %d argument(s), got %d", n.Name, s.Arity(), len(n.Args))
		r.all(TemporalLevel, n.At, "", n.Args...)
		return level{}
	}
	if s.Kind == SymInstance {
		r.errorf(n.At, "%s is a module instance: write %s!Name", n.Name, n.Name)
		return level{}
	}
	r.info.uses[n] = Use{Symbol: s, Up: up}
	return r.apply(s, n, n.Args, r.arguments(s, n.Args))
}

// arguments resolves the arguments of an application of s.
func (r *resolver) arguments(s *Symbol, as []Expr) []level {
	ls := make([]level, len(as))
	for i, a := range as {
		if s.Params[i] > 0 {
			ls[i] = r.opArg(a, s.Params[i])
		} else {
			ls[i] = r.expr(a)
		}
	}
	return ls
}

// apply returns the level of an application of s (at n) to arguments of
// levels ls, checking them against what s allows.
func (r *resolver) apply(s *Symbol, n Expr, as []Expr, ls []level) level {
	name := s.Name
	switch s.Kind {
	case SymVariable:
		return level{c: StateLevel}
	case SymConstant, SymBound:
		var l level
		for _, a := range ls {
			l = l.join(a)
		}
		return l
	case SymParameter:
		l := level{ps: []*Symbol{s}}
		for _, a := range ls {
			l = l.join(a)
		}
		return l
	case SymBuiltin:
		b := s.Builtin
		l := level{c: b.Level}
		for i, a := range ls {
			if b.Params[i] > 0 {
				continue
			}
			a = r.atMost(a, b.argMax(i), as[i], n.Pos(), name)
			if b.weighs(i) {
				l = l.join(a)
			}
		}
		switch {
		case b.Op == OpAlways && ls[0].c == ActionLevel && !isNode[*ActionBox](as[0]):
			r.errorf(n.Pos(), "[] applied to an action that is not of the form [A]_v: %s", short(Print(as[0])))
		case b.Op == OpEventually && ls[0].c == ActionLevel && !isNode[*ActionAngle](as[0]):
			r.errorf(n.Pos(), "<> applied to an action that is not of the form <<A>>_v: %s", short(Print(as[0])))
		}
		return l
	}
	l := level{c: s.Level, ps: slices.Clone(s.outer)}
	for i, a := range ls {
		limit := TemporalLevel
		if s.ParamMax != nil {
			limit = s.ParamMax[i]
		}
		a = r.atMost(a, limit, as[i], n.Pos(), fmt.Sprintf("argument %d of %s", i+1, name))
		if s.weight == nil || s.weight[i] {
			l = l.join(a)
		}
	}
	return l
}

func isNode[T Expr](e Expr) bool {
	_, ok := e.(T)
	return ok
}

// qualified resolves M(a)!N!Op(b) (or, with arity >= 0, the operator
// M!Op passed for a parameter of that arity), or a subexpression name
// Op!1!:.
func (r *resolver) qualified(n *OpApp, arity int) level {
	first := n.Prefix[0]
	s, _ := r.lookup(first.Name)
	switch {
	case s == nil:
		r.errorf(first.At, "unknown name %s%s", first.Name, r.hint(first.Name))
		return level{}
	case s.Kind == SymDefinition:
		// A subexpression name: the evaluator selects the operand.
		r.info.uses[n] = Use{Symbol: s, Selector: true}
		for _, ref := range n.Prefix {
			r.all(TemporalLevel, ref.At, "", ref.Args...)
		}
		r.all(TemporalLevel, n.At, "", n.Args...)
		return level{c: s.Level, ps: slices.Clone(s.outer)}
	case s.Kind != SymInstance:
		r.errorf(first.At, "%s is not a module instance (it is %s)", first.Name, describeDecl(s))
		return level{}
	}
	path := []*Symbol{s}
	l := level{c: s.subst}
	inst := s
	for i, ref := range n.Prefix {
		if i > 0 {
			ns := r.instanceNamespace(inst)
			t := ns.exported[ref.Name]
			if t == nil || t.Kind != SymInstance {
				r.errorf(ref.At, "module %s has no instance %s", instanceModule(inst), ref.Name)
				return level{}
			}
			inst = t
			path = append(path, t)
			l.c = max(l.c, t.subst)
		}
		if len(ref.Args) != inst.Arity() {
			r.errorf(ref.At, "instance %s takes %d argument(s), got %d", ref.Name, inst.Arity(), len(ref.Args))
		}
		l = l.join(r.all(ActionLevel, ref.At, "an instance", ref.Args...))
	}
	ns := r.instanceNamespace(inst)
	t := ns.exported[n.Name]
	switch {
	case t == nil:
		r.errorf(n.At, "module %s has no definition %s", instanceModule(inst), n.Name)
		return level{}
	case t.Kind == SymConstant || t.Kind == SymVariable:
		r.errorf(n.At, "%s is a %s of module %s, which the instance substitutes; it has no definition %s", n.Name, t.Kind, instanceModule(inst), n.Name)
		return level{}
	}
	want := len(n.Args)
	if arity >= 0 {
		want = arity
	}
	if t.Arity() != want {
		r.errorf(n.At, "%s takes %d argument(s), got %d", n.Name, t.Arity(), want)
		return level{}
	}
	r.info.uses[n] = Use{Symbol: t, Path: path}
	if arity >= 0 {
		return level{}
	}
	return l.join(r.apply(t, n, n.Args, r.arguments(t, n.Args)))
}

// instanceNamespace is the namespace of the module an instance symbol
// instantiates.
func (r *resolver) instanceNamespace(s *Symbol) *Namespace {
	if ns := r.info.instances[s.Decl.(*Instance)]; ns != nil {
		return ns
	}
	return &Namespace{}
}

func instanceModule(s *Symbol) string { return s.Decl.(*Instance).Module }

// opArg resolves an argument passed for an operator parameter of arity
// arguments: a LAMBDA, the name of an operator, or M!Op.
func (r *resolver) opArg(a Expr, arity int) level {
	switch x := a.(type) {
	case *Lambda:
		return r.lambda(x, arity)
	case *Ident:
		return r.opName(a, x.Name, x.At, arity)
	case *OpApp:
		if len(x.Args) == 0 && len(x.Prefix) > 0 {
			return r.qualified(x, arity)
		}
		if len(x.Args) == 0 {
			return r.opName(a, x.Name, x.At, arity)
		}
	}
	r.errorf(a.Pos(), "expected an operator of %d argument(s) (a name or a LAMBDA), found %s", arity, short(Print(a)))
	r.expr(a)
	return level{}
}

// opName resolves the name of an operator passed as an argument.
func (r *resolver) opName(a Expr, name string, at Pos, arity int) level {
	s, up := r.lookup(name)
	switch {
	case s == nil:
		r.errorf(at, "unknown operator %s%s", name, r.hint(name))
	case s.Arity() != arity:
		r.errorf(at, "%s takes %d argument(s), where an operator of %d argument(s) is expected", name, s.Arity(), arity)
	default:
		r.info.uses[a] = Use{Symbol: s, Up: up}
	}
	return level{}
}
