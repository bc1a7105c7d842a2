package tla

// Inspect traverses the tree rooted at n depth-first, in source order,
// calling f for every node; when f returns false the node's children are
// skipped. Besides units and expressions it visits the auxiliary nodes
// (*Param, *Bound, *Field, *CaseArm, *ExceptUpdate, *ExceptStep,
// *InstanceRef, *Subst), so a caller can see every bound name. Extends
// identifiers of a module are visited too. Nil children are skipped.
func Inspect(n Node, f func(Node) bool) {
	if n == nil || !f(n) {
		return
	}
	walkExprs := func(xs []Expr) {
		for _, x := range xs {
			Inspect(x, f)
		}
	}
	walkBounds := func(bs []*Bound) {
		for _, b := range bs {
			Inspect(b, f)
		}
	}
	walkParams := func(ps []*Param) {
		for _, p := range ps {
			Inspect(p, f)
		}
	}
	switch n := n.(type) {
	case *Module:
		for _, e := range n.Extends {
			Inspect(e, f)
		}
		for _, u := range n.Units {
			Inspect(u, f)
		}
	case *Constant:
		walkParams(n.Names)
	case *Variable:
		for _, id := range n.Names {
			Inspect(id, f)
		}
	case *OpDef:
		walkParams(n.Params)
		Inspect(n.Body, f)
	case *FuncDef:
		walkBounds(n.Bounds)
		Inspect(n.Body, f)
	case *Instance:
		walkParams(n.Params)
		for _, s := range n.Subst {
			Inspect(s, f)
		}
	case *Subst:
		Inspect(n.Expr, f)
	case *Assume:
		Inspect(n.Body, f)
	case *Recursive:
		walkParams(n.Ops)
	case *Theorem:
		Inspect(n.Body, f)
	case *OpApp:
		for _, r := range n.Prefix {
			Inspect(r, f)
		}
		walkExprs(n.Args)
	case *InstanceRef:
		walkExprs(n.Args)
	case *SetEnum:
		walkExprs(n.Elems)
	case *Bound:
		for _, id := range n.Names {
			Inspect(id, f)
		}
		Inspect(n.Set, f)
	case *SetFilter:
		Inspect(n.Bound, f)
		Inspect(n.Pred, f)
	case *SetMap:
		Inspect(n.Elem, f)
		walkBounds(n.Bounds)
	case *Quant:
		walkBounds(n.Bounds)
		Inspect(n.Body, f)
	case *Choose:
		Inspect(n.Bound, f)
		Inspect(n.Body, f)
	case *FuncCons:
		walkBounds(n.Bounds)
		Inspect(n.Body, f)
	case *FuncSet:
		Inspect(n.Dom, f)
		Inspect(n.Rng, f)
	case *Field:
		Inspect(n.Val, f)
	case *RecordCons:
		for _, fl := range n.Fields {
			Inspect(fl, f)
		}
	case *RecordSet:
		for _, fl := range n.Fields {
			Inspect(fl, f)
		}
	case *Except:
		Inspect(n.Func, f)
		for _, u := range n.Updates {
			Inspect(u, f)
		}
	case *ExceptUpdate:
		for _, s := range n.Path {
			Inspect(s, f)
		}
		Inspect(n.Val, f)
	case *ExceptStep:
		walkExprs(n.Index)
	case *FuncApp:
		Inspect(n.Func, f)
		walkExprs(n.Args)
	case *FieldAccess:
		Inspect(n.Rec, f)
	case *Tuple:
		walkExprs(n.Elems)
	case *Cross:
		walkExprs(n.Sets)
	case *If:
		Inspect(n.Cond, f)
		Inspect(n.Then, f)
		Inspect(n.Else, f)
	case *CaseArm:
		Inspect(n.Cond, f)
		Inspect(n.Val, f)
	case *Case:
		for _, a := range n.Arms {
			Inspect(a, f)
		}
		Inspect(n.Other, f)
	case *Let:
		for _, d := range n.Defs {
			Inspect(d, f)
		}
		Inspect(n.Body, f)
	case *Lambda:
		walkParams(n.Params)
		Inspect(n.Body, f)
	case *Junction:
		walkExprs(n.Items)
	case *ActionBox:
		Inspect(n.Action, f)
		Inspect(n.Sub, f)
	case *ActionAngle:
		Inspect(n.Action, f)
		Inspect(n.Sub, f)
	case *Fairness:
		Inspect(n.Sub, f)
		Inspect(n.Action, f)
	}
}
