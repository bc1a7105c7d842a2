package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/spec/tla"
)

// compileWires compiles the @wire annotations of every action into
// Config.WireMessages: the messages an action puts on (or takes off) the
// wire when taken in a state. Compiling them checks their expressions
// against the spec: a typo in an annotation is an error at the action.
func (g *gen) compileWires() {
	var w strings.Builder
	w.WriteString("// WireMessages returns the messages the action a puts on or takes off\n// the wire when it is taken in state s (its @wire annotations evaluated\n// in s), in annotation order.\nfunc (c *Config) WireMessages(a Action, s *State) []WireMessage {\nvar out []WireMessage\nswitch a.ID {\n")
	for _, a := range g.actions {
		var wires []*wireAnn
		for _, an := range a.annots {
			if an[0] == "wire" {
				wires = append(wires, g.parseWire(a, an[1]))
			}
		}
		if len(wires) == 0 {
			continue
		}
		fmt.Fprintf(&w, "case Act%s:\n", a.goName)
		cx := &ctx{g: g, s: "s"}
		for i, p := range a.def.Params {
			v := "p_" + p.Name
			conv := g.goType(a.params[i]) + "(a.Params[" + strconv.Itoa(i) + "])"
			if a.params[i].kind == tBool {
				conv = "a.Params[" + strconv.Itoa(i) + "] != 0"
			}
			fmt.Fprintf(&w, "%s := %s\n_ = %s\n", v, conv, v)
			cx = cx.with(p.Name, v, a.params[i])
		}
		for _, wa := range wires {
			g.inAnnotation(a, wa, func() { g.compileWire(&w, a, wa, cx) })
		}
	}
	w.WriteString("}\nreturn out\n}\n")
	g.wireCode = w.String()
}

// inAnnotation runs f, moving an error in an annotation's expression
// (positioned within the annotation text) to the action's definition.
func (g *gen) inAnnotation(a *actionInfo, wa *wireAnn, f func()) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			panic(&Error{File: e.File, Pos: a.def.At, Msg: fmt.Sprintf("@wire of %s (%q): %s", a.name, wa.text, e.Msg), Err: e.Err})
		}
	}()
	f()
}

func (g *gen) compileWire(w *strings.Builder, a *actionInfo, wa *wireAnn, cx *ctx) {
	closers := 0
	c2 := cx
	if wa.ifPart != "" {
		cond := g.wireExpr(a, wa, wa.ifPart)
		code, _ := g.expr(cx, cond, boolT)
		fmt.Fprintf(w, "if %s {\n", code)
		closers++
	}
	if wa.forPart != "" {
		b := g.wireExpr(a, wa, wa.forPart)
		op, ok := b.(*tla.OpApp)
		id, ok2 := (*tla.Ident)(nil), false
		if ok && op.Name == `\in` {
			id, ok2 = op.Args[0].(*tla.Ident)
		}
		if !ok2 {
			g.fail(a.def.At, "@wire of %s: want for NAME \\in SET, got %q", a.name, wa.forPart)
		}
		var loop string
		loop, c2 = g.loop(c2, id.Name, op.Args[1])
		w.WriteString(loop + " {\n")
		closers++
	}
	var fields []string
	for _, f := range wa.fields {
		e := g.wireExpr(a, wa, f[1])
		code, t := g.expr(c2, e, nil)
		fields = append(fields, fmt.Sprintf("{Name: %q, Text: func() string { var b strings.Builder; c.%s(&b, %s); return b.String() }(), Value: c.%s(%s)}",
			f[0], g.helper("fmt", t), code, g.helper("val", t), code))
	}
	fmt.Fprintf(w, "out = append(out, WireMessage{Event: %q, Msg: %q, Dir: %q, Fields: []WireField{%s}})\n",
		wa.event, wa.msg, wa.dir, strings.Join(fields, ", "))
	w.WriteString(strings.Repeat("}\n", closers))
}

// wireExpr parses an expression of a @wire annotation.
func (g *gen) wireExpr(a *actionInfo, wa *wireAnn, src string) tla.Expr {
	e, err := tla.ParseExpr(src)
	if err != nil {
		g.fail(a.def.At, "@wire of %s: %q: %v", a.name, src, err)
	}
	return e
}
