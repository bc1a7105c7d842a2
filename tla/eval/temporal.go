package eval

import (
	"github.com/roomspec/roomspec/tla"
)

// TOp is the operator of a node of a temporal formula.
type TOp int

// Temporal operators. Quantifiers over finite sets are expanded into TAnd
// and TOr; definitions are expanded where their bodies are temporal.
const (
	TAtom       TOp = iota // a state or action predicate (Atom)
	TAnd                   // Args[0] /\ Args[1] /\ ...
	TOr                    // Args[0] \/ Args[1] \/ ...
	TNot                   // ~Args[0]
	TAlways                // []Args[0]
	TEventually            // <>Args[0]
	TLeadsTo               // Args[0] ~> Args[1]
	TWeakFair              // WF_Sub(Action)
	TStrongFair            // SF_Sub(Action)
)

// Temporal is a temporal formula whose leaves are state or action
// predicates.
type Temporal struct {
	Op   TOp
	Args []*Temporal
	// Atom is the predicate of a TAtom; Action marks an action-level one
	// (it has primes, so it is evaluated on a step).
	Atom   *Formula
	Action bool
	// Box is set for an atom [A]_v (A and v kept apart so that a checker can
	// enumerate A); Angle for <<A>>_v.
	Box, Angle *Formula
	Sub        *Formula // the v of [A]_v, <<A>>_v, WF_v(A), SF_v(A)
	// Fair is the A of WF_v(A) / SF_v(A).
	Fair *Formula
	Pos  tla.Pos
}

// String renders the formula for messages.
func (t *Temporal) String() string {
	switch t.Op {
	case TAtom:
		return t.Atom.String()
	case TAnd, TOr:
		op := " /\\ "
		if t.Op == TOr {
			op = " \\/ "
		}
		s := "("
		for i, a := range t.Args {
			if i > 0 {
				s += op
			}
			s += a.String()
		}
		return s + ")"
	case TNot:
		return "~" + t.Args[0].String()
	case TAlways:
		return "[]" + t.Args[0].String()
	case TEventually:
		return "<>" + t.Args[0].String()
	case TLeadsTo:
		return "(" + t.Args[0].String() + " ~> " + t.Args[1].String() + ")"
	case TWeakFair:
		return "WF_" + t.Sub.String() + "(" + t.Fair.String() + ")"
	case TStrongFair:
		return "SF_" + t.Sub.String() + "(" + t.Fair.String() + ")"
	}
	return "?"
}

// IsTemporal reports whether f contains a temporal operator.
func (t *Temporal) IsTemporal() bool { return t.Op != TAtom }

// Temporal decomposes the formula f into its temporal structure.
func (sp *Spec) Temporal(f *Formula) (t *Temporal, err error) {
	defer recoverError(&err)
	c := f.ctx(nil, nil)
	c.shared = true
	return c.temporal(f.Expr, f.Name), nil
}

// temporal builds the tree for e. Subformulas without temporal operators
// become atoms.
func (c *ctx) temporal(e tla.Expr, name string) *Temporal {
	if !c.hasTemporal(e, map[*def]bool{}) {
		return c.atom(e, name)
	}
	switch n := e.(type) {
	case *tla.Junction:
		op := TAnd
		if n.Op == tla.Or {
			op = TOr
		}
		t := &Temporal{Op: op, Pos: n.At}
		for _, it := range n.Items {
			t.Args = append(t.Args, c.temporal(it, ""))
		}
		return t
	case *tla.Fairness:
		op := TWeakFair
		if n.Strong {
			op = TStrongFair
		}
		return &Temporal{Op: op, Pos: n.At, Sub: c.formula(n.Sub), Fair: c.formula(n.Action)}
	case *tla.Let:
		return c.withLet(n.Defs).temporal(n.Body, name)
	case *tla.If:
		if c.env == nil && func() bool { cacheMu.Lock(); defer cacheMu.Unlock(); return exprLevel(n.Cond, c.sc) == 0 }() {
			if c.bool(n.Cond) {
				return c.temporal(n.Then, name)
			}
			return c.temporal(n.Else, name)
		}
		// IF P THEN A ELSE B with P a state predicate is
		// (P /\ A) \/ (~P /\ B), P evaluated in the first state.
		cond := c.atom(n.Cond, "")
		return &Temporal{Op: TOr, Pos: n.At, Args: []*Temporal{
			{Op: TAnd, Pos: n.At, Args: []*Temporal{cond, c.temporal(n.Then, "")}},
			{Op: TAnd, Pos: n.At, Args: []*Temporal{{Op: TNot, Pos: n.At, Args: []*Temporal{cond}}, c.temporal(n.Else, "")}},
		}}
	case *tla.Quant:
		op := TAnd
		if n.Kind == tla.Exists {
			op = TOr
		}
		if hasUnbounded(n.Bounds) {
			c.fail(n.At, "unbounded quantifier over a temporal formula is not supported")
		}
		t := &Temporal{Op: op, Pos: n.At}
		c.forBoundsFresh(n.Bounds, func(c2 *ctx) bool {
			t.Args = append(t.Args, c2.temporal(n.Body, ""))
			return false
		})
		if len(t.Args) == 0 {
			// \A over the empty set is TRUE, \E is FALSE.
			return c.atom(&tla.Bool{At: n.At, Value: op == TAnd}, "")
		}
		return t
	case *tla.Ident:
		if b := c.env.find(n.Name); b != nil && b.op != nil && len(b.op.params) == 0 {
			c2 := &ctx{sc: b.op.sc, env: b.op.env, frame: sharedNoStates}
			return c2.temporal(b.op.body, n.Name)
		} else if b != nil && b.th != nil {
			return c.argCtx(b, n.At).temporal(b.th.expr, n.Name)
		}
		if ent := c.sc.lookup(n.Name); ent != nil {
			switch ent.kind {
			case entDef:
				c2 := &ctx{sc: ent.def.sc, frame: sharedNoStates}
				return c2.temporal(ent.def.body, n.Name)
			case entSubst:
				c2 := &ctx{sc: ent.subst.sc, env: ent.subst.env, frame: sharedNoStates}
				return c2.temporal(ent.subst.expr, n.Name)
			}
		}
	case *tla.OpApp:
		if op, ok := c.resolveOp(n); ok {
			var body tla.Expr
			var params []*tla.Param
			var c2 *ctx
			switch {
			case op.cl != nil:
				body, params = op.cl.body, op.cl.params
				c2 = &ctx{sc: op.cl.sc, env: op.cl.env, frame: sharedNoStates}
			case op.def != nil:
				body, params = op.def.body, op.def.params
				c2 = &ctx{sc: op.def.sc, frame: sharedNoStates}
			default:
				c.fail(n.At, "cannot expand %s in a temporal formula", n.Name)
			}
			if len(n.Args) != len(params) {
				c.fail(n.At, "%s takes %d arguments, got %d", n.Name, len(params), len(n.Args))
			}
			c.bindParams(c2, params, n.Args)
			return c2.temporal(body, n.Name)
		}
		a := n.Args
		switch n.Name {
		case "/\\":
			return &Temporal{Op: TAnd, Pos: n.At, Args: []*Temporal{c.temporal(a[0], ""), c.temporal(a[1], "")}}
		case "\\/":
			return &Temporal{Op: TOr, Pos: n.At, Args: []*Temporal{c.temporal(a[0], ""), c.temporal(a[1], "")}}
		case "~":
			return &Temporal{Op: TNot, Pos: n.At, Args: []*Temporal{c.temporal(a[0], "")}}
		case "=>":
			return &Temporal{Op: TOr, Pos: n.At, Args: []*Temporal{
				{Op: TNot, Pos: n.At, Args: []*Temporal{c.temporal(a[0], "")}}, c.temporal(a[1], "")}}
		case "<=>":
			l, r := c.temporal(a[0], ""), c.temporal(a[1], "")
			return &Temporal{Op: TOr, Pos: n.At, Args: []*Temporal{
				{Op: TAnd, Args: []*Temporal{l, r}},
				{Op: TAnd, Args: []*Temporal{{Op: TNot, Args: []*Temporal{l}}, {Op: TNot, Args: []*Temporal{r}}}}}}
		case "[]":
			return &Temporal{Op: TAlways, Pos: n.At, Args: []*Temporal{c.temporal(a[0], "")}}
		case "<>":
			return &Temporal{Op: TEventually, Pos: n.At, Args: []*Temporal{c.temporal(a[0], "")}}
		case "~>":
			return &Temporal{Op: TLeadsTo, Pos: n.At, Args: []*Temporal{c.temporal(a[0], ""), c.temporal(a[1], "")}}
		}
	}
	c.fail(e.Pos(), "unsupported temporal formula %s", tla.Print(e))
	return nil
}

func (c *ctx) formula(e tla.Expr) *Formula {
	return &Formula{Expr: e, Name: tla.Print(e), sc: c.sc, env: c.env}
}

func (c *ctx) atom(e tla.Expr, name string) *Temporal {
	f := c.formula(e)
	if name != "" {
		f.Name = name
	}
	t := &Temporal{Op: TAtom, Atom: f, Pos: e.Pos(), Action: c.hasPrime(e, map[*def]bool{})}
	switch n := e.(type) {
	case *tla.ActionBox:
		t.Box, t.Sub = c.formula(n.Action), c.formula(n.Sub)
	case *tla.ActionAngle:
		t.Angle, t.Sub = c.formula(n.Action), c.formula(n.Sub)
	}
	return t
}

// hasTemporal reports whether e contains [], <>, ~> or fairness, looking
// through definitions (ENABLED of an action is a state predicate).
func (c *ctx) hasTemporal(e tla.Expr, seen map[*def]bool) bool {
	return c.contains(e, seen, func(x tla.Expr) bool {
		switch n := x.(type) {
		case *tla.Fairness:
			return true
		case *tla.OpApp:
			switch n.Name {
			case "[]", "<>", "~>", "-+->":
				return len(n.Prefix) == 0
			}
		}
		return false
	})
}

// hasPrime reports whether e is action-level: it contains a prime,
// UNCHANGED, [A]_v or <<A>>_v outside ENABLED, looking through definitions.
func (c *ctx) hasPrime(e tla.Expr, seen map[*def]bool) bool {
	return c.contains(e, seen, func(x tla.Expr) bool {
		switch n := x.(type) {
		case *tla.ActionBox, *tla.ActionAngle:
			return true
		case *tla.OpApp:
			return len(n.Prefix) == 0 && (n.Name == "'" || n.Name == "UNCHANGED")
		}
		return false
	})
}

// contains reports whether some subexpression of e satisfies is, looking
// through the definitions, LET operators, instance substitutions and
// module-qualified references that e names (each definition once), but not
// into ENABLED.
func (c *ctx) contains(e tla.Expr, seen map[*def]bool, is func(tla.Expr) bool) bool {
	found := false
	walk(e, func(x tla.Expr) bool {
		if found {
			return false
		}
		if is(x) {
			found = true
			return false
		}
		switch n := x.(type) {
		case *tla.OpApp:
			if len(n.Prefix) == 0 && n.Name == "ENABLED" {
				return false
			}
			if len(n.Prefix) > 0 {
				if sc := c.instanceScopeNoArgs(n.Prefix); sc != nil {
					if ent := sc.lookup(n.Name); ent != nil && ent.kind == entDef && !seen[ent.def] {
						seen[ent.def] = true
						found = (&ctx{sc: ent.def.sc, frame: noStates}).contains(ent.def.body, seen, is)
					}
				}
			}
			found = found || c.nameContains(n.Name, seen, is)
		case *tla.Ident:
			found = c.nameContains(n.Name, seen, is)
		}
		return !found
	})
	return found
}

func (c *ctx) nameContains(name string, seen map[*def]bool, is func(tla.Expr) bool) bool {
	if b := c.env.find(name); b != nil {
		if b.op != nil && b.op.body != nil && b.op.builtin == "" {
			return (&ctx{sc: b.op.sc, env: b.op.env, frame: noStates}).contains(b.op.body, seen, is)
		}
		if b.th != nil {
			return (&ctx{sc: b.th.sc, env: b.th.env, frame: noStates}).contains(b.th.expr, seen, is)
		}
		return false
	}
	ent := c.sc.lookup(name)
	if ent == nil {
		return false
	}
	switch ent.kind {
	case entDef:
		if seen[ent.def] {
			return false
		}
		seen[ent.def] = true
		return (&ctx{sc: ent.def.sc, frame: noStates}).contains(ent.def.body, seen, is)
	case entSubst:
		return (&ctx{sc: ent.subst.sc, env: ent.subst.env, frame: noStates}).contains(ent.subst.expr, seen, is)
	}
	return false
}

// instanceScopeNoArgs resolves an instance path whose steps take no
// arguments, or returns nil.
func (c *ctx) instanceScopeNoArgs(path []*tla.InstanceRef) *scope {
	for _, r := range path {
		if len(r.Args) > 0 {
			return nil
		}
	}
	defer func() { _ = recover() }()
	return c.instanceScope(path)
}
