package gen

import (
	"bytes"
	"embed"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/roomspec/roomspec/tla"
)

// The generated package is written from templates (templates/*.tmpl):
// model.go.tmpl is the file, helpers.go.tmpl the per-type functions. The
// data they get is prepared here; code compiled from TLA+ (operator and
// action bodies, Next, Init, properties) comes from the compiler as text.

//go:embed templates/*.tmpl
var templateFS embed.FS

var templates = template.Must(template.New("").Funcs(template.FuncMap{
	"sep": func(i int, s string) string {
		if i == 0 {
			return ""
		}
		return s
	},
}).ParseFS(templateFS, "templates/*.tmpl"))

// exec runs the named template.
func exec(name string, data any) string {
	var b strings.Builder
	if err := templates.ExecuteTemplate(&b, name, data); err != nil {
		panic(fmt.Sprintf("gen: template %s: %v", name, err)) // a gen bug
	}
	return b.String()
}

var kindNames = map[kind]string{tBool: "bool", tInt: "int", tStr: "str", tElem: "elem", tSet: "set", tFunc: "func",
	tSeq: "seq", tRec: "rec", tIntSet: "intset", tDomainSet: "domset"}

// helperData is what helpers.go.tmpl gets for one helper.
type helperData struct {
	Name, GoType, Kind string
	Elem, ElemGoType   string
	Dom                string
	ElemEq             string
	Fields             []helperField
}

type helperField struct {
	Name, GoName, Helper, Eq string
}

// helper returns the name of a generated per-type function (eq, hash,
// fmt, itf, val, read), generating it and the ones it calls on first use.
func (g *gen) helper(purpose string, t *typ) string {
	key := purpose + ":" + t.key()
	if name, ok := g.helpers[key]; ok {
		return name
	}
	name := fmt.Sprintf("%s%d", purpose, len(g.helpers)+1)
	g.helpers[key] = name
	d := helperData{Name: name, GoType: g.goType(t), Kind: kindNames[t.kind]}
	switch t.kind {
	case tElem:
		d.Dom = g.domainValue(t.dom)
	case tSet, tSeq:
		d.Elem, d.ElemGoType = g.helper(purpose, t.elem), g.goType(t.elem)
	case tFunc:
		d.Elem, d.ElemGoType, d.Dom = g.helper(purpose, t.elem), g.goType(t.elem), g.domainValue(t.dom)
	case tRec:
		for _, f := range t.fields {
			hf := helperField{Name: f.name, GoName: f.goName, Helper: g.helper(purpose, f.t)}
			if purpose == "eq" {
				hf.Eq = g.eq("a."+f.goName, "b."+f.goName, f.t)
			}
			d.Fields = append(d.Fields, hf)
		}
	}
	if purpose == "eq" && (t.kind == tFunc || t.kind == tSeq) {
		d.ElemEq = paren(g.eq("a[i]", "b[i]", t.elem))
	}
	g.helperList = append(g.helperList, exec(purpose, d))
	return name
}

// fileData is what model.go.tmpl gets.
type fileData struct {
	SourceName, Package, SHA, Module string
	Strs                             []struct{ Const, Text string }
	Domains                          []domainData
	Records                          []recordData
	Vars, VarsByName                 []varData
	StateEq                          string
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
	Helpers                          []string
}

type domainData struct{ Name, GoType, Field, Kind, Comps string }

type recordData struct {
	Name   string
	Fields []recordField
}

type recordField struct{ Name, GoName, GoType string }

type varData struct {
	Name, GoName, GoType, TypeText string
	Fmt, Hash, ITF, Val, Read      string
}

type constData struct{ Name, GoName, GoType, Reader string }

type constDefData struct{ GoName, GoType, Code string }

type actionData struct {
	Name, GoName, Code, Doc, Info, WireCode, LogCode, IdleCode string
	Nondet                                                     bool
	Params                                                     []paramData
}

// paramData is an action parameter: Var its variable in generated code,
// Conv its value read from an Action's Params (a.Params[i]).
type paramData struct{ Var, GoType, Conv, Fmt string }

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
	var eqs []string
	for _, v := range g.vars {
		vd := varData{Name: v.name, GoName: v.goName, GoType: g.goType(v.t), TypeText: v.typeText,
			Fmt: g.helper("fmt", v.t), Hash: g.helper("hash", v.t), ITF: g.helper("itf", v.t),
			Val: g.helper("val", v.t), Read: g.helper("read", v.t)}
		d.Vars = append(d.Vars, vd)
		eqs = append(eqs, g.eq("s."+v.goName, "o."+v.goName, v.t))
	}
	d.StateEq = strings.Join(eqs, " &&\n")
	d.VarsByName = slices.Clone(d.Vars)
	slices.SortFunc(d.VarsByName, func(a, b varData) int { return strings.Compare(a.Name, b.Name) })
	for _, n := range g.cnames {
		cd := constData{Name: n, GoName: exported(n)}
		switch g.consts[n] {
		case cInt:
			cd.GoType, cd.Reader = "int", "Int"
		case cBool:
			cd.GoType, cd.Reader = "bool", "Bool"
		case cModelSet:
			cd.GoType, cd.Reader = "*specrt.Domain", "Models"
		case cIntSet:
			cd.GoType, cd.Reader = "*specrt.Domain", "Ints"
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
	// The file is executed before the helper list is read: the
	// template's data already named every helper it calls.
	d.Helpers = g.helperList
	src := exec("model.go.tmpl", d)
	return pruneImports([]byte(src))
}

// actionData prepares an action for the template: its parameters, its
// description (Actions[i]) and its @wire code.
func (g *gen) actionData(a *actionInfo) actionData {
	ad := actionData{Name: a.name, GoName: a.goName, Code: a.code, Doc: g.docOf(a.def, a.goName), Nondet: a.nondet, WireCode: a.wireCode, LogCode: a.logCode, IdleCode: a.idleCode}
	var pn, pt []string
	for i, p := range a.def.Params {
		conv := g.goType(a.params[i]) + "(a.Params[" + strconv.Itoa(i) + "])"
		if a.params[i].kind == tBool {
			conv = "a.Params[" + strconv.Itoa(i) + "] != 0"
		}
		ad.Params = append(ad.Params, paramData{Var: "p_" + p.Name, GoType: g.goType(a.params[i]), Conv: conv, Fmt: g.helper("fmt", a.params[i])})
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
	reservedTypes = []string{"Str", "State", "Config", "Action", "ActionID", "WireMessage", "LogLine",
		"Vars", "Actions", "Properties", "MaxParams", "Module", "SourceName", "SourceSHA256",
		"StrOf", "LoadConfig", "FromCfg"}
	reservedMethods = []string{"Name", "Init", "Inits", "Next", "Step", "Enabled", "FairActions", "Format", "Values",
		"WriteITF", "ReadState", "ReadITFState", "ActionString", "Invariant", "StepProperty", "AppendWire", "AppendLog", "AppendIdle",
		"With", "Domain", "Invariants", "Properties", "constants", "readState"}
)
