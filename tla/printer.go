package tla

import (
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/tla/literal"
)

// Print renders an expression as TLA+ text on one line. Compound operands
// are parenthesised, so the text parses back to the same tree (junctions come
// back as infix chains).
func Print(x Expr) string {
	var b strings.Builder
	printExpr(&b, x)
	return b.String()
}

// Quote renders s as a TLA+ string literal (literal.Quote, which the
// packages below the parser share).
func Quote(s string) string { return literal.Quote(s) }

// atomic reports whether x prints as a single syntactic unit that never needs
// parentheses as an operand.
func atomic(x Expr) bool {
	switch x := x.(type) {
	case *Ident, *Num, *Str, *Bool, *AtSign, *SetEnum, *SetFilter, *SetMap, *FuncCons,
		*FuncSet, *RecordCons, *RecordSet, *Except, *FuncApp, *FieldAccess, *Tuple,
		*ActionBox, *ActionAngle, *Fairness:
		return true
	case *OpApp:
		// Postfix operators bind tighter than every infix and prefix one.
		return x.Fix == FixCall || x.Fix == FixPostfix
	}
	return false
}

func printOperand(b *strings.Builder, x Expr) {
	if atomic(x) {
		printExpr(b, x)
		return
	}
	b.WriteByte('(')
	printExpr(b, x)
	b.WriteByte(')')
}

func printList(b *strings.Builder, xs []Expr) {
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		printExpr(b, x)
	}
}

func printBound(b *strings.Builder, bd *Bound) {
	if bd.Tuple {
		b.WriteString("<<")
	}
	for i, n := range bd.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n.Name)
	}
	if bd.Tuple {
		b.WriteString(">>")
	}
	if bd.Set != nil {
		b.WriteString(` \in `)
		printExpr(b, bd.Set)
	}
}

func printBounds(b *strings.Builder, bs []*Bound) {
	for i, bd := range bs {
		if i > 0 {
			b.WriteString(", ")
		}
		printBound(b, bd)
	}
}

func printParams(b *strings.Builder, ps []*Param) {
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case p.Arity == 2 && isInfix(p.Name):
			b.WriteString("_ " + p.Name + " _")
		case p.Arity == 1 && postfixOps[p.Name]:
			b.WriteString("_" + p.Name)
		case p.Arity == 1 && p.Name == "-.":
			b.WriteString("-. _")
		default:
			b.WriteString(p.Name)
			if p.Arity > 0 {
				b.WriteString("(" + strings.TrimSuffix(strings.Repeat("_, ", p.Arity), ", ") + ")")
			}
		}
	}
}

func printExpr(b *strings.Builder, x Expr) {
	switch x := x.(type) {
	case nil:
		b.WriteString("<nil>")
	case *Ident:
		b.WriteString(x.Name)
	case *Num:
		b.WriteString(x.Value)
	case *Str:
		b.WriteString(Quote(x.Value))
	case *Bool:
		if x.Value {
			b.WriteString("TRUE")
		} else {
			b.WriteString("FALSE")
		}
	case *AtSign:
		b.WriteString("@")
	case *OpApp:
		for _, r := range x.Prefix {
			b.WriteString(r.Name)
			if len(r.Args) > 0 {
				b.WriteByte('(')
				printList(b, r.Args)
				b.WriteByte(')')
			}
			b.WriteByte('!')
		}
		switch x.Fix {
		case FixInfix:
			printOperand(b, x.Args[0])
			b.WriteString(" " + x.Name + " ")
			printOperand(b, x.Args[1])
		case FixPrefix:
			name := x.Name
			if name == "-." {
				name = "-"
			}
			b.WriteString(name)
			if len(name) > 2 || strings.ToUpper(name) == name && isLetter(name[0]) {
				b.WriteByte(' ')
			}
			printOperand(b, x.Args[0])
		case FixPostfix:
			printOperand(b, x.Args[0])
			b.WriteString(x.Name)
		default:
			b.WriteString(x.Name)
			if len(x.Args) > 0 {
				b.WriteByte('(')
				printList(b, x.Args)
				b.WriteByte(')')
			}
		}
	case *SetEnum:
		b.WriteByte('{')
		printList(b, x.Elems)
		b.WriteByte('}')
	case *SetFilter:
		b.WriteByte('{')
		printBound(b, x.Bound)
		b.WriteString(" : ")
		printExpr(b, x.Pred)
		b.WriteByte('}')
	case *SetMap:
		b.WriteByte('{')
		if _, ok := asBound(x.Elem); ok {
			// Unparenthesised, {x \in S : ...} would read as a filter.
			printOperand(b, x.Elem)
		} else {
			printExpr(b, x.Elem)
		}
		b.WriteString(" : ")
		printBounds(b, x.Bounds)
		b.WriteByte('}')
	case *Quant:
		if x.Kind == Forall {
			b.WriteString(`\A `)
		} else {
			b.WriteString(`\E `)
		}
		printBounds(b, x.Bounds)
		b.WriteString(" : ")
		printExpr(b, x.Body)
	case *Choose:
		b.WriteString("CHOOSE ")
		printBound(b, x.Bound)
		b.WriteString(" : ")
		printExpr(b, x.Body)
	case *FuncCons:
		b.WriteByte('[')
		printBounds(b, x.Bounds)
		b.WriteString(" |-> ")
		printExpr(b, x.Body)
		b.WriteByte(']')
	case *FuncSet:
		b.WriteByte('[')
		printExpr(b, x.Dom)
		b.WriteString(" -> ")
		printExpr(b, x.Rng)
		b.WriteByte(']')
	case *RecordCons, *RecordSet:
		fields, sep := []*Field(nil), " |-> "
		if r, ok := x.(*RecordCons); ok {
			fields = r.Fields
		} else {
			fields, sep = x.(*RecordSet).Fields, " : "
		}
		b.WriteByte('[')
		for i, f := range fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name + sep)
			printExpr(b, f.Val)
		}
		b.WriteByte(']')
	case *Except:
		b.WriteByte('[')
		printExpr(b, x.Func)
		b.WriteString(" EXCEPT ")
		for i, u := range x.Updates {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('!')
			for _, s := range u.Path {
				if s.Index == nil {
					b.WriteString("." + s.Field)
				} else {
					b.WriteByte('[')
					printList(b, s.Index)
					b.WriteByte(']')
				}
			}
			b.WriteString(" = ")
			printExpr(b, u.Val)
		}
		b.WriteByte(']')
	case *FuncApp:
		printOperand(b, x.Func)
		b.WriteByte('[')
		printList(b, x.Args)
		b.WriteByte(']')
	case *FieldAccess:
		printOperand(b, x.Rec)
		b.WriteString("." + x.Field)
	case *Tuple:
		b.WriteString("<<")
		printList(b, x.Elems)
		b.WriteString(">>")
	case *Cross:
		for i, s := range x.Sets {
			if i > 0 {
				b.WriteString(` \X `)
			}
			printOperand(b, s)
		}
	case *If:
		b.WriteString("IF ")
		printExpr(b, x.Cond)
		b.WriteString(" THEN ")
		printExpr(b, x.Then)
		b.WriteString(" ELSE ")
		printExpr(b, x.Else)
	case *Case:
		b.WriteString("CASE ")
		for i, a := range x.Arms {
			if i > 0 {
				b.WriteString(" [] ")
			}
			printOperand(b, a.Cond)
			b.WriteString(" -> ")
			printOperand(b, a.Val)
		}
		if x.Other != nil {
			b.WriteString(" [] OTHER -> ")
			printOperand(b, x.Other)
		}
	case *Let:
		b.WriteString("LET ")
		for _, d := range x.Defs {
			printUnit(b, d)
			b.WriteByte(' ')
		}
		b.WriteString("IN ")
		printExpr(b, x.Body)
	case *Lambda:
		b.WriteString("LAMBDA ")
		printParams(b, x.Params)
		b.WriteString(" : ")
		printExpr(b, x.Body)
	case *Junction:
		if len(x.Items) == 1 {
			b.WriteString(x.Op.String() + " ")
		}
		for i, it := range x.Items {
			if i > 0 {
				b.WriteString(" " + x.Op.String() + " ")
			}
			printOperand(b, it)
		}
	case *ActionBox:
		b.WriteByte('[')
		printExpr(b, x.Action)
		b.WriteString("]_")
		printOperand(b, x.Sub)
	case *ActionAngle:
		b.WriteString("<<")
		printExpr(b, x.Action)
		b.WriteString(">>_")
		printOperand(b, x.Sub)
	case *Fairness:
		if x.Strong {
			b.WriteString("SF_")
		} else {
			b.WriteString("WF_")
		}
		printOperand(b, x.Sub)
		b.WriteByte('(')
		printExpr(b, x.Action)
		b.WriteByte(')')
	default:
		fmt.Fprintf(b, "<%T>", x)
	}
}

// PrintUnit renders a definition or declaration as TLA+ text on one line.
func PrintUnit(u Unit) string {
	var b strings.Builder
	printUnit(&b, u)
	return b.String()
}

func printUnit(b *strings.Builder, u Unit) {
	switch u := u.(type) {
	case *OpDef:
		if u.Local {
			b.WriteString("LOCAL ")
		}
		switch ps := u.Params; {
		case len(ps) == 2 && isInfix(u.Name):
			b.WriteString(ps[0].Name + " " + u.Name + " " + ps[1].Name)
		case len(ps) == 1 && postfixOps[u.Name]:
			b.WriteString(ps[0].Name + u.Name)
		case len(ps) == 1 && u.Name == "-.":
			b.WriteString("-. " + ps[0].Name)
		default:
			b.WriteString(u.Name)
			if len(ps) > 0 {
				b.WriteByte('(')
				printParams(b, ps)
				b.WriteByte(')')
			}
		}
		b.WriteString(" == ")
		printExpr(b, u.Body)
	case *FuncDef:
		if u.Local {
			b.WriteString("LOCAL ")
		}
		b.WriteString(u.Name + "[")
		printBounds(b, u.Bounds)
		b.WriteString("] == ")
		printExpr(b, u.Body)
	case *Recursive:
		b.WriteString("RECURSIVE ")
		printParams(b, u.Ops)
	case *Constant:
		b.WriteString("CONSTANTS ")
		printParams(b, u.Names)
	case *Variable:
		b.WriteString("VARIABLES ")
		for i, n := range u.Names {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(n.Name)
		}
	case *Assume:
		b.WriteString("ASSUME ")
		if u.Name != "" {
			b.WriteString(u.Name + " == ")
		}
		printExpr(b, u.Body)
	case *Theorem:
		b.WriteString("THEOREM ")
		if u.Name != "" {
			b.WriteString(u.Name + " == ")
		}
		printExpr(b, u.Body)
	case *Instance:
		if u.Local {
			b.WriteString("LOCAL ")
		}
		if u.Name != "" {
			b.WriteString(u.Name)
			if len(u.Params) > 0 {
				b.WriteByte('(')
				printParams(b, u.Params)
				b.WriteByte(')')
			}
			b.WriteString(" == ")
		}
		b.WriteString("INSTANCE " + u.Module)
		for i, s := range u.Subst {
			if i == 0 {
				b.WriteString(" WITH ")
			} else {
				b.WriteString(", ")
			}
			b.WriteString(s.Name + " <- ")
			printExpr(b, s.Expr)
		}
	case *Module:
		b.WriteString("MODULE " + u.Name)
	default:
		fmt.Fprintf(b, "<%T>", u)
	}
}
