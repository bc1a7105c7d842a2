package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/roomspec/roomspec/tla/eval"
)

// ltl is a temporal formula in negation normal form over atoms; the
// negation of a property is put in this form before it is turned into a
// tableau.
type ltl struct {
	op   ltlOp
	atom int // index into the atom table, for lAtom
	neg  bool
	args []*ltl
	key  string // canonical text, for sets of formulas
}

type ltlOp int

const (
	lTrue ltlOp = iota
	lFalse
	lAtom
	lAnd
	lOr
	lAlways
	lEventually
)

// atomTable numbers the predicates that properties and fairness refer to.
type atomTable struct {
	atoms []*atom
	index map[string]int
}

// atom is a state predicate (evaluated on a state) or an action predicate
// (evaluated on a step, stuttering steps included).
type atom struct {
	formula *eval.Formula
	action  bool
	// enabled marks ENABLED <<A>>_v atoms (A in formula, v in sub); angle
	// marks <<A>>_v atoms.
	enabled, angle bool
	sub            *eval.Formula
	text           string
	// angle is, for an ENABLED <<A>>_v atom, the index of the <<A>>_v atom.
	angleAtom int
}

func (t *atomTable) add(a *atom) int {
	// The key names the formula itself, not just its expression: instances
	// of a quantified property (\A v \in S : []<>(x = v)) share the
	// expression but bind v to different values.
	key := fmt.Sprintf("%v|%v|%v|%s|%p|%p", a.action, a.enabled, a.angle, a.text, a.formula, a.sub)
	if i, ok := t.index[key]; ok {
		return i
	}
	t.atoms = append(t.atoms, a)
	t.index[key] = len(t.atoms) - 1
	return len(t.atoms) - 1
}

func mk(op ltlOp, args ...*ltl) *ltl {
	f := &ltl{op: op, args: args}
	f.key = f.text()
	return f
}

func mkAtom(i int, neg bool) *ltl {
	f := &ltl{op: lAtom, atom: i, neg: neg}
	f.key = f.text()
	return f
}

func (f *ltl) text() string {
	switch f.op {
	case lTrue:
		return "T"
	case lFalse:
		return "F"
	case lAtom:
		if f.neg {
			return fmt.Sprintf("!a%d", f.atom)
		}
		return fmt.Sprintf("a%d", f.atom)
	}
	parts := make([]string, len(f.args))
	for i, a := range f.args {
		parts[i] = a.key
	}
	name := map[ltlOp]string{lAnd: "&", lOr: "|", lAlways: "G", lEventually: "F"}[f.op]
	if f.op == lAnd || f.op == lOr {
		sort.Strings(parts)
	}
	return name + "(" + strings.Join(parts, ",") + ")"
}

// toLTL converts a temporal formula to negation normal form; neg says the
// formula is negated.
func (t *atomTable) toLTL(x *eval.Temporal, neg bool) (*ltl, error) {
	switch x.Op {
	case eval.TAtom:
		a := &atom{formula: x.Atom, action: x.Action, text: x.Atom.String()}
		if x.Angle != nil {
			a = &atom{formula: x.Angle, sub: x.Sub, action: true, angle: true, text: "<<" + x.Angle.String() + ">>_" + x.Sub.String()}
		}
		return mkAtom(t.add(a), neg), nil
	case eval.TNot:
		return t.toLTL(x.Args[0], !neg)
	case eval.TAnd, eval.TOr:
		op := lAnd
		if (x.Op == eval.TOr) != neg {
			op = lOr
		}
		var args []*ltl
		for _, a := range x.Args {
			l, err := t.toLTL(a, neg)
			if err != nil {
				return nil, err
			}
			args = append(args, l)
		}
		if len(args) == 1 {
			return args[0], nil
		}
		return mk(op, args...), nil
	case eval.TAlways, eval.TEventually:
		inner, err := t.toLTL(x.Args[0], neg)
		if err != nil {
			return nil, err
		}
		if (x.Op == eval.TAlways) != neg {
			return mk(lAlways, inner), nil
		}
		return mk(lEventually, inner), nil
	case eval.TLeadsTo:
		// P ~> Q == [](~P \/ <>Q); its negation is <>(P /\ []~Q).
		p, err := t.toLTL(x.Args[0], false)
		if err != nil {
			return nil, err
		}
		q, err := t.toLTL(x.Args[1], false)
		if err != nil {
			return nil, err
		}
		if neg {
			nq, _ := t.toLTL(x.Args[1], true)
			return mk(lEventually, mk(lAnd, p, mk(lAlways, nq))), nil
		}
		np, _ := t.toLTL(x.Args[0], true)
		return mk(lAlways, mk(lOr, np, mk(lEventually, q))), nil
	case eval.TWeakFair, eval.TStrongFair:
		en, ang := t.fairAtoms(x)
		if x.Op == eval.TWeakFair {
			// WF == []<>~EN \/ []<>Angle; negated: <>[]EN /\ <>[]~Angle.
			if neg {
				return mk(lAnd, mk(lEventually, mk(lAlways, mkAtom(en, false))), mk(lEventually, mk(lAlways, mkAtom(ang, true)))), nil
			}
			return mk(lOr, mk(lAlways, mk(lEventually, mkAtom(en, true))), mk(lAlways, mk(lEventually, mkAtom(ang, false)))), nil
		}
		// SF == <>[]~EN \/ []<>Angle; negated: []<>EN /\ <>[]~Angle.
		if neg {
			return mk(lAnd, mk(lAlways, mk(lEventually, mkAtom(en, false))), mk(lEventually, mk(lAlways, mkAtom(ang, true)))), nil
		}
		return mk(lOr, mk(lEventually, mk(lAlways, mkAtom(en, true))), mk(lAlways, mk(lEventually, mkAtom(ang, false)))), nil
	}
	return nil, fmt.Errorf("unsupported temporal formula %s", x)
}

// fairAtoms returns the atoms ENABLED <<A>>_v and <<A>>_v of a fairness
// condition.
func (t *atomTable) fairAtoms(x *eval.Temporal) (en, ang int) {
	text := "<<" + x.Fair.String() + ">>_" + x.Sub.String()
	ang = t.add(&atom{formula: x.Fair, sub: x.Sub, action: true, angle: true, text: text})
	en = t.add(&atom{formula: x.Fair, sub: x.Sub, enabled: true, text: "ENABLED " + text, angleAtom: ang})
	return en, ang
}
