package gen

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"text/template"

	"github.com/roomspec/roomspec/tla"
)

// The generated package is written from a template (templates/model.go.tmpl).
// The data it gets is prepared here; code compiled from TLA+ (operator and
// action bodies, Next, Init, properties) comes from the compiler as text.
// Values are hashed, compared, printed and read by specrt from the types'
// descriptions (specrt.Type), which the file declares as data: no code is
// generated per type.

//go:embed templates/*.tmpl
var templateFS embed.FS

var templates = template.Must(template.New("").ParseFS(templateFS, "templates/*.tmpl"))

// exec runs the named template.
func exec(name string, data any) string {
	var b strings.Builder
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		panic(fmt.Sprintf("gen: template %s: %v", name, err)) // a gen bug
	}
	return b.String()
}

// equal compiles x = y for values of t that Go's == does not compare as
// TLA+ does (slices, constant sets, records holding them).
func (g *gen) equal(x, y string, t *typ) string {
	switch t.kind {
	case tFunc, tSeq:
		if t.elem.comparable() {
			return "slices.Equal(" + x + ", " + y + ")"
		}
		return "slices.EqualFunc(" + x + ", " + y + ", " + g.equalFunc(t.elem) + ")"
	case tIntSet, tDomainSet:
		return x + ".Equal(" + y + ")"
	}
	return g.equalFunc(t) + "(" + x + ", " + y + ")"
}

// equalFunc returns a Go function of two values of t reporting whether
// they are equal.
func (g *gen) equalFunc(t *typ) string {
	switch {
	case (t.kind == tFunc || t.kind == tSeq) && t.elem.comparable():
		return "slices.Equal[" + g.goType(t) + "]"
	case t.kind == tIntSet || t.kind == tDomainSet:
		return "(*specrt.Domain).Equal"
	case t.kind == tRec:
		var parts []string
		for _, f := range t.fields {
			parts = append(parts, g.eq("a."+f.goName, "b."+f.goName, f.t))
		}
		return fmt.Sprintf("func(a, b %s) bool { return %s }", t.name, strings.Join(parts, " && "))
	}
	return fmt.Sprintf("func(a, b %s) bool { return %s }", g.goType(t), g.eq("a", "b", t))
}

// typeDecl is a package-level variable holding a specrt.Type.
type typeDecl struct{ Name, Expr string }

// typeExpr returns the Go expression of t's description (a specrt.Type),
// declaring a variable for each named type (the spec's strings, the
// elements of a domain, a record) the first time it is used.
func (g *gen) typeExpr(t *typ) string {
	switch t.kind {
	case tBool:
		return "specrt.Bool"
	case tInt:
		return "specrt.Int"
	case tStr:
		return g.typeVar("Str", func() string { return "specrt.Strings[Str](strNames[:])" })
	case tElem:
		g.domainValue(t.dom)
		return g.typeVar(t.dom.goType, func() string { return fmt.Sprintf("specrt.Elem[%s](%q)", t.dom.goType, t.dom.name) })
	case tSet:
		return "specrt.Set(" + g.typeExpr(t.elem) + ")"
	case tFunc:
		g.domainValue(t.dom)
		return fmt.Sprintf("specrt.Func(%q, %s)", t.dom.name, g.typeExpr(t.elem))
	case tSeq:
		return "specrt.Seq(" + g.typeExpr(t.elem) + ")"
	case tRec:
		return g.typeVar(t.name, func() string { return g.recordExpr(t.name, t.fields) })
	}
	g.unsupported(g.mod.At, "a value of type %s in a state or as an action parameter", t)
	return ""
}

// typeVar returns the variable of the named type's description, declared
// with the expression def gives on first use.
func (g *gen) typeVar(goName string, def func() string) string {
	name := "type" + goName
	if !g.typeNames[name] {
		g.typeNames[name] = true
		expr := def() // declares the types it uses first
		g.typeDecls = append(g.typeDecls, typeDecl{name, expr})
	}
	return name
}

// recordExpr is the description of the struct goName whose fields are
// fs, in order.
func (g *gen) recordExpr(goName string, fs []*field) string {
	var b strings.Builder
	fmt.Fprintf(&b, "specrt.Record[%s](\n", goName)
	for _, f := range fs {
		fmt.Fprintf(&b, "specrt.Field{Name: %q, Type: %s},\n", f.name, g.typeExpr(f.t))
	}
	b.WriteString(")")
	return b.String()
}

// fileData is what model.go.tmpl gets.
type fileData struct {
	SourceName, Package, SHA, Module string
	Strs                             []struct{ Const, Text string }
	Domains                          []domainData
	Records                          []recordData
	Vars                             []varData
	Types                            []typeDecl
	StateType                        string
	Consts                           []constData
	ConstDefs                        []constDefData
	BitsetDomains, DomainFields      []domainData
	Ops                              []string
	Actions                          []actionData
	MaxParams                        int
	InitName, NextName               string
	InitCode, NextCode, FairCode     string
	InitDet                          bool
	WireFields, LogFields            []recordField
	Props                            []propData
	PropCode, Skipped                []string
}

type domainData struct{ Name, GoType, Field, Kind, Comps string }

type recordData struct {
	Name   string
	Fields []recordField
}

type recordField struct{ Name, GoName, GoType string }

type varData struct{ Name, GoName, GoType, TypeText string }

// constData is a CONSTANT: its field in Constants (of type KType) and in
// Config (GoType, computed by FromK from k, the Constants).
type constData struct{ Name, GoName, GoType, KType, FromK string }

type constDefData struct{ GoName, GoType, Code string }

type actionData struct {
	Name, GoName, Code, Doc, Info, WireCode, LogCode, IdleCode string
	Nondet                                                     bool
	Params                                                     []paramData
	// ParamTypes are the descriptions of the parameters' types.
	ParamTypes string
}

// paramData is an action parameter: Var its variable in generated code,
// Conv its value read from an Action's Params (a.Params[i]).
type paramData struct{ Var, GoType, Conv string }

type propData struct{ Name, GoName, Kind string }

func (g *gen) emit() []byte {
	g.checkNames()
	d := fileData{SourceName: g.in.SourceName, Package: g.in.Package, SHA: g.sourceHash(), Module: g.mod.Name,
		InitName: g.initName, NextName: g.nextName, InitCode: g.initCode, NextCode: g.nextCode, InitDet: g.initDet,
		FairCode: g.fairCode, MaxParams: max(g.maxParams, 1)}
	strs := sortedStrs(g.strs)
	if len(strs) > 64 {
		g.unsupported(g.mod.At, "more than 64 distinct string literals")
	}
	for _, s := range strs {
		d.Strs = append(d.Strs, struct{ Const, Text string }{strConst(s), s})
	}
	for _, dom := range g.domList {
		dd := domainData{Name: dom.name, GoType: dom.goType, Field: dom.field}
		switch dom.kind {
		case dModel:
			dd.Kind = "model"
		case dProduct:
			dd.Kind = "product"
			var names []string
			for _, c := range dom.comps {
				names = append(names, c.name)
			}
			dd.Comps = strings.Join(names, ` \X `)
		}
		d.Domains = append(d.Domains, dd)
		if dom.inSet {
			d.BitsetDomains = append(d.BitsetDomains, dd)
		}
		d.DomainFields = append(d.DomainFields, dd)
	}
	for _, r := range g.recList {
		rd := recordData{Name: r.name}
		for _, f := range r.fields {
			rd.Fields = append(rd.Fields, recordField{f.name, f.goName, g.goType(f.t)})
		}
		d.Records = append(d.Records, rd)
	}
	var vars []*field
	for _, v := range g.vars {
		d.Vars = append(d.Vars, varData{Name: v.name, GoName: v.goName, GoType: g.goType(v.t), TypeText: v.typeText})
		vars = append(vars, &field{name: v.name, goName: v.goName, t: v.t})
	}
	d.StateType = g.recordExpr("State", vars)
	for _, n := range g.cnames {
		cd := constData{Name: n, GoName: exported(n)}
		k := "k." + cd.GoName
		switch g.consts[n] {
		case cInt:
			cd.GoType, cd.KType, cd.FromK = "int", "int", k
		case cBool:
			cd.GoType, cd.KType, cd.FromK = "bool", "bool", k
		case cModelSet:
			cd.GoType, cd.KType, cd.FromK = "*specrt.Domain", "[]string", fmt.Sprintf("specrt.NewModels(%q, %s)", n, k)
		case cIntSet:
			cd.GoType, cd.KType, cd.FromK = "*specrt.Domain", "[]int", fmt.Sprintf("specrt.NewInts(%q, %s...)", n, k)
		}
		d.Consts = append(d.Consts, cd)
	}
	for _, cd := range g.constList {
		d.ConstDefs = append(d.ConstDefs, constDefData{cd.goName, g.goType(cd.t), cd.code})
	}
	for _, op := range g.opList {
		d.Ops = append(d.Ops, op.code)
	}
	d.WireFields, d.LogFields = g.wireFields, g.logFields
	for _, a := range g.actions {
		d.Actions = append(d.Actions, g.actionData(a))
	}
	// Every type the file describes is named by now.
	d.Types = g.typeDecls
	for _, p := range g.props {
		k := map[propKind]string{propInvariant: "StateInvariant", propStep: "StepProperty", propLiveness: "Liveness"}[p.kind]
		d.Props = append(d.Props, propData{p.name, p.goName, k})
		if p.kind != propLiveness && strings.HasPrefix(p.code, "//") {
			d.PropCode = append(d.PropCode, p.code)
		}
		for _, sk := range p.skipped {
			d.Skipped = append(d.Skipped, fmt.Sprintf("Liveness property %s: a state predicate gen cannot compile was\n// skipped: %s", p.name, sk))
		}
	}
	src := exec("model.go.tmpl", d)
	return pruneImports([]byte(src))
}

// actionData prepares an action for the template: its parameters, its
// description (Actions[i]) and its @wire code.
func (g *gen) actionData(a *actionInfo) actionData {
	ad := actionData{Name: a.name, GoName: a.goName, Code: a.code, Doc: g.docOf(a.def, a.goName), Nondet: a.nondet, WireCode: a.wireCode, LogCode: a.logCode, IdleCode: a.idleCode}
	var pn, pt, types []string
	for i, p := range a.def.Params {
		conv := g.goType(a.params[i]) + "(a.Params[" + strconv.Itoa(i) + "])"
		if a.params[i].kind == tBool {
			conv = "a.Params[" + strconv.Itoa(i) + "] != 0"
		}
		ad.Params = append(ad.Params, paramData{Var: "p_" + p.Name, GoType: g.goType(a.params[i]), Conv: conv})
		types = append(types, g.typeExpr(a.params[i]))
		pn = append(pn, strconv.Quote(p.Name))
		pt = append(pt, strconv.Quote(g.goType(a.params[i])))
	}
	var models, wires, annots []string
	for _, an := range a.annots {
		annots = append(annots, fmt.Sprintf("{%q, %q}", an[0], an[1]))
		switch an[0] {
		case "models":
			models = append(models, strconv.Quote(an[1]))
		case "wire":
			wires = append(wires, g.parseWire(a, an[1]).literal())
		}
	}
	ad.ParamTypes = "{" + strings.Join(types, ", ") + "}"
	ad.Info = fmt.Sprintf("{Name: %q, Params: []string{%s}, ParamTypes: []string{%s}, Kind: %q, Actor: %q, Models: []string{%s}, Wire: []specrt.Wire{%s}, Annotations: [][2]string{%s}, Deterministic: %v}",
		a.name, strings.Join(pn, ", "), strings.Join(pt, ", "), a.kind, a.actor, strings.Join(models, ", "), strings.Join(wires, ", "), strings.Join(annots, ", "), !a.nondet)
	return ad
}

// pruneImports removes the imports src does not use (the template lists
// every package generated code may need) and formats it.
func pruneImports(src []byte) []byte {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return src // format.Source reports it
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Obj == nil {
				used[id.Name] = true
			}
		}
		return true
	})
	var out bytes.Buffer
	lines := strings.Split(string(src), "\n")
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if !used[name] {
			lines[fset.Position(imp.Pos()).Line-1] = ""
		}
	}
	out.WriteString(strings.Join(lines, "\n"))
	return out.Bytes()
}

// checkNames fails when two declarations of the generated package would
// get the same Go name.
func (g *gen) checkNames() {
	type owner struct {
		what string
		pos  tla.Pos
	}
	scopes := map[string]map[string]owner{"package": {}, "Config": {}, "State": {}, "WireMessage": {}, "LogLine": {}}
	claim := func(scope, goName, what string, pos tla.Pos) {
		if o, ok := scopes[scope][goName]; ok {
			g.fail(pos, "%s and %s both become %s in Go (%s); rename one", what, o.what, goName, scope)
		}
		scopes[scope][goName] = owner{what, pos}
	}
	for _, n := range reservedTypes {
		claim("package", n, "gen's own "+n, tla.Pos{})
	}
	for _, n := range reservedMethods {
		claim("Config", n, "gen's own "+n, tla.Pos{})
	}
	for _, n := range []string{"Send", "Msg", "Dir", "InFlight"} {
		claim("WireMessage", n, "gen's own "+n, tla.Pos{})
	}
	claim("LogLine", "Event", "gen's own Event", tla.Pos{})
	for _, d := range g.domList {
		if d.kind != dInts {
			claim("package", d.goType, d.name, g.cpos[d.name])
		}
	}
	for _, r := range g.recList {
		claim("package", r.name, "record type "+r.name, tla.Pos{})
	}
	for _, n := range g.cnames {
		claim("Config", exported(n), "constant "+n, g.cpos[n])
	}
	for _, cd := range g.constList {
		claim("Config", cd.goName, cd.name, g.defs[cd.name].At)
	}
	for _, op := range g.opList {
		claim("Config", op.goName, op.def.Name, op.def.At)
	}
	for _, a := range g.actions {
		claim("Config", a.goName, "action "+a.name, a.def.At)
		claim("Config", "act"+a.goName, "action "+a.name, a.def.At)
	}
	for _, p := range g.props {
		if p.kind != propLiveness && strings.HasPrefix(p.code, "//") {
			claim("Config", p.goName, "property "+p.name, g.defs[p.name].At)
		}
	}
	for _, v := range g.vars {
		claim("State", v.goName, "variable "+v.name, v.pos)
	}
	for _, f := range g.wireFields {
		claim("WireMessage", f.GoName, "@wire field "+f.Name, tla.Pos{})
	}
	for _, f := range g.logFields {
		claim("LogLine", f.GoName, "@log field "+f.Name, tla.Pos{})
	}
}

// Names the generated package declares itself: a spec name that maps to
// one of them (or two spec names that map to the same Go name) would not
// compile, so gen reports it.
var (
	reservedTypes = []string{"Str", "State", "Config", "Constants", "Action", "ActionID", "WireMessage", "LogLine",
		"Vars", "Actions", "Properties", "MaxParams", "Module", "SourceName", "SourceSHA256",
		"StrOf", "NewConfig"}
	reservedMethods = []string{"Name", "Constants", "Init", "Inits", "Next", "Step", "Enabled", "FairActions", "Format", "Values",
		"WriteITF", "ReadState", "ReadITFState", "ActionString", "Invariant", "StepProperty", "AppendWire", "AppendLog", "AppendIdle",
		"With", "Domain", "Invariants", "Properties", "codec"}
)
