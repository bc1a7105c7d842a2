package gen

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/roomspec/roomspec/spec/tla"
)

// helper returns the name of a generated per-type function (eq, fmt,
// hash, itf), generating it on first use.
func (g *gen) helper(kind string, t *typ) string {
	key := kind + ":" + t.key()
	if name, ok := g.helpers[key]; ok {
		return name
	}
	name := fmt.Sprintf("%s%d", kind, len(g.helpers)+1)
	g.helpers[key] = name
	var b strings.Builder
	gt := g.goType(t)
	switch kind {
	case "eq":
		fmt.Fprintf(&b, "func %s(a, b %s) bool {\n", name, gt)
		switch t.kind {
		case tFunc, tSeq:
			fmt.Fprintf(&b, "if len(a) != len(b) {\nreturn false\n}\nfor i := range a {\nif !%s {\nreturn false\n}\n}\nreturn true\n", paren(g.eq("a[i]", "b[i]", t.elem)))
		case tRec:
			var parts []string
			for _, f := range t.fields {
				parts = append(parts, g.eq("a."+f.goName, "b."+f.goName, f.t))
			}
			fmt.Fprintf(&b, "return %s\n", strings.Join(parts, " && "))
		case tIntSet, tDomainSet:
			b.WriteString("return a.Equal(b)\n")
		default:
			b.WriteString("return a == b\n")
		}
	case "fmt":
		fmt.Fprintf(&b, "func (c *Config) %s(b *strings.Builder, v %s) {\n", name, gt)
		b.WriteString(g.fmtBody(t))
	case "hash":
		fmt.Fprintf(&b, "func %s(h uint64, v %s) uint64 {\n", name, gt)
		switch t.kind {
		case tBool:
			b.WriteString("if v {\nreturn mix(h, 1)\n}\nreturn mix(h, 2)\n")
		case tFunc, tSeq:
			fmt.Fprintf(&b, "h = mix(h, uint64(len(v)))\nfor _, e := range v {\nh = %s(h, e)\n}\nreturn h\n", g.helper("hash", t.elem))
		case tRec:
			for _, f := range t.fields {
				fmt.Fprintf(&b, "h = %s(h, v.%s)\n", g.helper("hash", f.t), f.goName)
			}
			b.WriteString("return h\n")
		case tIntSet, tDomainSet:
			b.WriteString("return mix(h, uint64(v.Size()))\n")
		default:
			b.WriteString("return mix(h, uint64(v))\n")
		}
	case "itf":
		fmt.Fprintf(&b, "func (c *Config) %s(b *strings.Builder, v %s) {\n", name, gt)
		b.WriteString(g.itfBody(t))
	case "val":
		fmt.Fprintf(&b, "func (c *Config) %s(v %s) value.Value {\n", name, gt)
		b.WriteString(g.valBody(t))
	}
	b.WriteString("}\n")
	g.helperList = append(g.helperList, b.String())
	return name
}

// fmtBody prints a value exactly as value.Format prints the interpreter's
// value: canonical order is index order by construction.
func (g *gen) fmtBody(t *typ) string {
	switch t.kind {
	case tBool:
		return "if v {\nb.WriteString(\"TRUE\")\n} else {\nb.WriteString(\"FALSE\")\n}\n"
	case tInt:
		return "b.WriteString(strconv.Itoa(v))\n"
	case tStr:
		return "b.WriteString(quote(v.String()))\n"
	case tElem:
		return fmt.Sprintf("%s.Format(b, int(v))\n", g.domainValue(t.dom))
	case tSet:
		return fmt.Sprintf("b.WriteByte('{')\nfirst := true\nfor bs := v; bs != 0; bs &= bs - 1 {\nif !first {\nb.WriteString(\", \")\n}\nfirst = false\nc.%s(b, %s(bits.TrailingZeros64(bs)))\n}\nb.WriteByte('}')\n",
			g.helper("fmt", t.elem), g.goType(t.elem))
	case tSeq:
		return fmt.Sprintf("b.WriteString(\"<<\")\nfor i, e := range v {\nif i > 0 {\nb.WriteString(\", \")\n}\nc.%s(b, e)\n}\nb.WriteString(\">>\")\n", g.helper("fmt", t.elem))
	case tFunc:
		d := g.domainValue(t.dom)
		return fmt.Sprintf(`if %s.IsSeq() {
b.WriteString("<<")
for i, e := range v {
if i > 0 {
b.WriteString(", ")
}
c.%s(b, e)
}
b.WriteString(">>")
return
}
b.WriteByte('(')
for i, e := range v {
if i > 0 {
b.WriteString(" @@ ")
}
%s.Format(b, i)
b.WriteString(" :> ")
c.%s(b, e)
}
b.WriteByte(')')
`, d, g.helper("fmt", t.elem), d, g.helper("fmt", t.elem))
	case tRec:
		var b strings.Builder
		b.WriteString("b.WriteByte('[')\n")
		for i, f := range t.fields {
			sep := ""
			if i > 0 {
				sep = ", "
			}
			fmt.Fprintf(&b, "b.WriteString(%q)\nc.%s(b, v.%s)\n", sep+f.name+" |-> ", g.helper("fmt", f.t), f.goName)
		}
		b.WriteString("b.WriteByte(']')\n")
		return b.String()
	case tIntSet, tDomainSet:
		return "v.FormatSet(b)\n"
	}
	return ""
}

// valBody converts a value to the interpreter's representation.
func (g *gen) valBody(t *typ) string {
	switch t.kind {
	case tBool:
		return "return value.Bool(v)\n"
	case tInt:
		return "return value.Int(v)\n"
	case tStr:
		return "return value.String(v.String())\n"
	case tElem:
		return fmt.Sprintf("return %s.Value(int(v))\n", g.domainValue(t.dom))
	case tSet:
		return fmt.Sprintf("var es []value.Value\nfor bs := v; bs != 0; bs &= bs - 1 {\nes = append(es, c.%s(%s(bits.TrailingZeros64(bs))))\n}\nreturn value.NewSetOwned(es)\n",
			g.helper("val", t.elem), g.goType(t.elem))
	case tSeq:
		return fmt.Sprintf("es := make([]value.Value, len(v))\nfor i, e := range v {\nes[i] = c.%s(e)\n}\nreturn value.NewTuple(es...)\n", g.helper("val", t.elem))
	case tFunc:
		return fmt.Sprintf("ks := make([]value.Value, len(v))\nes := make([]value.Value, len(v))\nfor i, e := range v {\nks[i] = %s.Value(i)\nes[i] = c.%s(e)\n}\nreturn value.NewFunc(ks, es)\n",
			g.domainValue(t.dom), g.helper("val", t.elem))
	case tRec:
		var names, vals []string
		for _, f := range t.fields {
			names = append(names, strconv.Quote(f.name))
			vals = append(vals, fmt.Sprintf("c.%s(v.%s)", g.helper("val", f.t), f.goName))
		}
		return fmt.Sprintf("return value.NewRecord([]string{%s}, []value.Value{%s})\n", strings.Join(names, ", "), strings.Join(vals, ", "))
	case tIntSet, tDomainSet:
		return "return v.SetValue()\n"
	}
	return ""
}

// itfBody writes a value in Apalache's Informal Trace Format.
func (g *gen) itfBody(t *typ) string {
	switch t.kind {
	case tBool:
		return "b.WriteString(strconv.FormatBool(v))\n"
	case tInt:
		return "fmt.Fprintf(b, `{\"#bigint\":\"%d\"}`, v)\n"
	case tStr:
		return "b.WriteString(strconv.Quote(v.String()))\n"
	case tElem:
		return fmt.Sprintf("%s.ITF(b, int(v))\n", g.domainValue(t.dom))
	case tSet:
		return fmt.Sprintf("b.WriteString(`{\"#set\":[`)\nfirst := true\nfor bs := v; bs != 0; bs &= bs - 1 {\nif !first {\nb.WriteByte(',')\n}\nfirst = false\nc.%s(b, %s(bits.TrailingZeros64(bs)))\n}\nb.WriteString(\"]}\")\n",
			g.helper("itf", t.elem), g.goType(t.elem))
	case tSeq:
		return fmt.Sprintf("b.WriteByte('[')\nfor i, e := range v {\nif i > 0 {\nb.WriteByte(',')\n}\nc.%s(b, e)\n}\nb.WriteByte(']')\n", g.helper("itf", t.elem))
	case tFunc:
		return fmt.Sprintf("b.WriteString(`{\"#map\":[`)\nfor i, e := range v {\nif i > 0 {\nb.WriteByte(',')\n}\nb.WriteByte('[')\n%s.ITF(b, i)\nb.WriteByte(',')\nc.%s(b, e)\nb.WriteByte(']')\n}\nb.WriteString(\"]}\")\n",
			g.domainValue(t.dom), g.helper("itf", t.elem))
	case tRec:
		var b strings.Builder
		b.WriteString("b.WriteByte('{')\n")
		for i, f := range t.fields {
			sep := ""
			if i > 0 {
				sep = ","
			}
			fmt.Fprintf(&b, "b.WriteString(%q)\nc.%s(b, v.%s)\n", sep+strconv.Quote(f.name)+":", g.helper("itf", f.t), f.goName)
		}
		b.WriteString("b.WriteByte('}')\n")
		return b.String()
	case tIntSet, tDomainSet:
		return "v.ITFSet(b)\n"
	}
	return ""
}

func (g *gen) emit() []byte {
	g.checkNames()
	// Helpers needed by the state's printing and hashing, generated
	// before the helper list is written.
	for _, v := range g.vars {
		g.helper("fmt", v.t)
		g.helper("hash", v.t)
		g.helper("itf", v.t)
		g.helper("eq", v.t)
		g.helper("val", v.t)
	}
	for _, a := range g.actions {
		for _, p := range a.params {
			g.helper("fmt", p)
		}
	}
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("// Code generated by roomspec gen from %s. DO NOT EDIT.\n\n", g.in.SourceName)
	w("package %s\n\n", g.in.Package)
	w("import (\n\"fmt\"\n\"math\"\n\"math/bits\"\n\"slices\"\n\"sort\"\n\"strconv\"\n\"strings\"\n\n\"github.com/roomspec/roomspec/spec/tla/cfg\"\n\"github.com/roomspec/roomspec/spec/tla/value\"\n)\n\n")
	w("// SourceSHA256 is the SHA-256 of the text of %s this package was generated from.\n", g.in.SourceName)
	w("const SourceSHA256 = %q\n\n", g.sourceHash())
	w("// SourceName is the spec this package was generated from.\nconst SourceName = %q\n\n", g.in.SourceName)
	w("// Module is the name of the TLA+ module.\nconst Module = %q\n\n", g.mod.Name)

	// Strings.
	strs := sortedStrs(g.strs)
	w("// Str is a string value of the spec: one constant per string literal,\n// numbered in TLA+ (byte-wise) order so that sets of strings print sorted.\ntype Str uint8\n\n")
	if len(strs) > 64 {
		g.unsupported(g.mod.At, "more than 64 distinct string literals")
	}
	w("// The string literals of the spec.\nconst (\n")
	for i, s := range strs {
		if i == 0 {
			w("%s Str = iota // %q\n", strConst(s), s)
		} else {
			w("%s // %q\n", strConst(s), s)
		}
	}
	w(")\n\n")
	w("var strNames = [...]string{")
	for _, s := range strs {
		w("%q, ", s)
	}
	w("}\n\n")
	w("// String returns the string's text (without quotes).\nfunc (v Str) String() string {\nif int(v) < len(strNames) {\nreturn strNames[v]\n}\nreturn \"Str(\" + strconv.Itoa(int(v)) + \")\"\n}\n\n")
	w("// StrOf returns the Str of a string literal of the spec.\nfunc StrOf(s string) (Str, bool) {\ni := sort.SearchStrings(strNames[:], s)\nif i < len(strNames) && strNames[i] == s {\nreturn Str(i), true\n}\nreturn 0, false\n}\n\n")

	// Domain index types.
	for _, d := range g.domList {
		switch d.kind {
		case dModel:
			w("// %s is an element of the constant %s (a model value), as its index in\n// Config.%s (model values sorted by name).\ntype %s int\n\n", d.goType, d.name, d.field, d.goType)
		case dProduct:
			var names []string
			for _, c := range d.comps {
				names = append(names, c.name)
			}
			w("// %s is an element of %s == %s, as its row-major index in Config.%s.\ntype %s int\n\n", d.goType, d.name, strings.Join(names, ` \X `), d.field, d.goType)
		}
	}
	// Records.
	for _, r := range g.recList {
		w("// %s is a record of the spec; fields in TLA+ name order.\ntype %s struct {\n", r.name, r.name)
		for _, f := range r.fields {
			w("%s %s // %s\n", f.goName, g.goType(f.t), f.name)
		}
		w("}\n\n")
	}
	// State.
	w("// State is a state of the spec: one field per variable, typed from TypeOK.\n// Slices are never modified once a state is built (actions copy on\n// write), so copying a State is cheap and safe.\ntype State struct {\n")
	for _, v := range g.vars {
		w("%s %s // %s \\in %s\n", v.goName, g.goType(v.t), v.name, v.typeText)
	}
	w("}\n\n")
	w("// Vars are the spec's variables in declaration order.\nvar Vars = []string{")
	for _, v := range g.vars {
		w("%q, ", v.name)
	}
	w("}\n\n")

	// Config.
	w("// Config holds the constants of one model configuration (.cfg) and the\n// constant definitions computed from them.\ntype Config struct {\n")
	for _, n := range g.cnames {
		switch g.consts[n] {
		case cInt:
			w("%s int\n", exported(n))
		case cBool:
			w("%s bool\n", exported(n))
		case cModelSet, cIntSet:
			w("%s *Domain\n", exported(n))
		}
	}
	w("// Constant definitions.\n")
	for _, cd := range g.constList {
		w("%s %s\n", cd.goName, g.goType(cd.t))
	}
	w("// Invariants and Properties are the names the configuration checks.\nInvariants, Properties []string\n")
	w("}\n\n")
	g.emitLoad(w)

	// Operators.
	for _, op := range g.opList {
		w("%s\n", op.code)
	}
	// Actions.
	g.emitActions(w)
	// Init.
	w("// Inits calls yield with each initial state (%s); it stops when yield\n// returns true and reports whether it was stopped.\nfunc (c *Config) Inits(yield func(*State) bool) bool {\nvar t State\n%s}\n\n", g.initName, g.initCode)
	if g.initDet {
		w("// Init returns the initial state (%s has exactly one).\nfunc (c *Config) Init() State {\nvar r State\nok := false\nc.Inits(func(t *State) bool {\nr, ok = *t, true\nreturn true\n})\nif !ok {\npanic(\"model: no initial state\")\n}\nreturn r\n}\n\n", g.initName)
	}
	// Properties.
	g.emitProps(w)
	// State printing, hashing.
	w("// Format prints s as the interpreter does (eval.Spec.Format): one\n// \"/\\\\ var = value\" line per variable.\nfunc (c *Config) Format(s *State) string {\nvar b strings.Builder\n")
	for i, v := range g.vars {
		nl := "\\n"
		if i == 0 {
			nl = ""
		}
		w("b.WriteString(%q)\nc.%s(&b, s.%s)\n", strings.ReplaceAll(nl, `\n`, "\n")+`/\ `+v.name+" = ", g.helper("fmt", v.t), v.goName)
	}
	w("return b.String()\n}\n\n")
	w("// Hash is a fingerprint of s: equal states hash equally.\nfunc (s *State) Hash() uint64 {\nh := uint64(0xcbf29ce484222325)\n")
	for _, v := range g.vars {
		w("h = %s(h, s.%s)\n", g.helper("hash", v.t), v.goName)
	}
	w("return h\n}\n\n")
	w("// Equal reports whether s and o are the same state.\nfunc (s *State) Equal(o *State) bool {\nreturn ")
	for i, v := range g.vars {
		if i > 0 {
			w(" &&\n")
		}
		w("%s", g.eq("s."+v.goName, "o."+v.goName, v.t))
	}
	w("\n}\n\n")
	w("// WriteITF writes s as an ITF state object (Apalache's Informal Trace\n// Format) with its index. Model values are written as strings.\nfunc (c *Config) WriteITF(b *strings.Builder, s *State, index int) {\nfmt.Fprintf(b, `{\"#meta\":{\"index\":%%d}`, index)\n")
	for _, v := range g.vars {
		w("b.WriteString(%q)\nc.%s(b, s.%s)\n", ","+strconv.Quote(v.name)+":", g.helper("itf", v.t), v.goName)
	}
	w("b.WriteByte('}')\n}\n\n")
	w("// Values converts s to the interpreter's values, one per variable in\n// Vars order (an eval.State), e.g. to evaluate with the interpreter what\n// the compiled model does not cover.\nfunc (c *Config) Values(s *State) []value.Value {\nreturn []value.Value{\n")
	for _, v := range g.vars {
		w("c.%s(s.%s),\n", g.helper("val", v.t), v.goName)
	}
	w("}\n}\n\n")
	w("%s", runtimeSrc)
	for _, h := range g.helperList {
		w("%s\n", h)
	}
	return b.Bytes()
}

func (g *gen) emitLoad(w func(string, ...any)) {
	w("// LoadConfig reads a model configuration (.cfg text) into a Config.\nfunc LoadConfig(text []byte) (*Config, error) {\nconf, err := cfg.Parse(\"\", text)\nif err != nil {\nreturn nil, err\n}\nreturn FromCfg(conf)\n}\n\n")
	w("// FromCfg builds a Config from a parsed configuration: every constant of\n// the spec must be given a plain value of the kind gen saw in the bundled\n// configurations.\nfunc FromCfg(conf *cfg.Config) (_ *Config, err error) {\nc := &Config{}\nvals := map[string]*cfg.Value{}\nfor _, d := range conf.Constants {\nif d.Value == nil || len(d.Args) > 0 || d.Module != \"\" {\nreturn nil, fmt.Errorf(\"model: %%s: constant %%s: only plain values are supported\", conf.File, d.Name)\n}\nvals[d.Name] = d.Value\n}\n")
	w("get := func(name string) (*cfg.Value, error) {\nv, ok := vals[name]\nif !ok {\nreturn nil, fmt.Errorf(\"model: %%s: constant %%s is not given a value\", conf.File, name)\n}\nreturn v, nil\n}\n")
	for _, n := range g.cnames {
		fn := map[constKind]string{cInt: "cfgInt", cBool: "cfgBool", cModelSet: "cfgModels", cIntSet: "cfgInts"}[g.consts[n]]
		w("if v, err := get(%q); err != nil {\nreturn nil, err\n} else if c.%s, err = %s(%q, v); err != nil {\nreturn nil, err\n}\n", n, exported(n), fn, n)
	}
	w("defer func() {\nif r := recover(); r != nil {\nerr = fmt.Errorf(\"model: computing the constant definitions: %%v\", r)\n}\n}()\n")
	for _, cd := range g.constList {
		w("c.%s = %s\n", cd.goName, cd.code)
	}
	for _, d := range g.domList {
		if d.inSet {
			w("if c.%s.Size() > 64 {\nreturn nil, fmt.Errorf(\"model: %%s has %%d elements; sets of its elements are 64-bit sets\", %q, c.%s.Size())\n}\n", d.field, d.name, d.field)
		}
	}
	w("for _, n := range conf.Invariants {\nc.Invariants = append(c.Invariants, n.Name)\n}\nfor _, n := range conf.Properties {\nc.Properties = append(c.Properties, n.Name)\n}\n")
	w("return c, nil\n}\n\n")
}

func (g *gen) emitActions(w func(string, ...any)) {
	w("// ActionID names an action of %s.\ntype ActionID int\n\n// The actions of %s, in the order %s lists them.\nconst (\n", g.nextName, g.nextName, g.nextName)
	for i, a := range g.actions {
		if i == 0 {
			w("Act%s ActionID = iota\n", a.goName)
		} else {
			w("Act%s\n", a.goName)
		}
	}
	w(")\n\n")
	mp := g.maxParams
	if mp == 0 {
		mp = 1
	}
	w("// MaxParams is the largest number of parameters of an action.\nconst MaxParams = %d\n\n", mp)
	w("// Action is a step's action with its parameters (element indices,\n// integers, Str or 0/1 for booleans, as the action's ParamTypes say).\ntype Action struct {\nID ActionID\nParams [MaxParams]int\n}\n\n")
	w(`// ActionInfo describes an action: its parameters and the annotations
// written above its definition (@action, @models, @wire, ...).
type ActionInfo struct {
	Name       string
	Params     []string // parameter names
	ParamTypes []string // TLA+ sets the parameters range over (Go types)
	// Kind is "environment" or "implementation" and Actor the actor
	// after it in the @action annotation ("decode", "scheduler", ...).
	Kind, Actor string
	Models      []string
	Wire        []Wire
	// Annotations are all @key: value lines, in order.
	Annotations [][2]string
	// Deterministic actions have a method returning (State, bool);
	// the others one taking a yield function.
	Deterministic bool
}

// Wire is a @wire annotation: a message the action sends or receives.
// Fields and the optional For/If parts are TLA+ expression text.
type Wire struct {
	Event, Msg, Dir string
	Fields          [][2]string
	For, If         string
	Text            string
}

`)
	w("// WireMessage is a message of a @wire annotation, evaluated.\ntype WireMessage struct {\nEvent, Msg, Dir string\nFields []WireField\n}\n\n// WireField is a field of a WireMessage: its value printed as TLA+ and as\n// an interpreter value.\ntype WireField struct {\nName, Text string\nValue value.Value\n}\n\n%s\n", g.wireCode)
	w("// Actions describes each ActionID.\nvar Actions = []ActionInfo{\n")
	for _, a := range g.actions {
		var pn, pt []string
		for i, p := range a.def.Params {
			pn = append(pn, strconv.Quote(p.Name))
			pt = append(pt, strconv.Quote(g.goType(a.params[i])))
		}
		kind, actor := "", ""
		var models []string
		var wires []string
		var annots []string
		for _, an := range a.annots {
			annots = append(annots, fmt.Sprintf("{%q, %q}", an[0], an[1]))
			switch an[0] {
			case "action":
				f := strings.Fields(an[1])
				if len(f) != 2 || (f[0] != "environment" && f[0] != "implementation") {
					g.fail(a.def.At, "@action: %q: want \"environment ACTOR\" or \"implementation THREAD\"", an[1])
				}
				if kind != "" {
					g.fail(a.def.At, "two @action annotations on %s", a.name)
				}
				kind, actor = f[0], f[1]
			case "models":
				models = append(models, strconv.Quote(an[1]))
			case "wire":
				wires = append(wires, g.parseWire(a, an[1]).literal())
			}
		}
		w("{Name: %q, Params: []string{%s}, ParamTypes: []string{%s}, Kind: %q, Actor: %q, Models: []string{%s}, Wire: []Wire{%s}, Annotations: [][2]string{%s}, Deterministic: %v},\n",
			a.name, strings.Join(pn, ", "), strings.Join(pt, ", "), kind, actor, strings.Join(models, ", "), strings.Join(wires, ", "), strings.Join(annots, ", "), !a.nondet)
	}
	w("}\n\n")
	// Action methods.
	for _, a := range g.actions {
		w("%s\n", a.code)
		var sig, args []string
		for i, p := range a.def.Params {
			sig = append(sig, "p_"+p.Name+" "+g.goType(a.params[i]))
			args = append(args, "p_"+p.Name)
		}
		doc := g.docOf(a.def, a.goName)
		all := strings.Join(append([]string{"s", "&t"}, args...), ", ")
		if a.nondet {
			w("%s//\n// It calls yield with each successor of s; it stops when yield returns\n// true and reports whether it was stopped.\nfunc (c *Config) %s(%s) bool {\nvar t State\nreturn c.act%s(%s, yield)\n}\n\n",
				doc, a.goName, strings.Join(append(append([]string{"s *State"}, sig...), "yield func(*State) bool"), ", "), a.goName, all)
		} else {
			w("%s//\n// It returns the successor of s and true, or false when the action is\n// not enabled.\nfunc (c *Config) %s(%s) (State, bool) {\nvar r, t State\nok := false\nc.act%s(%s, func(t *State) bool {\nr, ok = *t, true\nreturn true\n})\nreturn r, ok\n}\n\n",
				doc, a.goName, strings.Join(append([]string{"s *State"}, sig...), ", "), a.goName, all)
		}
	}
	w("// Next calls yield with every successor of s under %s and the action\n// (with parameters) that produced it, as the interpreter labels them.\n// The yielded state is only valid during the call: copy *t to keep it.\n// Next stops when yield returns true and reports whether it was stopped.\nfunc (c *Config) Next(s *State, yield func(a Action, t *State) bool) bool {\nt := new(State)\n%s}\n\n", g.nextName, g.nextCode)
	// Action printing.
	w("// ActionString prints a as the interpreter's eval.Action does: Name(p1, p2).\nfunc (c *Config) ActionString(a Action) string {\nvar b strings.Builder\nswitch a.ID {\n")
	for _, a := range g.actions {
		w("case Act%s:\nb.WriteString(%q)\n", a.goName, a.name)
		if len(a.params) > 0 {
			w("b.WriteByte('(')\n")
			for i, p := range a.params {
				if i > 0 {
					w("b.WriteString(\", \")\n")
				}
				conv := g.goType(p) + "(a.Params[" + strconv.Itoa(i) + "])"
				if p.kind == tBool {
					conv = "a.Params[" + strconv.Itoa(i) + "] != 0"
				}
				w("c.%s(&b, %s)\n", g.helper("fmt", p), conv)
			}
			w("b.WriteByte(')')\n")
		}
	}
	w("default:\nfmt.Fprintf(&b, \"Action(%%d)\", a.ID)\n}\nreturn b.String()\n}\n\n")
}

// parseWire reads a @wire annotation into a Wire literal (grammar in the
// spec header): EVENT MSG(FIELDS) DIR [for BINDER] [if COND].
func (g *gen) parseWire(a *actionInfo, text string) *wireAnn {
	bad := func(why string) {
		g.fail(a.def.At, "@wire of %s: %s: %q", a.name, why, text)
	}
	event, rest, ok := strings.Cut(text, " ")
	if !ok || (event != "send" && event != "recv") {
		bad("want send or recv first")
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
	tail := strings.Fields(rest[end+1:])
	if len(tail) == 0 {
		bad("no direction")
	}
	dir := tail[0]
	tailStr := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest[end+1:]), dir))
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
	return &wireAnn{event: event, msg: msg, dir: dir, fields: fields, forPart: strings.TrimSpace(forPart), ifPart: ifPart, text: text}
}

// wireAnn is a parsed @wire annotation.
type wireAnn struct {
	event, msg, dir string
	fields          [][2]string
	forPart, ifPart string
	text            string
}

func (w *wireAnn) literal() string {
	var fs []string
	for _, f := range w.fields {
		fs = append(fs, fmt.Sprintf("{%q, %q}", f[0], f[1]))
	}
	return fmt.Sprintf("{Event: %q, Msg: %q, Dir: %q, Fields: [][2]string{%s}, For: %q, If: %q, Text: %q}",
		w.event, w.msg, w.dir, strings.Join(fs, ", "), w.forPart, w.ifPart, w.text)
}

func (g *gen) emitProps(w func(string, ...any)) {
	w("// PropertyKind says how a property of the configurations is compiled.\ntype PropertyKind int\n\n// Property kinds.\nconst (\n// StateInvariant: a method (s *State) bool.\nStateInvariant PropertyKind = iota\n// StepProperty: [][A]_v, a method (s, t *State) bool.\nStepProperty\n// Liveness: left to the checker; its state predicates are methods.\nLiveness\n)\n\n")
	w("// PropertyInfo names an invariant or property of the configurations.\ntype PropertyInfo struct {\nName string\nKind PropertyKind\n}\n\n")
	w("// Properties lists the invariants and properties named by the\n// configurations gen compiled.\nvar Properties = []PropertyInfo{\n")
	for _, p := range g.props {
		k := map[propKind]string{propInvariant: "StateInvariant", propStep: "StepProperty", propLiveness: "Liveness"}[p.kind]
		w("{%q, %s},\n", p.name, k)
	}
	w("}\n\n")
	for _, p := range g.props {
		if p.kind != propLiveness && strings.HasPrefix(p.code, "//") {
			w("%s\n", p.code)
		}
		for _, sk := range p.skipped {
			w("// Liveness property %s: a state predicate gen cannot compile was\n// skipped: %s\n\n", p.name, sk)
		}
	}
	w("// Invariant returns the state predicate of an invariant (or of a\n// property []P) by name.\nfunc (c *Config) Invariant(name string) (func(*State) bool, bool) {\nswitch name {\n")
	for _, p := range g.props {
		if p.kind == propInvariant {
			w("case %q:\nreturn c.%s, true\n", p.name, p.goName)
		}
	}
	w("}\nreturn nil, false\n}\n\n")
	w("// StepProperty returns the step predicate of a property [][A]_v by name.\nfunc (c *Config) StepProperty(name string) (func(s, t *State) bool, bool) {\nswitch name {\n")
	for _, p := range g.props {
		if p.kind == propStep {
			w("case %q:\nreturn c.%s, true\n", p.name, p.goName)
		}
	}
	w("}\nreturn nil, false\n}\n\n")
}

// Names the generated package declares itself: a spec name that maps to
// one of them (or two spec names that map to the same Go name) would not
// compile, so gen reports it.
var (
	reservedTypes = []string{"Str", "State", "Config", "Domain", "Action", "ActionID", "ActionInfo",
		"Wire", "WireMessage", "WireField", "PropertyKind", "PropertyInfo",
		"Vars", "Actions", "Properties", "MaxParams", "Module", "SourceName", "SourceSHA256",
		"StrOf", "LoadConfig", "FromCfg", "NewModels", "NewInts", "NewRange", "UnionInts",
		"InterInts", "DiffInts", "NewProduct", "Bit", "B2I", "Append", "Concat", "AddInt",
		"SubInt", "MulInt", "FloorDiv", "FloorMod", "StateInvariant", "StepProperty", "Liveness"}
	reservedMethods = []string{"Init", "Inits", "Next", "Format", "Values", "ITF", "WriteITF",
		"ActionString", "Invariant", "StepProperty", "WireMessages", "Invariants", "Properties"}
)

// checkNames fails when two declarations of the generated package would
// get the same Go name.
func (g *gen) checkNames() {
	type owner struct {
		what string
		pos  tla.Pos
	}
	scopes := map[string]map[string]owner{"package": {}, "Config": {}, "State": {}}
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
}
