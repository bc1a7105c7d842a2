package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/tla"
)

// compileAnnotations reads each action's @action, @wire, @log and @idle
// annotations: the action's kind and actor, its messages compiled into
// Config.AppendWire (typed WireMessage values), and the event-log lines
// it writes compiled into Config.AppendLog and Config.AppendIdle (typed
// LogLine values). Compiling the expressions checks them against the
// spec: a typo in an annotation is an error at the action.
func (g *gen) compileAnnotations() {
	for _, a := range g.actions {
		for _, an := range a.annots {
			if an[0] != "action" {
				continue
			}
			f := strings.Fields(an[1])
			if len(f) != 2 || (f[0] != "environment" && f[0] != "implementation") {
				g.fail(a.def.At, "@action: %q: want \"environment ACTOR\" or \"implementation THREAD\"", an[1])
			}
			if a.kind != "" {
				g.fail(a.def.At, "two @action annotations on %s", a.name)
			}
			a.kind, a.actor = f[0], f[1]
		}
		var w, l strings.Builder
		// @wire expressions read the state the action is taken in; @log
		// expressions may also read the state it leads to.
		cx := &ctx{g: g, s: "s"}
		lx := &ctx{g: g, s: "s", t: "t"}
		for i, p := range a.def.Params {
			cx = cx.with(p.Name, "p_"+p.Name, a.params[i])
			lx = lx.with(p.Name, "p_"+p.Name, a.params[i])
		}
		for _, an := range a.annots {
			switch an[0] {
			case "wire":
				wa := g.parseWire(a, an[1])
				g.inAnnotation(a, wa, func() { g.compileWire(&w, a, wa, cx) })
			case "log":
				wa := g.parseLog(a, "log", an[1])
				g.inAnnotation(a, wa, func() { g.compileLog(&l, a, wa, lx) })
			}
		}
		a.wireCode, a.logCode = w.String(), l.String()
		a.idleCode = g.compileIdle(a)
	}
}

// compileIdle compiles an action's @idle annotations into the code that
// appends their LogLines for every value of the action's parameters (a
// part of Config.AppendIdle): lines its thread writes without taking the
// step, so evaluated in the current state only.
func (g *gen) compileIdle(a *actionInfo) string {
	var anns []*wireAnn
	for _, an := range a.annots {
		if an[0] == "idle" {
			anns = append(anns, g.parseLog(a, "idle", an[1]))
		}
	}
	if len(anns) == 0 {
		return ""
	}
	var w strings.Builder
	cx := &ctx{g: g, s: "s"}
	for i, p := range a.def.Params {
		if a.params[i].kind != tElem {
			g.fail(a.def.At, "@idle of %s: parameter %s is not an element of a constant set, so its values cannot be enumerated", a.name, p.Name)
		}
		var loop string
		dom := &tla.Ident{Name: a.params[i].dom.name, At: a.def.At}
		g.resolve(dom)
		loop, cx = g.loop(cx, p.Name, dom)
		w.WriteString(loop + " {\n")
	}
	for _, wa := range anns {
		g.inAnnotation(a, wa, func() { g.compileLog(&w, a, wa, cx) })
	}
	w.WriteString(strings.Repeat("}\n", len(a.def.Params)))
	return w.String()
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
			panic(&Error{File: e.File, Pos: a.def.At, Msg: fmt.Sprintf("@%s of %s (%q): %s", wa.key, a.name, wa.text, e.Msg), Err: e.Err})
		}
	}()
	f()
}

// annField returns the Go field of the generated struct (WireMessage
// for @wire, LogLine for @log and @idle) that an annotation's field name
// becomes; a field must have the same type in every annotation of its
// struct.
func (g *gen) annField(a *actionInfo, key, name string, t *typ) string {
	goName := exported(name)
	list := &g.wireFields
	if key != "wire" {
		list = &g.logFields // @log and @idle both make LogLines
	}
	for _, f := range *list {
		if f.Name == name {
			if f.GoType != g.goType(t) {
				g.fail(a.def.At, "@%s field %s is a %s here and a %s in another annotation", key, name, g.goType(t), f.GoType)
			}
			return goName
		}
	}
	*list = append(*list, recordField{Name: name, GoName: goName, GoType: g.goType(t)})
	return goName
}

// compileLoop opens what an annotation's "for" and "if" parts say around
// the code that appends its value: one value per element of the binder,
// where the condition (which may use the binder) holds. It returns the
// context of the fields and the number of braces to close.
func (g *gen) compileLoop(w *strings.Builder, a *actionInfo, wa *wireAnn, cx *ctx) (*ctx, int) {
	closers := 0
	if wa.forPart != "" {
		op, ok := g.parseAnn(a, wa.key, wa.forPart).(*tla.OpApp)
		var id *tla.Ident
		if ok && op.Name == `\in` {
			id, _ = op.Args[0].(*tla.Ident)
		}
		if id == nil {
			g.fail(a.def.At, "@%s of %s: want for NAME \\in SET, got %q", wa.key, a.name, wa.forPart)
		}
		g.resolve(op.Args[1], paramNames(a)...)
		wa.binder = id.Name
		var loop string
		loop, cx = g.loop(cx, id.Name, op.Args[1])
		w.WriteString(loop + " {\n")
		closers++
	}
	if wa.ifPart != "" {
		code, _ := g.expr(cx, g.annExpr(a, wa, wa.ifPart), boolT)
		fmt.Fprintf(w, "if %s {\n", code)
		closers++
	}
	return cx, closers
}

// compileLog compiles a @log annotation into the code that appends its
// LogLine (a case of Config.AppendLog).
func (g *gen) compileLog(w *strings.Builder, a *actionInfo, wa *wireAnn, cx *ctx) {
	c2, closers := g.compileLoop(w, a, wa, cx)
	fields := []string{fmt.Sprintf("Event: %q", wa.msg)}
	for _, f := range wa.fields {
		code, t := g.expr(c2, g.annExpr(a, wa, f[1]), nil)
		fields = append(fields, g.annField(a, wa.key, f[0], t)+": "+code)
	}
	fmt.Fprintf(w, "buf = append(buf, LogLine{%s})\n", strings.Join(fields, ", "))
	w.WriteString(strings.Repeat("}\n", closers))
}

func (g *gen) compileWire(w *strings.Builder, a *actionInfo, wa *wireAnn, cx *ctx) {
	c2, closers := g.compileLoop(w, a, wa, cx)
	fields := []string{fmt.Sprintf("Send: %v, Msg: %q, Dir: %q", wa.event == "send", wa.msg, wa.dir)}
	var channel tla.Expr
	for _, f := range wa.fields {
		e := g.annExpr(a, wa, f[1])
		code, t := g.expr(c2, e, nil)
		fields = append(fields, g.annField(a, wa.key, f[0], t)+": "+code)
		tla.Inspect(e, func(n tla.Node) bool {
			if h, ok := n.(*tla.OpApp); ok && h.Name == "Head" && len(h.Args) == 1 {
				if channel != nil && tla.Print(channel) != tla.Print(h.Args[0]) {
					g.fail(a.def.At, "@wire of %s: fields read two channels, %s and %s", a.name, tla.Print(channel), tla.Print(h.Args[0]))
				}
				channel = h.Args[0]
			}
			return true
		})
	}
	if wa.event == "recv" {
		// A receive takes the head of a channel: InFlight is its length.
		if channel == nil {
			g.fail(a.def.At, "@wire of %s: a recv annotation reads its message's fields as Head(channel).field, so that the channel it takes the message from is known", a.name)
		}
		code, t := g.expr(c2, channel, nil)
		if t.kind != tSeq {
			g.fail(a.def.At, "@wire of %s: Head of %s, which is not a sequence", a.name, tla.Print(channel))
		}
		fields = append(fields, "InFlight: len("+code+")")
	}
	fmt.Fprintf(w, "buf = append(buf, WireMessage{%s})\n", strings.Join(fields, ", "))
	w.WriteString(strings.Repeat("}\n", closers))
}

// annExpr parses an expression of a @wire, @log or @idle annotation, and
// resolves its names where the action is defined: its parameters and the
// name of the annotation's "for" are bound there.
func (g *gen) annExpr(a *actionInfo, wa *wireAnn, src string) tla.Expr {
	e := g.parseAnn(a, wa.key, src)
	bound := paramNames(a)
	if wa.binder != "" {
		bound = append(bound, wa.binder)
	}
	g.resolve(e, bound...)
	return e
}

// parseAnn parses an expression of an annotation.
func (g *gen) parseAnn(a *actionInfo, key, src string) tla.Expr {
	e, err := tla.ParseExpr(src)
	if err != nil {
		g.fail(a.def.At, "@%s of %s: %q: %v", key, a.name, src, err)
	}
	return e
}

// resolve adds to what gen knows of names those of e, an expression that
// is not part of the spec's text, with the names bound in scope. A name
// that does not resolve is reported when e is compiled.
func (g *gen) resolve(e tla.Expr, bound ...string) {
	if info, _ := g.info.ResolveExpr(g.mod, e, g.file, bound...); info != nil {
		g.info = info
	}
}

func paramNames(a *actionInfo) []string {
	names := make([]string, len(a.def.Params))
	for i, p := range a.def.Params {
		names[i] = p.Name
	}
	return names
}

// wireAnn is a parsed @wire, @log or @idle annotation (key). A log one
// has no event or direction; its event name is msg.
type wireAnn struct {
	key             string
	event, msg, dir string
	fields          [][2]string
	forPart, ifPart string
	text            string
	binder          string // the name the "for" part binds, once compiled
}

// parseWire reads a @wire annotation (grammar in the spec header):
// EVENT MSG(FIELDS) DIR [for BINDER] [if COND].
func (g *gen) parseWire(a *actionInfo, text string) *wireAnn {
	event, rest, ok := strings.Cut(text, " ")
	if !ok || (event != "send" && event != "recv") {
		g.fail(a.def.At, "@wire of %s: want send or recv first: %q", a.name, text)
	}
	wa := g.parseCall(a, "wire", text, rest, true)
	wa.event = event
	return wa
}

// parseLog reads a @log or @idle annotation (key; grammar in the spec
// header): EVENT([FIELDS]) [for BINDER] [if COND].
func (g *gen) parseLog(a *actionInfo, key, text string) *wireAnn {
	return g.parseCall(a, key, text, text, false)
}

// parseCall reads rest, the part of annotation text (of key) from the
// message or event name on: NAME(FIELDS) [DIR] [for BINDER] [if COND],
// with a direction where withDir.
func (g *gen) parseCall(a *actionInfo, key, text, rest string, withDir bool) *wireAnn {
	bad := func(why string) {
		g.fail(a.def.At, "@%s of %s: %s: %q", key, a.name, why, text)
	}
	open := strings.IndexByte(rest, '(')
	if open < 0 {
		bad("no field list")
	}
	msg := strings.TrimSpace(rest[:open])
	depth, end := 0, -1
	var fields [][2]string
	start := open + 1
	for i := open; i < len(rest) && end < 0; i++ {
		switch rest[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				end = i
			}
		}
		if (rest[i] == ',' && depth == 1) || end == i {
			f := strings.TrimSpace(rest[start:i])
			if end == i && f == "" && len(fields) == 0 {
				break // NAME(): no fields
			}
			name, val, ok := strings.Cut(f, ":")
			if !ok {
				bad("field without a colon")
			}
			fields = append(fields, [2]string{strings.TrimSpace(name), strings.TrimSpace(val)})
			start = i + 1
		}
	}
	if end < 0 {
		bad("unbalanced parentheses")
	}
	tailStr := strings.TrimSpace(rest[end+1:])
	var dir string
	if withDir {
		tail := strings.Fields(tailStr)
		if len(tail) == 0 {
			bad("no direction")
		}
		dir = tail[0]
		tailStr = strings.TrimSpace(strings.TrimPrefix(tailStr, dir))
	}
	var forPart, ifPart string
	if strings.HasPrefix(tailStr, "for ") {
		forPart = strings.TrimPrefix(tailStr, "for ")
		if i := strings.Index(forPart, " if "); i >= 0 {
			ifPart = strings.TrimSpace(forPart[i+4:])
			forPart = forPart[:i]
		}
	} else if strings.HasPrefix(tailStr, "if ") {
		ifPart = strings.TrimPrefix(tailStr, "if ")
	} else if tailStr != "" {
		bad("unexpected " + strconv.Quote(tailStr))
	}
	// The expressions must at least parse as TLA+.
	for _, f := range fields {
		if _, err := tla.ParseExpr(f[1]); err != nil {
			bad("field " + f[0] + ": " + err.Error())
		}
	}
	return &wireAnn{key: key, msg: msg, dir: dir, fields: fields, forPart: strings.TrimSpace(forPart), ifPart: ifPart, text: text}
}

// literal is the annotation as a specrt.Wire literal.
func (w *wireAnn) literal() string {
	var fs []string
	for _, f := range w.fields {
		fs = append(fs, fmt.Sprintf("{%q, %q}", f[0], f[1]))
	}
	return fmt.Sprintf("{Event: %q, Msg: %q, Dir: %q, Fields: [][2]string{%s}, For: %q, If: %q, Text: %q}",
		w.event, w.msg, w.dir, strings.Join(fs, ", "), w.forPart, w.ifPart, w.text)
}
