package tla

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Dump renders a module, unit or expression as an indented S-expression that
// shows the tree's shape exactly (node kinds, operator names, junction
// structure), for golden tests and debugging. Positions are omitted except on
// units, so small edits in comments do not churn goldens.
func Dump(n Node) string {
	d := &dumper{}
	d.node(n, 0)
	return d.b.String()
}

type dumper struct{ b bytes.Buffer }

func (d *dumper) line(depth int, format string, args ...any) {
	d.b.WriteString(strings.Repeat("  ", depth))
	fmt.Fprintf(&d.b, format, args...)
	d.b.WriteByte('\n')
}

func names(ids []*Ident) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = id.Name
	}
	return strings.Join(s, " ")
}

func params(ps []*Param) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Name
		if p.Arity > 0 {
			s[i] += "/" + strconv.Itoa(p.Arity)
		}
	}
	return "(" + strings.Join(s, " ") + ")"
}

func (d *dumper) bound(b *Bound, depth int) {
	kind := "bound"
	if b.Tuple {
		kind = "bound-tuple"
	}
	if b.Set == nil {
		d.line(depth, "(%s %s)", kind, names(b.Names))
		return
	}
	d.line(depth, "(%s %s", kind, names(b.Names))
	d.node(b.Set, depth+1)
	d.close()
}

// close appends ")" to the last line.
func (d *dumper) close() {
	d.b.Truncate(d.b.Len() - 1)
	d.b.WriteString(")\n")
}

func leaf(x Expr) (string, bool) {
	switch x := x.(type) {
	case *Ident:
		return x.Name, true
	case *Num:
		return "(num " + x.Value + ")", true
	case *Str:
		return strconv.Quote(x.Value), true
	case *Bool:
		return strconv.FormatBool(x.Value), true
	case *AtSign:
		return "@", true
	}
	return "", false
}

// list prints (head x...) on one line when every x is a leaf.
func (d *dumper) list(depth int, head string, xs []Expr) {
	var flat []string
	for _, x := range xs {
		s, ok := leaf(x)
		if !ok {
			flat = nil
			break
		}
		flat = append(flat, s)
	}
	if flat != nil {
		d.line(depth, "(%s %s)", head, strings.Join(flat, " "))
		return
	}
	d.line(depth, "(%s", head)
	for _, x := range xs {
		d.node(x, depth+1)
	}
	d.close()
}

func (d *dumper) node(n Node, depth int) {
	switch n := n.(type) {
	case nil:
		d.line(depth, "nil")
	case *Module:
		d.line(depth, "(module %s @%s extends(%s)", n.Name, n.At, names(n.Extends))
		for _, u := range n.Units {
			d.node(u, depth+1)
		}
		d.close()
	case *Constant:
		d.line(depth, "(constants @%s %s)", n.At, params(n.Names))
	case *Variable:
		d.line(depth, "(variables @%s %s)", n.At, names(n.Names))
	case *OpDef:
		local := ""
		if n.Local {
			local = " local"
		}
		d.line(depth, "(def%s %s%s @%s", local, n.Name, params(n.Params), n.At)
		d.node(n.Body, depth+1)
		d.close()
	case *FuncDef:
		d.line(depth, "(funcdef %s @%s", n.Name, n.At)
		for _, b := range n.Bounds {
			d.bound(b, depth+1)
		}
		d.node(n.Body, depth+1)
		d.close()
	case *Instance:
		d.line(depth, "(instance %q%s local=%v %s @%s", n.Name, params(n.Params), n.Local, n.Module, n.At)
		for _, s := range n.Subst {
			d.line(depth+1, "(<- %s", s.Name)
			d.node(s.Expr, depth+2)
			d.close()
		}
		d.close()
	case *Assume:
		d.line(depth, "(assume %q @%s", n.Name, n.At)
		d.node(n.Body, depth+1)
		d.close()
	case *Recursive:
		d.line(depth, "(recursive @%s %s)", n.At, params(n.Ops))
	case *Theorem:
		d.line(depth, "(theorem %q @%s", n.Name, n.At)
		d.node(n.Body, depth+1)
		d.close()
	case *Ident:
		d.line(depth, "%s", n.Name)
	case *Num:
		d.line(depth, "(num %s)", n.Value)
	case *Str:
		d.line(depth, "%q", n.Value)
	case *Bool:
		d.line(depth, "%v", n.Value)
	case *AtSign:
		d.line(depth, "@")
	case *OpApp:
		head := n.Name
		if len(n.Prefix) > 0 {
			var b strings.Builder
			for _, r := range n.Prefix {
				b.WriteString(r.Name)
				if len(r.Args) > 0 {
					b.WriteString("(" + strings.Join(exprStrings(r.Args), ", ") + ")")
				}
				b.WriteByte('!')
			}
			head = b.String() + n.Name
		}
		kind := [...]string{"call", "infix", "prefix", "postfix"}[n.Fix]
		if len(n.Args) == 0 {
			d.line(depth, "(%s %s)", kind, head)
			return
		}
		d.list(depth, kind+" "+strconv.Quote(head), n.Args)
	case *SetEnum:
		if len(n.Elems) == 0 {
			d.line(depth, "(set)")
			return
		}
		d.list(depth, "set", n.Elems)
	case *SetFilter:
		d.line(depth, "(set-filter")
		d.bound(n.Bound, depth+1)
		d.node(n.Pred, depth+1)
		d.close()
	case *SetMap:
		d.line(depth, "(set-map")
		d.node(n.Elem, depth+1)
		for _, b := range n.Bounds {
			d.bound(b, depth+1)
		}
		d.close()
	case *Quant:
		d.line(depth, "(%s", map[QuantKind]string{Forall: `\A`, Exists: `\E`}[n.Kind])
		for _, b := range n.Bounds {
			d.bound(b, depth+1)
		}
		d.node(n.Body, depth+1)
		d.close()
	case *Choose:
		d.line(depth, "(choose")
		d.bound(n.Bound, depth+1)
		d.node(n.Body, depth+1)
		d.close()
	case *FuncCons:
		d.line(depth, "(func")
		for _, b := range n.Bounds {
			d.bound(b, depth+1)
		}
		d.node(n.Body, depth+1)
		d.close()
	case *FuncSet:
		d.list(depth, "func-set", []Expr{n.Dom, n.Rng})
	case *RecordCons:
		d.line(depth, "(record")
		for _, f := range n.Fields {
			d.line(depth+1, "(%s", f.Name)
			d.node(f.Val, depth+2)
			d.close()
		}
		d.close()
	case *RecordSet:
		d.line(depth, "(record-set")
		for _, f := range n.Fields {
			d.line(depth+1, "(%s", f.Name)
			d.node(f.Val, depth+2)
			d.close()
		}
		d.close()
	case *Except:
		d.line(depth, "(except")
		d.node(n.Func, depth+1)
		for _, u := range n.Updates {
			var path []string
			for _, s := range u.Path {
				if s.Index == nil {
					path = append(path, "."+s.Field)
				} else {
					path = append(path, "["+strings.Join(exprStrings(s.Index), ", ")+"]")
				}
			}
			d.line(depth+1, "(! %s", strings.Join(path, ""))
			d.node(u.Val, depth+2)
			d.close()
		}
		d.close()
	case *FuncApp:
		d.list(depth, "apply", append([]Expr{n.Func}, n.Args...))
	case *FieldAccess:
		d.line(depth, "(field %s", n.Field)
		d.node(n.Rec, depth+1)
		d.close()
	case *Tuple:
		if len(n.Elems) == 0 {
			d.line(depth, "(tuple)")
			return
		}
		d.list(depth, "tuple", n.Elems)
	case *Cross:
		d.list(depth, "cross", n.Sets)
	case *If:
		d.list(depth, "if", []Expr{n.Cond, n.Then, n.Else})
	case *Case:
		d.line(depth, "(case")
		for _, a := range n.Arms {
			d.list(depth+1, "arm", []Expr{a.Cond, a.Val})
		}
		if n.Other != nil {
			d.list(depth+1, "other", []Expr{n.Other})
		}
		d.close()
	case *Let:
		d.line(depth, "(let")
		for _, u := range n.Defs {
			d.node(u, depth+1)
		}
		d.node(n.Body, depth+1)
		d.close()
	case *Lambda:
		d.line(depth, "(lambda %s", params(n.Params))
		d.node(n.Body, depth+1)
		d.close()
	case *Junction:
		head := n.Op.String()
		if n.Bulleted {
			head = "bulleted " + head
		}
		d.list(depth, head, n.Items)
	case *ActionBox:
		d.list(depth, "[]_", []Expr{n.Action, n.Sub})
	case *ActionAngle:
		d.list(depth, "<<>>_", []Expr{n.Action, n.Sub})
	case *Fairness:
		head := "WF"
		if n.Strong {
			head = "SF"
		}
		d.list(depth, head, []Expr{n.Sub, n.Action})
	default:
		d.line(depth, "(? %T)", n)
	}
}

func exprStrings(xs []Expr) []string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = Print(x)
	}
	return s
}
