package eval

import (
	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
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
	return c.temporal(f.e, f.Name), nil
}

// temporal builds the tree for e. Subformulas without temporal operators
// become atoms.
func (c *ctx) temporal(e expr, name string) *Temporal {
	if !c.hasTemporal(e, map[*defn]bool{}) {
		return c.atom(e, name)
	}
	switch n := e.(type) {
	case *junction:
		op := TAnd
		if !n.and {
			op = TOr
		}
		t := &Temporal{Op: op, Pos: pos(n)}
		for _, it := range n.items {
			t.Args = append(t.Args, c.temporal(it, ""))
		}
		return t
	case *fairness:
		op := TWeakFair
		if n.strong {
			op = TStrongFair
		}
		return &Temporal{Op: op, Pos: pos(n), Sub: c.formula(n.sub), Fair: c.formula(n.a)}
	case *letExpr:
		return c.withLet(n).temporal(n.body, name)
	case *ifExpr:
		if c.env == nil && constantIn(n.cond) {
			if c.bool(n.cond) {
				return c.temporal(n.then, name)
			}
			return c.temporal(n.els, name)
		}
		// IF P THEN A ELSE B with P a state predicate is
		// (P /\ A) \/ (~P /\ B), P evaluated in the first state.
		cond := c.atom(n.cond, "")
		at := pos(n)
		return &Temporal{Op: TOr, Pos: at, Args: []*Temporal{
			{Op: TAnd, Pos: at, Args: []*Temporal{cond, c.temporal(n.then, "")}},
			{Op: TAnd, Pos: at, Args: []*Temporal{{Op: TNot, Pos: at, Args: []*Temporal{cond}}, c.temporal(n.els, "")}},
		}}
	case *quant:
		op := TAnd
		if n.exists {
			op = TOr
		}
		if n.b.unbounded() {
			c.fail(pos(n), "unbounded quantifier over a temporal formula is not supported")
		}
		t := &Temporal{Op: op, Pos: pos(n)}
		c.forBoundsFresh(n.b, func(c2 *ctx) bool {
			t.Args = append(t.Args, c2.temporal(n.body, ""))
			return false
		})
		if len(t.Args) == 0 {
			// \A over the empty set is TRUE, \E is FALSE.
			b := &tla.Bool{At: pos(n), Value: op == TAnd}
			return c.atom(&lit{node{b}, value.Bool(b.Value)}, "")
		}
		return t
	case *local:
		if b := c.env.at(n.up, n.slot); b.th != nil {
			return c.argCtx(b, pos(n)).temporal(b.th.e, tla.Print(n.src()))
		}
	case *defRef:
		if n.d.fn == nil {
			c2 := &ctx{sc: c.scopeOf(n.d, n.at), states: sharedNoStates}
			return c2.temporal(n.d.body, n.d.name)
		}
	case *substRef:
		if n.s.e != nil {
			cx := c.sc.cx
			c2 := &ctx{sc: cx.outer, env: cx.env, states: sharedNoStates}
			return c2.temporal(n.s.e, tla.Print(n.src()))
		}
	case *callDef:
		if n.d.fn == nil && n.d.native == nil {
			c2 := &ctx{sc: c.scopeOf(n.d, n.at), states: sharedNoStates}
			c2.env = c.bindArgs(n.args, n.ops, nil)
			return c2.temporal(n.d.body, n.d.name)
		}
	case *callLocal:
		if cl := c.env.at(n.up, n.slot).op; enumerable(cl) {
			return c.temporalClosure(cl, n.args, n.ops, pos(n))
		}
	case *callSubst:
		if cl := c.substOp(n.s, pos(n)); enumerable(cl) {
			return c.temporalClosure(cl, n.args, n.ops, pos(n))
		}
	case *callBuiltin:
		a := n.args
		at := pos(n)
		switch n.op {
		case tla.OpAnd:
			return &Temporal{Op: TAnd, Pos: at, Args: []*Temporal{c.temporal(a[0], ""), c.temporal(a[1], "")}}
		case tla.OpOr:
			return &Temporal{Op: TOr, Pos: at, Args: []*Temporal{c.temporal(a[0], ""), c.temporal(a[1], "")}}
		case tla.OpNot:
			return &Temporal{Op: TNot, Pos: at, Args: []*Temporal{c.temporal(a[0], "")}}
		case tla.OpImplies:
			return &Temporal{Op: TOr, Pos: at, Args: []*Temporal{
				{Op: TNot, Pos: at, Args: []*Temporal{c.temporal(a[0], "")}}, c.temporal(a[1], "")}}
		case tla.OpEquiv:
			l, r := c.temporal(a[0], ""), c.temporal(a[1], "")
			return &Temporal{Op: TOr, Pos: at, Args: []*Temporal{
				{Op: TAnd, Args: []*Temporal{l, r}},
				{Op: TAnd, Args: []*Temporal{{Op: TNot, Args: []*Temporal{l}}, {Op: TNot, Args: []*Temporal{r}}}}}}
		case tla.OpAlways:
			return &Temporal{Op: TAlways, Pos: at, Args: []*Temporal{c.temporal(a[0], "")}}
		case tla.OpEventually:
			return &Temporal{Op: TEventually, Pos: at, Args: []*Temporal{c.temporal(a[0], "")}}
		case tla.OpLeadsTo:
			return &Temporal{Op: TLeadsTo, Pos: at, Args: []*Temporal{c.temporal(a[0], ""), c.temporal(a[1], "")}}
		}
	case *selector:
		c2 := &ctx{sc: c.scopeOf(n.d, n.at), states: sharedNoStates}
		return c2.temporal(n.e, name)
	}
	c.fail(pos(e), "unsupported temporal formula %s", tla.Print(e.src()))
	return nil
}

// temporalClosure decomposes an operator applied to arguments written in
// c.
func (c *ctx) temporalClosure(cl *closure, args []expr, ops []*opArg, at tla.Pos) *Temporal {
	if len(args) != cl.nparams {
		c.fail(at, "%s takes %d arguments, got %d", cl.name, cl.nparams, len(args))
	}
	c2 := &ctx{sc: cl.sc, states: sharedNoStates}
	c2.env = c.bindArgs(args, ops, cl.env)
	return c2.temporal(cl.body, cl.name)
}

// constantIn reports whether e depends on no state: a literal, a
// constant or a constant definition.
func constantIn(e expr) bool {
	switch n := e.(type) {
	case *lit:
		return true
	case *defRef:
		return n.d.constant
	}
	return !varies(e)
}

func (c *ctx) formula(e expr) *Formula {
	return &Formula{Expr: e.src(), e: e, Name: tla.Print(e.src()), sc: c.sc, env: c.env}
}

func (c *ctx) atom(e expr, name string) *Temporal {
	f := c.formula(e)
	if name != "" {
		f.Name = name
	}
	t := &Temporal{Op: TAtom, Atom: f, Pos: pos(e), Action: c.hasPrime(e, map[*defn]bool{})}
	switch n := e.(type) {
	case *actionBox:
		t.Box, t.Sub = c.formula(n.a), c.formula(n.sub)
	case *actionAngle:
		t.Angle, t.Sub = c.formula(n.a), c.formula(n.sub)
	}
	return t
}

// hasTemporal reports whether e contains [], <>, ~> or fairness, looking
// through definitions (ENABLED of an action is a state predicate).
func (c *ctx) hasTemporal(e expr, seen map[*defn]bool) bool {
	return c.contains(e, seen, func(x expr) bool {
		switch n := x.(type) {
		case *fairness:
			return true
		case *callBuiltin:
			switch n.op {
			case tla.OpAlways, tla.OpEventually, tla.OpLeadsTo, tla.OpWhilePlus:
				return true
			}
		}
		return false
	})
}

// hasPrime reports whether e is action-level: it contains a prime,
// UNCHANGED, [A]_v or <<A>>_v outside ENABLED, looking through definitions.
func (c *ctx) hasPrime(e expr, seen map[*defn]bool) bool {
	return c.contains(e, seen, func(x expr) bool {
		switch n := x.(type) {
		case *actionBox, *actionAngle:
			return true
		case *callBuiltin:
			return n.op == tla.OpPrime || n.op == tla.OpUnchanged
		}
		return false
	})
}

// contains reports whether some subexpression of e satisfies is, looking
// through the definitions, LET operators, arguments and instance
// substitutions that e names (each definition once), but not into
// ENABLED.
func (c *ctx) contains(e expr, seen map[*defn]bool, is func(expr) bool) bool {
	if is(e) {
		return true
	}
	switch n := e.(type) {
	case *callBuiltin:
		if n.op == tla.OpEnabled {
			return false
		}
		return c.allContain(n.args, seen, is) || c.lambdasContain(n.ops, seen, is)
	case *defRef:
		if c.defContains(n.d, n.at, seen, is) {
			return true
		}
	case *callDef:
		if c.defContains(n.d, n.at, seen, is) {
			return true
		}
		for _, h := range n.at.hops {
			if c.allContain(h.args, seen, is) {
				return true
			}
		}
		return c.allContain(n.args, seen, is) || c.lambdasContain(n.ops, seen, is)
	case *selector:
		if c.defContains(n.d, n.at, seen, is) {
			return true
		}
	case *local:
		if c.localContains(n.up, n.slot, seen, is) {
			return true
		}
	case *callLocal:
		if c.localContains(n.up, n.slot, seen, is) {
			return true
		}
		return c.allContain(n.args, seen, is) || c.lambdasContain(n.ops, seen, is)
	case *callSubst:
		if n.s.op != nil && c.opContains(n.s, seen, is) {
			return true
		}
		return c.allContain(n.args, seen, is) || c.lambdasContain(n.ops, seen, is)
	case *substRef:
		if n.s.e != nil {
			cx := c.sc.cx
			if (&ctx{sc: cx.outer, env: cx.env, states: noStates}).contains(n.s.e, seen, is) {
				return true
			}
		}
	case *letExpr:
		c2 := c.withLet(n)
		for _, d := range n.defs {
			switch {
			case d.fn != nil:
				if c2.boundsContain(d.fn.b, d.fn.body, seen, is) {
					return true
				}
			case d.nparams > 0:
				if c2.inside(d.nparams).contains(d.body, seen, is) {
					return true
				}
			}
		}
		return c2.contains(n.body, seen, is)
	case *setFilter:
		return c.boundsContain(n.b, n.pred, seen, is)
	case *setMap:
		return c.boundsContain(n.b, n.elem, seen, is)
	case *quant:
		return c.boundsContain(n.b, n.body, seen, is)
	case *choose:
		return c.boundsContain(n.b, n.body, seen, is)
	case *funcCons:
		return c.boundsContain(n.b, n.body, seen, is)
	case *except:
		if c.contains(n.f, seen, is) {
			return true
		}
		for _, u := range n.updates {
			for _, st := range u.path {
				for _, x := range st.index {
					if c.contains(x, seen, is) {
						return true
					}
				}
			}
			c2 := c
			if u.bindsAt {
				c2 = c.inside(1)
			}
			if c2.contains(u.val, seen, is) {
				return true
			}
		}
		return false
	}
	found := false
	children(e, func(x expr) { found = found || c.contains(x, seen, is) })
	return found
}

// allContain is contains for each of es.
func (c *ctx) allContain(es []expr, seen map[*defn]bool, is func(expr) bool) bool {
	for _, x := range es {
		if x != nil && c.contains(x, seen, is) {
			return true
		}
	}
	return false
}

// lambdasContain is contains for the bodies of the LAMBDA arguments of a
// call, inside a group for their parameters: a name a body binds must not
// be taken for the one in the same slot around the call (a LET definition
// the call is the body of, which would be visited again without end).
func (c *ctx) lambdasContain(ops []*opArg, seen map[*defn]bool, is func(expr) bool) bool {
	for _, o := range ops {
		if o != nil && o.body != nil && c.inside(o.nparams).contains(o.body, seen, is) {
			return true
		}
	}
	return false
}

// boundsContain is contains for a binder's sets and the expression its
// names are bound in.
func (c *ctx) boundsContain(b *binder, body expr, seen map[*defn]bool, is func(expr) bool) bool {
	for _, bd := range b.bounds {
		if bd.set != nil && c.contains(bd.set, seen, is) {
			return true
		}
	}
	return c.inside(b.slots).contains(body, seen, is)
}

// inside returns c with a group of n empty slots: the names a binder binds,
// whose values are not known.
func (c *ctx) inside(n int) *ctx {
	c2 := *c
	c2.env = c.env.push(n)
	return &c2
}

func (c *ctx) defContains(d *defn, w where, seen map[*defn]bool, is func(expr) bool) bool {
	if seen[d] || d.body == nil && d.fn == nil {
		return false
	}
	sc := c.tryScopeOf(d, w)
	if sc == nil {
		return false
	}
	seen[d] = true
	c2 := &ctx{states: noStates, sc: sc}
	if d.fn != nil {
		return c2.boundsContain(d.fn.b, d.fn.body, seen, is)
	}
	if len(d.params) > 0 {
		c2 = c2.inside(len(d.params))
	}
	return c2.contains(d.body, seen, is)
}

func (c *ctx) localContains(up, slot int, seen map[*defn]bool, is func(expr) bool) bool {
	b := c.env.lookup(up, slot)
	switch {
	case b == nil:
	case b.op != nil && b.op.body != nil && b.op.op == tla.OpNone:
		c2 := &ctx{sc: b.op.sc, env: b.op.env, states: noStates}
		if b.op.nparams > 0 {
			c2 = c2.inside(b.op.nparams)
		}
		return c2.contains(b.op.body, seen, is)
	case b.th != nil:
		return (&ctx{sc: b.th.sc, env: b.th.env, states: noStates}).contains(b.th.e, seen, is)
	}
	return false
}

// tryScopeOf is scopeOf for a definition reached through instances whose
// arguments may not be evaluable yet (nil then).
func (c *ctx) tryScopeOf(d *defn, w where) (sc *scope) {
	defer func() {
		if recover() != nil {
			sc = nil
		}
	}()
	return c.scopeOf(d, w)
}

// opContains is contains for the operator replacing an operator constant
// of the instance c is in.
func (c *ctx) opContains(s *substitution, seen map[*defn]bool, is func(expr) bool) bool {
	cx := c.sc.cx
	c2 := &ctx{sc: cx.outer, env: cx.env, states: noStates}
	switch o := s.op; o.kind {
	case opLambda:
		return c2.inside(o.nparams).contains(o.body, seen, is)
	case opDef:
		return c2.defContains(o.d, o.where, seen, is)
	}
	return false
}
