package eval

import (
	"sync"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/value"
)

// notConstant marks, in a scope's caches, an expression that depends on
// bound names or variables; pending one whose value is being computed
// (and is built as any other meanwhile).
type cacheMark uint8

const (
	notConstant cacheMark = iota
	pending
)

// domain evaluates the set of a quantifier, CHOOSE or function
// constructor. A set that depends on neither variables nor bound names
// (Node \ {0}, [type : {"a"}, x : S]) is enumerated once per scope.
func (c *ctx) domain(e tla.Expr) *value.Set {
	if v, ok := c.sc.domains.Load(e); ok {
		if s, ok := v.(*value.Set); ok {
			return s
		}
		return c.enumerate(e)
	}
	if !c.closed(e) {
		c.sc.domains.Store(e, notConstant)
		return c.enumerate(e)
	}
	s := (&ctx{sc: c.sc, frame: noStates}).enumerate(e)
	c.sc.domains.Store(e, s)
	return s
}

// constant returns the value of e when e depends on neither variables nor
// bound names, computed once per scope: the sets of a type invariant such
// as [RM -> {"working", "prepared"}], a message [type |-> "Commit"]. It
// returns false for any other e, which the caller evaluates.
func (c *ctx) constant(e tla.Expr) (value.Value, bool) {
	if v, ok := c.sc.consts.Load(e); ok {
		if _, mark := v.(cacheMark); mark {
			return nil, false
		}
		return v.(value.Value), true
	}
	if !c.closed(e) || hasEffects(e) {
		c.sc.consts.Store(e, notConstant)
		return nil, false
	}
	c.sc.consts.Store(e, pending)
	v := (&ctx{sc: c.sc, frame: noStates, depth: c.depth}).eval(e)
	c.sc.consts.Store(e, v)
	return v, true
}

// hasEffects reports whether e applies an operator whose every evaluation
// counts (Print, PrintT and RandomElement), so that e must not be
// evaluated once for all.
func hasEffects(e tla.Expr) bool {
	found := false
	walk(e, func(x tla.Expr) bool {
		if n, ok := x.(*tla.OpApp); ok {
			switch n.Name {
			case "Print", "PrintT", "RandomElement":
				found = true
			}
		}
		return !found
	})
	return found
}

// closed reports whether e refers to no bound name of c and no variable.
func (c *ctx) closed(e tla.Expr) bool {
	if c.env != nil {
		bound := false
		walk(e, func(x tla.Expr) bool {
			switch n := x.(type) {
			case *tla.Ident:
				bound = bound || c.env.find(n.Name) != nil
			case *tla.OpApp:
				bound = bound || (len(n.Prefix) == 0 && c.env.find(n.Name) != nil)
			case *tla.AtSign:
				bound = true
			}
			return !bound
		})
		if bound {
			return false
		}
	}
	cacheMu.Lock()
	defer cacheMu.Unlock()
	return exprLevel(e, c.sc) == 0
}

// atUses caches, for the value of an EXCEPT update, whether it refers to
// @ (in a nested EXCEPT's update, @ is that EXCEPT's own).
var atUses sync.Map // tla.Expr -> bool

// usesAt reports whether e, the value of an EXCEPT update, has an @ in it.
// @ is a name of the update's text: an operator defined elsewhere and
// applied in e cannot refer to it.
func usesAt(e tla.Expr) bool {
	if v, ok := atUses.Load(e); ok {
		return v.(bool)
	}
	found := false
	walk(e, func(x tla.Expr) bool {
		_, at := x.(*tla.AtSign)
		found = found || at
		return !found
	})
	atUses.Store(e, found)
	return found
}

// shapes caches the record shape of each record constructor.
var shapes sync.Map // *tla.RecordCons -> *value.RecordShape

func recordShape(n *tla.RecordCons) *value.RecordShape {
	if sh, ok := shapes.Load(n); ok {
		return sh.(*value.RecordShape)
	}
	names := make([]string, len(n.Fields))
	for i, f := range n.Fields {
		names[i] = f.Name
	}
	sh := value.NewRecordShape(names)
	shapes.Store(n, sh)
	return sh
}
