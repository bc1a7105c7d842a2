package tla

import (
	"fmt"
	"regexp"
	"strings"
)

// opInfo is the precedence range and associativity of an operator. The
// values are SANY's (tla2sany ConfigConstants, divided by 10), which follow
// the table in Specifying Systems, section 15.2.1, except that SUBSET, UNION
// and DOMAIN bind at 10-13.
type opInfo struct {
	lo, hi int
	left   bool // left-associative
}

var infixOps = map[string]opInfo{
	"!!": {9, 13, false}, "/=": {5, 5, false}, "$": {9, 13, true}, "$$": {9, 13, true},
	"%": {10, 11, false}, "%%": {10, 11, true}, "&": {13, 13, true}, "&&": {13, 13, true},
	"(+)": {10, 10, true}, "(-)": {11, 11, true}, "(.)": {13, 13, true}, "(/)": {13, 13, false},
	`(\X)`: {13, 13, true}, "*": {13, 13, true}, "**": {13, 13, true}, "+": {10, 10, true},
	"++": {10, 10, true}, "-": {11, 11, true}, "-+->": {2, 2, false}, "--": {11, 11, true},
	"-|": {5, 5, false}, "..": {9, 9, false}, "...": {9, 9, false}, "/": {13, 13, false},
	"//": {13, 13, false}, `/\`: {3, 3, true}, "::=": {5, 5, false}, ":=": {5, 5, false},
	":>": {7, 7, false}, "<": {5, 5, false}, "<:": {7, 7, false}, "<=>": {2, 2, false},
	"=": {5, 5, false}, "<=": {5, 5, false}, "=>": {1, 1, false}, "=|": {5, 5, false},
	">": {5, 5, false}, ">=": {5, 5, false}, "??": {9, 13, true}, "@@": {6, 6, true},
	`\/`: {3, 3, true}, "^": {14, 14, false}, "^^": {14, 14, false}, "|": {10, 11, true},
	"|-": {5, 5, false}, "|=": {5, 5, false}, "||": {10, 11, true}, "~>": {2, 2, false},
	`\approx`: {5, 5, false}, `\asymp`: {5, 5, false}, `\bigcirc`: {13, 13, true},
	`\bullet`: {13, 13, true}, `\cap`: {8, 8, true}, `\cdot`: {5, 14, true},
	`\cong`: {5, 5, false}, `\cup`: {8, 8, true}, `\div`: {13, 13, false},
	`\doteq`: {5, 5, false}, `\gg`: {5, 5, false}, `\in`: {5, 5, false},
	`\ll`: {5, 5, false}, `\o`: {13, 13, true}, `\odot`: {13, 13, true},
	`\ominus`: {11, 11, true}, `\oplus`: {10, 10, true}, `\oslash`: {13, 13, false},
	`\otimes`: {13, 13, true}, `\prec`: {5, 5, false}, `\preceq`: {5, 5, false},
	`\propto`: {5, 5, false}, `\sim`: {5, 5, false}, `\simeq`: {5, 5, false},
	`\sqcap`: {9, 13, true}, `\sqcup`: {9, 13, true}, `\sqsubset`: {5, 5, false},
	`\sqsupset`: {5, 5, false}, `\sqsubseteq`: {5, 5, false}, `\sqsupseteq`: {5, 5, false},
	`\star`: {13, 13, true}, `\subset`: {5, 5, false}, `\subseteq`: {5, 5, false},
	`\succ`: {5, 5, false}, `\succeq`: {5, 5, false}, `\supset`: {5, 5, false},
	`\supseteq`: {5, 5, false}, `\uplus`: {9, 13, true}, `\wr`: {9, 14, false},
	`\notin`: {5, 5, false}, `\`: {8, 8, false}, `\X`: {10, 13, false}, "##": {9, 13, true},
}

// prefixOps maps prefix operators to their precedence range: the operand
// takes every infix operator binding tighter than the whole range, an infix
// operator binding looser applies to the prefix expression, and one whose
// range overlaps is a conflict that needs parentheses (as in SANY).
var prefixOps = map[string]opInfo{
	"~": {4, 4, false}, "[]": {4, 15, false}, "<>": {4, 15, false}, "ENABLED": {4, 15, false},
	"UNCHANGED": {4, 15, false}, "DOMAIN": {10, 13, false}, "SUBSET": {10, 13, false},
	"UNION": {10, 13, false}, "-": {12, 12, false}, "-.": {12, 12, false},
}

var postfixOps = map[string]bool{"'": true, "^+": true, "^*": true, "^#": true}

// proofWords are the words that can start or continue a proof; a proof is
// skipped up to the next unit.
var proofWords = map[string]bool{
	"PROOF": true, "BY": true, "OBVIOUS": true, "OMITTED": true, "QED": true, "DEF": true,
	"DEFS": true, "HAVE": true, "TAKE": true, "WITNESS": true, "PICK": true, "SUFFICES": true,
	"DEFINE": true, "NEW": true, "USE": true, "HIDE": true, "ONLY": true, "PROVE": true,
	"STATE": true, "ACTION": true, "TEMPORAL": true,
}

// maxDepth bounds expression nesting so hostile input cannot exhaust the stack.
const maxDepth = 1000

// bailout is the panic value the parser uses to unwind on the first error.
type bailout struct{ err *Error }

type parser struct {
	file    string
	lx      *lexer
	toks    []token
	i       int
	tok     token // toks[i], or a tOffside copy of it
	offside []int // bullet columns; 0 suspends the rule inside brackets
	depth   int
	// hoisted are the instances named in LET definitions of the unit being
	// parsed, which become LOCAL definitions of the module before it.
	hoisted []Unit
}

var moduleStart = regexp.MustCompile(`-{4,}[ \t]*MODULE\b`)

// ParseFile parses the first module in src; text before its header line and
// after its closing ==== is ignored. The error, if any, is an *Error.
func ParseFile(filename string, src []byte) (m *Module, err error) {
	s := string(src)
	loc := moduleStart.FindStringIndex(s)
	if loc == nil {
		return nil, &Error{File: filename, Pos: Pos{1, 1}, Msg: `expected a module header "---- MODULE Name ----", found none`}
	}
	return parseModuleAt(filename, s, loc[0])
}

// ParseFileAll parses every module at the top level of src, in order: a
// file may hold several after the first (TLC reads them too, and a module
// may EXTEND one defined further down the same file). Text between them is
// ignored.
func ParseFileAll(filename string, src []byte) ([]*Module, error) {
	first, err := ParseFile(filename, src)
	if err != nil {
		return nil, err
	}
	s := string(src)
	ms := []*Module{first}
	for off := offsetAfterEnd(s, first.End); ; {
		loc := moduleStart.FindStringIndex(s[off:])
		if loc == nil {
			return ms, nil
		}
		m, err := parseModuleAt(filename, s, off+loc[0])
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
		off = offsetAfterEnd(s, m.End)
	}
}

// parseModuleAt parses the module whose header starts at byte off of s.
func parseModuleAt(filename, s string, off int) (m *Module, err error) {
	line := 1 + strings.Count(s[:off], "\n")
	col := off - strings.LastIndexByte(s[:off], '\n')
	p := &parser{file: filename, lx: newLexer(s, off, Pos{line, col})}
	p.toks = make([]token, 0, (len(s)-off)/16+16)
	defer p.recover(&err)
	p.update()
	m = p.parseModule()
	m.File = filename
	m.Comments = p.lx.Comments
	return m, nil
}

// offsetAfterEnd returns the byte offset in s just after the ==== that
// starts at end (the first run of four = on its line: no token but the end
// of a module has one).
func offsetAfterEnd(s string, end Pos) int {
	off := 0
	for line := 1; line < end.Line; line++ {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return len(s)
		}
		off += i + 1
	}
	i := strings.Index(s[off:], "====")
	if i < 0 {
		return len(s)
	}
	off += i
	for off < len(s) && s[off] == '=' {
		off++
	}
	return off
}

// ParseExpr parses a single TLA+ expression, for tests and tools.
func ParseExpr(src string) (e Expr, err error) {
	p := &parser{file: "expr", lx: newLexer(src, 0, Pos{1, 1})}
	defer p.recover(&err)
	p.update()
	e = p.parseExpr()
	if p.tok.kind != tEOF {
		p.errorf(p.tok.pos, "expected end of expression, found %s", p.tok.describe())
	}
	return e, nil
}

func (p *parser) recover(err *error) {
	if r := recover(); r != nil {
		b, ok := r.(bailout)
		if !ok {
			panic(r)
		}
		*err = b.err
	}
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	panic(bailout{&Error{File: p.file, Pos: pos, Msg: fmt.Sprintf(format, args...)}})
}

// at returns the i-th token, lexing as needed.
func (p *parser) at(i int) token {
	for len(p.toks) <= i {
		if n := len(p.toks); n > 0 && (p.toks[n-1].kind == tEOF || p.toks[n-1].kind == tIllegal) {
			return p.toks[n-1]
		}
		p.toks = append(p.toks, p.lx.next())
	}
	return p.toks[i]
}

// peek returns the raw token n places after the current one.
func (p *parser) peek(n int) token { return p.at(p.i + n) }

// update recomputes the current token, applying the offside rule.
func (p *parser) update() {
	t := p.at(p.i)
	if t.kind == tIllegal {
		p.errorf(t.pos, "%s", t.text)
	}
	if n := len(p.offside); n > 0 && p.offside[n-1] > 0 && t.kind != tEOF && t.pos.Col <= p.offside[n-1] {
		t.kind = tOffside
	}
	p.tok = t
}

func (p *parser) next() {
	if p.at(p.i).kind != tEOF {
		p.i++
	}
	p.update()
}

func (p *parser) push(col int) { p.offside = append(p.offside, col); p.update() }
func (p *parser) pop()         { p.offside = p.offside[:len(p.offside)-1]; p.update() }

func (p *parser) isOp(s string) bool { return p.tok.kind == tOp && p.tok.text == s }
func (p *parser) isKw(s string) bool { return p.tok.kind == tKeyword && p.tok.text == s }

// expectOp consumes the operator s or reports what was found instead.
func (p *parser) expectOp(s, context string) Pos {
	if !p.isOp(s) {
		p.errorf(p.tok.pos, "expected %q%s, found %s", s, context, p.tok.describe())
	}
	pos := p.tok.pos
	p.next()
	return pos
}

// expectOpf is expectOp with a formatted context, built only on error.
func (p *parser) expectOpf(s, format string, args ...any) Pos {
	if p.isOp(s) {
		pos := p.tok.pos
		p.next()
		return pos
	}
	return p.expectOp(s, fmt.Sprintf(format, args...))
}

// closing consumes the closing bracket c of the opening o at pos.
func (p *parser) closing(c, o string, pos Pos) {
	if p.isOp(c) {
		p.next()
		return
	}
	p.expectOp(c, fmt.Sprintf(" to close %q at %s", o, pos))
}

func (p *parser) expectKw(s, context string) {
	if !p.isKw(s) {
		p.errorf(p.tok.pos, "expected %s%s, found %s", s, context, p.tok.describe())
	}
	p.next()
}

func (p *parser) ident(context string) *Ident {
	if p.tok.kind != tIdent {
		p.errorf(p.tok.pos, "expected a name%s, found %s", context, p.tok.describe())
	}
	id := &Ident{At: p.tok.pos, Name: p.tok.text}
	p.next()
	return id
}

// ---------------------------------------------------------------------------
// Modules

func (p *parser) parseModule() *Module {
	if p.tok.kind != tSep {
		p.errorf(p.tok.pos, `expected "---- MODULE", found %s`, p.tok.describe())
	}
	m := &Module{At: p.tok.pos}
	p.next()
	p.expectKw("MODULE", ` after "----"`)
	m.Name = p.ident(" after MODULE").Name
	if p.tok.kind == tSep {
		p.next()
	}
	if p.isKw("EXTENDS") {
		p.next()
		for {
			m.Extends = append(m.Extends, p.ident(" of an extended module"))
			if !p.isOp(",") {
				break
			}
			p.next()
		}
	}
	for {
		switch t := p.tok; {
		case t.kind == tEnd:
			m.End = t.pos
			p.next()
			return m
		case t.kind == tEOF:
			p.errorf(t.pos, "expected \"====\" to end module %s, found end of file", m.Name)
		case t.kind == tSep:
			if k := p.peek(1); k.kind == tKeyword && k.text == "MODULE" {
				m.Units = append(m.Units, p.parseModule())
			} else {
				p.next()
			}
		default:
			units := p.parseUnit()
			m.Units = append(append(m.Units, p.hoisted...), units...)
			p.hoisted = nil
		}
	}
}

// hoist makes an instance named in a LET definition (LET M == INSTANCE N
// IN ...) a LOCAL definition of the module, before the unit the LET is in:
// with its substitutions implicit, M!Op means the same there (a name the
// LET could see and the module cannot, such as an operator's parameter,
// cannot be the name of one of N's constants or variables without
// redeclaring a name of the module, which TLA+ forbids). Substitutions
// written out could name what only the LET sees: they are refused.
func (p *parser) hoist(in *Instance) {
	if len(in.Subst) > 0 || len(in.Params) > 0 {
		p.errorf(in.At, "an INSTANCE in a LET definition is supported with implicit substitutions only (no WITH, no parameters): define %s at the module's level", in.Name)
	}
	in.Local = true
	p.hoisted = append(p.hoisted, in)
}

// parseUnit parses one module-level unit (a proof-only unit such as USE
// yields none).
func (p *parser) parseUnit() []Unit {
	t := p.tok
	if t.kind == tIdent && (t.text == "USE" || t.text == "HIDE") {
		p.next()
		p.skipProof()
		return nil
	}
	if t.kind != tKeyword {
		return []Unit{p.parseDef(false)}
	}
	switch t.text {
	case "LOCAL":
		p.next()
		if p.isKw("INSTANCE") {
			in := p.parseInstance(t.pos)
			in.Local = true
			return []Unit{in}
		}
		return []Unit{p.parseDef(true)}
	case "CONSTANT", "CONSTANTS":
		p.next()
		c := &Constant{At: t.pos}
		for {
			c.Names = append(c.Names, p.parseParam())
			if !p.isOp(",") {
				break
			}
			p.next()
		}
		return []Unit{c}
	case "VARIABLE", "VARIABLES":
		p.next()
		v := &Variable{At: t.pos}
		for {
			v.Names = append(v.Names, p.ident(" of a variable"))
			if !p.isOp(",") {
				break
			}
			p.next()
		}
		return []Unit{v}
	case "ASSUME", "ASSUMPTION", "AXIOM":
		p.next()
		a := &Assume{At: t.pos}
		if p.tok.kind == tIdent && p.peek(1).kind == tOp && p.peek(1).text == "==" {
			a.Name = p.tok.text
			p.next()
			p.next()
		}
		a.Body = p.parseExpr()
		return []Unit{a}
	case "THEOREM", "LEMMA", "PROPOSITION", "COROLLARY":
		return []Unit{p.parseTheorem()}
	case "INSTANCE":
		return []Unit{p.parseInstance(t.pos)}
	case "RECURSIVE":
		return []Unit{p.parseRecursive()}
	}
	p.errorf(t.pos, "expected a definition, declaration or \"====\", found %s", t.describe())
	return nil
}

func (p *parser) parseRecursive() *Recursive {
	r := &Recursive{At: p.tok.pos}
	p.next()
	for {
		r.Ops = append(r.Ops, p.parseParam())
		if !p.isOp(",") {
			return r
		}
		p.next()
	}
}

func (p *parser) parseTheorem() *Theorem {
	th := &Theorem{At: p.tok.pos}
	p.next()
	if p.tok.kind == tIdent && p.peek(1).kind == tOp && p.peek(1).text == "==" {
		th.Name = p.tok.text
		p.next()
		p.next()
	}
	// A statement may use proof-only forms (ASSUME ... PROVE); the checker
	// never needs it, so anything unreadable is skipped, not an error.
	if p.isKw("ASSUME") {
		// The assumptions (NEW x \in S, ...) may start lines at column 1,
		// where skipProof would stop; PROVE ends them.
		for t := p.tok; t.kind != tEOF && t.kind != tSep && t.kind != tEnd &&
			!(t.kind == tIdent && t.text == "PROVE"); t = p.tok {
			p.next()
		}
		if p.tok.kind == tIdent {
			p.next()
		}
	}
	save, depth := p.i, len(p.offside)
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(bailout); !ok {
					panic(r)
				}
				th.Body = nil
				p.i, p.offside = save, p.offside[:depth]
				p.update()
			}
		}()
		th.Body = p.parseExpr()
	}()
	p.skipProof()
	return th
}

// skipProof skips tokens up to the next unit: a separator, the module end,
// or a unit-starting word in column 1.
func (p *parser) skipProof() {
	for {
		t := p.at(p.i)
		switch {
		case t.kind == tEOF || t.kind == tSep || t.kind == tEnd:
			p.update()
			return
		case t.kind == tIllegal:
			p.update() // reports it
		case t.pos.Col == 1 && (t.kind == tIdent && !proofWords[t.text] ||
			t.kind == tKeyword && unitKeywords[t.text]):
			p.update()
			return
		}
		p.i++
	}
}

var unitKeywords = map[string]bool{
	"CONSTANT": true, "CONSTANTS": true, "VARIABLE": true, "VARIABLES": true, "ASSUME": true,
	"ASSUMPTION": true, "AXIOM": true, "THEOREM": true, "LEMMA": true, "PROPOSITION": true,
	"COROLLARY": true, "INSTANCE": true, "LOCAL": true, "RECURSIVE": true,
}

func (p *parser) parseInstance(at Pos) *Instance {
	p.expectKw("INSTANCE", "")
	in := &Instance{At: at, ModuleAt: p.tok.pos}
	in.Module = p.ident(" of the instantiated module").Name
	if p.isKw("WITH") {
		p.next()
		for {
			s := &Subst{At: p.tok.pos}
			switch p.tok.kind {
			case tIdent:
				s.Name = p.tok.text
			case tOp:
				if _, ok := infixOps[p.tok.text]; ok || isUserPrefix(p.tok.text) || postfixOps[p.tok.text] {
					s.Name = p.tok.text
				}
			}
			if s.Name == "" {
				p.errorf(p.tok.pos, "expected a name to substitute after WITH, found %s", p.tok.describe())
			}
			p.next()
			p.expectOp("<-", " in substitution "+s.Name)
			s.Expr = p.parseExpr()
			in.Subst = append(in.Subst, s)
			if !p.isOp(",") {
				break
			}
			p.next()
		}
	}
	return in
}

// parseParam parses a formal parameter: x, F(_, _), _ + _, -. _ or _ ^+.
func (p *parser) parseParam() *Param {
	t := p.tok
	switch {
	case t.kind == tIdent:
		p.next()
		pr := &Param{At: t.pos, Name: t.text}
		if p.isOp("(") {
			open := p.tok.pos
			p.next()
			for {
				p.expectOp("_", " as a placeholder in the operator parameter "+t.text)
				pr.Arity++
				if !p.isOp(",") {
					break
				}
				p.next()
			}
			p.closing(")", "(", open)
		}
		return pr
	case t.kind == tOp && t.text == "_":
		p.next()
		op := p.tok
		if op.kind == tOp {
			if _, ok := infixOps[op.text]; ok {
				p.next()
				p.expectOp("_", " after infix operator "+op.text)
				return &Param{At: t.pos, Name: op.text, Arity: 2}
			}
			if postfixOps[op.text] {
				p.next()
				return &Param{At: t.pos, Name: op.text, Arity: 1}
			}
		}
	case t.kind == tOp && isUserPrefix(t.text):
		p.next()
		p.expectOp("_", " after prefix operator "+t.text)
		name := t.text
		if name == "-" {
			name = "-."
		}
		return &Param{At: t.pos, Name: name, Arity: 1}
	}
	p.errorf(t.pos, "expected a parameter name, F(_), or operator placeholder like _ + _, found %s", t.describe())
	return nil
}

// parseDef parses a definition: Op == e, Op(params) == e, f[bounds] == e,
// M == INSTANCE ..., or a user-defined infix, prefix or postfix operator.
func (p *parser) parseDef(local bool) Unit {
	t := p.tok
	var name string
	var params []*Param
	switch {
	case t.kind == tIdent:
		n := p.peek(1)
		switch {
		case n.kind == tOp && n.text == "[":
			p.next()
			open := p.tok.pos
			p.next()
			f := &FuncDef{At: t.pos, Name: t.text, Local: local}
			f.Bounds = p.parseBounds(false)
			p.closing("]", "[", open)
			p.expectOp("==", " after function definition "+t.text+"[...]")
			f.Body = p.parseExpr()
			return f
		case n.kind == tOp && n.text == "(":
			p.next()
			open := p.tok.pos
			p.next()
			for {
				params = append(params, p.parseParam())
				if !p.isOp(",") {
					break
				}
				p.next()
			}
			p.closing(")", "(", open)
			name = t.text
		case n.kind == tOp && postfixOps[n.text]:
			p.next()
			name = n.text
			p.next()
			params = []*Param{{At: t.pos, Name: t.text}}
		case n.kind == tOp && isInfix(n.text) && p.peek(2).kind == tIdent:
			p.next()
			p.next()
			r := p.ident("")
			name = n.text
			params = []*Param{{At: t.pos, Name: t.text}, {At: r.At, Name: r.Name}}
		default:
			p.next()
			name = t.text
		}
	case t.kind == tOp && isUserPrefix(t.text) && p.peek(1).kind == tIdent:
		p.next()
		a := p.ident("")
		name = t.text
		if name == "-" {
			name = "-."
		}
		params = []*Param{{At: a.At, Name: a.Name}}
	default:
		p.errorf(t.pos, "expected a definition, declaration or \"====\", found %s", t.describe())
	}
	p.expectOpf("==", " in the definition of %s", name)
	if p.isKw("INSTANCE") {
		if !isName(name) {
			p.errorf(p.tok.pos, "expected an expression after %s ==, found INSTANCE (an instance is named M or M(p), not an operator symbol)", name)
		}
		in := p.parseInstance(t.pos)
		in.Name, in.Params, in.Local = name, params, local
		return in
	}
	return &OpDef{At: t.pos, Name: name, Params: params, Body: p.parseExpr(), Local: local}
}

// isUserPrefix reports whether s is the one prefix operator a module may
// define: unary minus, written -. in definitions (~, [], DOMAIN and the
// rest are built in).
func isUserPrefix(s string) bool { return s == "-." || s == "-" }

// isName reports whether s is an identifier rather than an operator symbol.
func isName(s string) bool { return s != "" && isWord(s[0]) && s != "_" }

func isInfix(s string) bool {
	_, ok := infixOps[s]
	return ok
}

// ---------------------------------------------------------------------------
// Expressions

func (p *parser) parseExpr() Expr { return p.parseBinary(0) }

// deeper records one more level of nesting of the tree being built: a
// nested subexpression, or one more operator of a chain such as
// 1 + 1 + ... + 1, whose left-associated tree is as deep as the chain is
// long. Every pass over the tree (printing, evaluation) recurses that deep,
// so the parser bounds it rather than let a long chain overflow the stack.
func (p *parser) deeper() {
	p.depth++
	if p.depth > maxDepth {
		p.errorf(p.tok.pos, "expression nested too deeply (more than %d levels; each operator of a chain such as a + b + c counts as one)", maxDepth)
	}
}

func (p *parser) parseBinary(min int) Expr {
	depth := p.depth
	p.deeper()
	defer func() { p.depth = depth }()
	lhs := p.parseUnary()
	for {
		t := p.tok
		if t.kind != tOp {
			return lhs
		}
		info, ok := infixOps[t.text]
		if !ok || info.lo < min {
			return lhs
		}
		p.next()
		p.deeper()
		switch t.text {
		case `/\`, `\/`:
			op := And
			if t.text == `\/` {
				op = Or
			}
			j := &Junction{At: lhs.Pos(), Op: op, Items: []Expr{lhs}}
			for {
				j.Items = append(j.Items, p.parseBinary(info.hi+1))
				if !p.isOp(t.text) {
					break
				}
				p.next()
			}
			lhs = j
		case `\X`:
			c := &Cross{At: lhs.Pos(), Sets: []Expr{lhs}}
			for {
				c.Sets = append(c.Sets, p.parseBinary(info.hi+1))
				if !p.isOp(t.text) {
					break
				}
				p.next()
			}
			lhs = c
		default:
			rhs := p.parseBinary(info.hi + 1)
			lhs = &OpApp{At: t.pos, Name: t.text, Args: []Expr{lhs, rhs}, Fix: FixInfix}
		}
		if n := p.tok; n.kind == tOp {
			// As SANY: the operator just applied meets the next one; unless
			// one clearly binds tighter, or it is the same left-associative
			// operator, the reading is ambiguous.
			if ni, ok := infixOps[n.text]; ok && ni.lo <= info.hi && info.lo <= ni.hi &&
				!(n.text == t.text && info.left) {
				p.errorf(n.pos, "expected parentheses: %q at %s and %q at %s have conflicting precedence",
					t.lit, t.pos, n.lit, n.pos)
			}
		}
	}
}

func (p *parser) parseUnary() Expr {
	t := p.tok
	var name string
	if t.kind == tOp || t.kind == tKeyword {
		name = t.text
	}
	if info, ok := prefixOps[name]; ok {
		p.next()
		if name == "-" {
			name = "-."
		}
		x := p.parseBinary(info.hi + 1)
		if n := p.tok; n.kind == tOp {
			if ni, ok := infixOps[n.text]; ok && ni.lo <= info.hi && info.lo <= ni.hi {
				p.errorf(n.pos, "expected parentheses: prefix %q at %s and %q at %s have conflicting precedence",
					t.lit, t.pos, n.lit, n.pos)
			}
		}
		return &OpApp{At: t.pos, Name: name, Args: []Expr{x}, Fix: FixPrefix}
	}
	return p.parsePostfix(p.parsePrimary())
}

func (p *parser) parsePostfix(x Expr) Expr {
	depth := p.depth
	defer func() { p.depth = depth }()
	for {
		t := p.tok
		if t.kind != tOp {
			return x
		}
		if postfixOps[t.text] || t.text == "[" || t.text == "." && p.peek(1).kind == tIdent {
			p.deeper()
		}
		switch {
		case postfixOps[t.text]:
			p.next()
			x = &OpApp{At: t.pos, Name: t.text, Args: []Expr{x}, Fix: FixPostfix}
		case t.text == "[":
			p.next()
			p.push(0)
			args := p.parseExprList()
			p.closing("]", "[", t.pos)
			p.pop()
			x = &FuncApp{At: x.Pos(), Func: x, Args: args}
		case t.text == "." && p.peek(1).kind == tIdent:
			p.next()
			f := p.tok
			p.next()
			x = &FieldAccess{At: x.Pos(), Rec: x, Field: f.text}
		default:
			return x
		}
	}
}

func (p *parser) parseExprList() []Expr {
	var xs []Expr
	for {
		xs = append(xs, p.parseExpr())
		if !p.isOp(",") {
			return xs
		}
		p.next()
	}
}

func (p *parser) parsePrimary() Expr {
	t := p.tok
	switch t.kind {
	case tIdent:
		if n := p.peek(1); n.kind == tOp && n.text == "::" {
			// A label names a subexpression for proofs; it has no meaning here.
			p.next()
			p.next()
			return p.parseExpr()
		}
		return p.parseName()
	case tNumber:
		p.next()
		return &Num{At: t.pos, Value: t.text}
	case tString:
		p.next()
		return &Str{At: t.pos, Value: t.text}
	case tWF, tSF:
		p.next()
		f := &Fairness{At: t.pos, Strong: t.kind == tSF}
		f.Sub = p.parseSub()
		open := p.expectOp("(", " after "+t.lit+"subscript")
		p.push(0)
		f.Action = p.parseExpr()
		p.closing(")", "(", open)
		p.pop()
		return f
	case tKeyword:
		switch t.text {
		case "TRUE", "FALSE":
			p.next()
			return &Bool{At: t.pos, Value: t.text == "TRUE"}
		case "IF":
			p.next()
			x := &If{At: t.pos, Cond: p.parseExpr()}
			p.expectKw("THEN", fmt.Sprintf(" after IF at %s", t.pos))
			x.Then = p.parseExpr()
			p.expectKw("ELSE", fmt.Sprintf(" after IF ... THEN (IF at %s)", t.pos))
			x.Else = p.parseExpr()
			return x
		case "CASE":
			return p.parseCase()
		case "LET":
			p.next()
			l := &Let{At: t.pos}
			for !p.isKw("IN") {
				if p.isKw("RECURSIVE") {
					l.Defs = append(l.Defs, p.parseRecursive())
					continue
				}
				if p.tok.kind != tIdent && !(p.tok.kind == tOp && isUserPrefix(p.tok.text)) {
					p.errorf(p.tok.pos, "expected a definition or IN after LET at %s, found %s", t.pos, p.tok.describe())
				}
				d := p.parseDef(false)
				if in, ok := d.(*Instance); ok {
					p.hoist(in)
					continue
				}
				l.Defs = append(l.Defs, d)
			}
			p.next()
			l.Body = p.parseExpr()
			if len(l.Defs) == 0 {
				return l.Body // only instances, now the module's
			}
			return l
		case "CHOOSE":
			p.next()
			c := &Choose{At: t.pos}
			bs := p.parseBounds(true)
			if len(bs) != 1 || len(bs[0].Names) != 1 && !bs[0].Tuple {
				p.errorf(t.pos, "expected a single name or tuple after CHOOSE")
			}
			c.Bound = bs[0]
			p.expectOpf(":", " after CHOOSE at %s", t.pos)
			c.Body = p.parseExpr()
			return c
		case "LAMBDA":
			p.next()
			l := &Lambda{At: t.pos}
			for {
				id := p.ident(" of a LAMBDA parameter")
				l.Params = append(l.Params, &Param{At: id.At, Name: id.Name})
				if !p.isOp(",") {
					break
				}
				p.next()
			}
			p.expectOpf(":", " after LAMBDA parameters at %s", t.pos)
			l.Body = p.parseExpr()
			return l
		}
	case tOp:
		switch t.text {
		case "(":
			p.next()
			p.push(0)
			x := p.parseExpr()
			p.closing(")", "(", t.pos)
			p.pop()
			return x
		case "@":
			p.next()
			return &AtSign{At: t.pos}
		case `/\`, `\/`:
			return p.parseBulleted()
		case `\A`, `\E`:
			p.next()
			q := &Quant{At: t.pos, Kind: Forall}
			if t.text == `\E` {
				q.Kind = Exists
			}
			q.Bounds = p.parseBounds(true)
			p.expectOpf(":", " after the bound variables of %s at %s", t.lit, t.pos)
			q.Body = p.parseExpr()
			return q
		case `\AA`, `\EE`:
			p.errorf(t.pos, "expected an expression, found temporal quantifier %s (not supported)", t.lit)
		case "{":
			return p.parseBrace()
		case "<<":
			return p.parseTuple()
		case "[":
			return p.parseBracket()
		}
	}
	p.errorf(t.pos, "expected an expression, found %s", t.describe())
	return nil
}

// parseName parses Name, Name(args), and module-qualified M(a)!N!Op(b).
func (p *parser) parseName() Expr {
	var prefix []*InstanceRef
	for {
		t := p.tok
		if prefix != nil && (t.kind == tNumber || t.kind == tOp && t.text == ":") {
			// A subexpression name: Inv!2 is the second conjunct of Inv,
			// Thm!: the statement of theorem Thm.
			p.next()
			if p.isOp("!") {
				p.next()
				prefix = append(prefix, &InstanceRef{At: t.pos, Name: t.text})
				continue
			}
			return &OpApp{At: prefix[0].At, Prefix: prefix, Name: t.text, Fix: FixCall}
		}
		if t.kind != tIdent {
			p.errorf(t.pos, "expected a name, a position (!2) or \":\" after \"!\", found %s", t.describe())
		}
		p.next()
		var args []Expr
		hasArgs := false
		if p.isOp("(") {
			open := p.tok.pos
			hasArgs = true
			p.next()
			p.push(0)
			args = p.parseArgs()
			p.closing(")", "(", open)
			p.pop()
		}
		if p.isOp("!") {
			p.next()
			prefix = append(prefix, &InstanceRef{At: t.pos, Name: t.text, Args: args})
			continue
		}
		if !hasArgs && prefix == nil {
			return &Ident{At: t.pos, Name: t.text}
		}
		at := t.pos
		if prefix != nil {
			at = prefix[0].At
		}
		return &OpApp{At: at, Prefix: prefix, Name: t.text, Args: args, Fix: FixCall}
	}
}

// parseArgs parses operator arguments; an argument may be a bare operator
// symbol passed to a higher-order operator, which becomes an Ident.
func (p *parser) parseArgs() []Expr {
	var xs []Expr
	for {
		t := p.tok
		if t.kind == tOp && isInfix(t.text) && t.text != `/\` && t.text != `\/` {
			if n := p.peek(1); n.kind == tOp && (n.text == "," || n.text == ")") {
				p.next()
				xs = append(xs, &Ident{At: t.pos, Name: t.text})
				goto more
			}
		}
		xs = append(xs, p.parseExpr())
	more:
		if !p.isOp(",") {
			return xs
		}
		p.next()
	}
}

// parseSub parses the subscript of [A]_v, <<A>>_v, WF_v(A): a name, a tuple
// or a parenthesised expression.
func (p *parser) parseSub() Expr {
	t := p.tok
	switch {
	case t.kind == tIdent:
		// [][M!Next]_M!vars, WF_M(1)!vars(A): a definition of an
		// instance, as in SANY. The last name takes no arguments: in
		// WF_M!vars(A), (A) is the action.
		var prefix []*InstanceRef
		for p.tok.kind == tIdent && p.instanceQualified() {
			ref := &InstanceRef{At: p.tok.pos, Name: p.tok.text}
			p.next()
			if p.isOp("(") {
				open := p.tok.pos
				p.next()
				p.push(0)
				ref.Args = p.parseArgs()
				p.closing(")", "(", open)
				p.pop()
			}
			p.next() // !
			prefix = append(prefix, ref)
		}
		name := p.tok
		if name.kind != tIdent {
			p.errorf(name.pos, "expected a name after \"!\" in a subscript, found %s", name.describe())
		}
		p.next()
		var x Expr = &Ident{At: t.pos, Name: name.text}
		if prefix != nil {
			x = &OpApp{At: t.pos, Prefix: prefix, Name: name.text, Fix: FixCall}
		}
		for p.isOp(".") && p.peek(1).kind == tIdent {
			p.next()
			x = &FieldAccess{At: t.pos, Rec: x, Field: p.tok.text}
			p.next()
		}
		return x
	case t.kind == tOp && t.text == "<<":
		x := p.parseTuple()
		if _, ok := x.(*Tuple); !ok {
			p.errorf(t.pos, "expected a tuple as subscript, found <<A>>_v")
		}
		return x
	case t.kind == tOp && t.text == "(":
		p.next()
		p.push(0)
		x := p.parseExpr()
		p.closing(")", "(", t.pos)
		p.pop()
		return x
	}
	p.errorf(t.pos, "expected a subscript (name, <<tuple>> or (expression)), found %s", t.describe())
	return nil
}

// instanceQualified reports whether the name at the current token is
// followed by "!", after its arguments if it has some: M!vars, M(1)!vars.
// Without "!", a parenthesis after the name is not the subscript's: in
// WF_vars(A) it opens the action.
func (p *parser) instanceQualified() bool {
	i := 1
	if n := p.peek(i); n.kind == tOp && n.text == "(" {
		for depth := 0; ; i++ {
			n := p.peek(i)
			switch {
			case n.kind == tEOF || n.kind == tIllegal:
				return false
			case n.kind == tOp && n.text == "(":
				depth++
			case n.kind == tOp && n.text == ")":
				depth--
			}
			if depth == 0 {
				i++
				break
			}
		}
	}
	n := p.peek(i)
	return n.kind == tOp && n.text == "!"
}

// parseBulleted parses a column-aligned list of /\ or \/ items.
func (p *parser) parseBulleted() Expr {
	t := p.tok
	op := And
	if t.text == `\/` {
		op = Or
	}
	j := &Junction{At: t.pos, Op: op, Bulleted: true}
	for {
		p.next() // the bullet
		p.push(t.pos.Col)
		item := p.parseExpr()
		p.pop()
		// An item that is itself a conjunction (disjunction) for a /\ (\/)
		// list, bulleted or infix, is spliced in: one flat list.
		if in, ok := item.(*Junction); ok && in.Op == op {
			j.Items = append(j.Items, in.Items...)
		} else {
			j.Items = append(j.Items, item)
		}
		if !(p.tok.kind == tOp && p.tok.text == t.text && p.tok.pos.Col == t.pos.Col) {
			return j
		}
	}
}

func (p *parser) parseCase() Expr {
	t := p.tok
	p.next()
	c := &Case{At: t.pos}
	for {
		if p.isKw("OTHER") && len(c.Arms) > 0 {
			p.next()
			p.expectOp("->", " after OTHER")
			c.Other = p.parseExpr()
			return c
		}
		arm := &CaseArm{At: p.tok.pos, Cond: p.parseExpr()}
		p.expectOpf("->", " after a CASE condition (CASE at %s)", t.pos)
		arm.Val = p.parseExpr()
		c.Arms = append(c.Arms, arm)
		if !p.isOp("[]") {
			return c
		}
		p.next()
	}
}

// parseBounds parses `x, y \in S, <<a, b>> \in T` or, when unbounded is
// allowed, `x, y` (all-or-nothing, as in TLA+).
func (p *parser) parseBounds(unbounded bool) []*Bound {
	var bs []*Bound
	for {
		b := &Bound{At: p.tok.pos}
		if p.isOp("<<") {
			open := p.tok.pos
			p.next()
			b.Tuple = true
			for {
				b.Names = append(b.Names, p.ident(" in a tuple of bound variables"))
				if !p.isOp(",") {
					break
				}
				p.next()
			}
			p.closing(">>", "<<", open)
		} else {
			for {
				b.Names = append(b.Names, p.ident(" of a bound variable"))
				if !p.isOp(",") || p.peek(1).kind != tIdent {
					break
				}
				p.next()
			}
		}
		if p.isOp(`\in`) {
			p.next()
			b.Set = p.parseExpr()
		} else if !unbounded || b.Tuple {
			p.errorf(p.tok.pos, `expected "\in" after bound variable %s, found %s`, b.Names[len(b.Names)-1].Name, p.tok.describe())
		}
		bs = append(bs, b)
		if !p.isOp(",") || b.Set == nil {
			return bs
		}
		p.next()
	}
}

// asBound turns `x \in S` or `<<a, b>> \in S`, parsed as an expression,
// into a Bound; ok is false for any other expression.
func asBound(x Expr) (*Bound, bool) {
	in, ok := x.(*OpApp)
	if !ok || in.Name != `\in` || in.Fix != FixInfix {
		return nil, false
	}
	switch l := in.Args[0].(type) {
	case *Ident:
		return &Bound{At: l.At, Names: []*Ident{l}, Set: in.Args[1]}, true
	case *Tuple:
		b := &Bound{At: l.At, Tuple: true, Set: in.Args[1]}
		for _, e := range l.Elems {
			id, ok := e.(*Ident)
			if !ok {
				return nil, false
			}
			b.Names = append(b.Names, id)
		}
		return b, len(b.Names) > 0
	}
	return nil, false
}

func (p *parser) parseBrace() Expr {
	t := p.tok
	p.next()
	p.push(0)
	defer p.pop()
	if p.isOp("}") {
		p.next()
		return &SetEnum{At: t.pos}
	}
	// {(x \in S) : ...} maps; only a bare name or tuple starts a filter.
	bare := p.tok.kind == tIdent || p.isOp("<<")
	first := p.parseExpr()
	if p.isOp(":") {
		p.next()
		if b, ok := asBound(first); ok && bare {
			f := &SetFilter{At: t.pos, Bound: b, Pred: p.parseExpr()}
			p.closing("}", "{", t.pos)
			return f
		}
		m := &SetMap{At: t.pos, Elem: first, Bounds: p.parseBounds(false)}
		p.closing("}", "{", t.pos)
		return m
	}
	s := &SetEnum{At: t.pos, Elems: []Expr{first}}
	for p.isOp(",") {
		p.next()
		s.Elems = append(s.Elems, p.parseExpr())
	}
	p.closing("}", "{", t.pos)
	return s
}

func (p *parser) parseTuple() Expr {
	t := p.tok
	p.next()
	p.push(0)
	var elems []Expr
	if !p.isOp(">>") && !p.isOp(">>_") {
		elems = p.parseExprList()
	}
	if p.isOp(">>_") {
		p.next()
		p.pop()
		if len(elems) != 1 {
			p.errorf(t.pos, "expected one action in <<A>>_v, found %d expressions", len(elems))
		}
		return &ActionAngle{At: t.pos, Action: elems[0], Sub: p.parseSub()}
	}
	p.closing(">>", "<<", t.pos)
	p.pop()
	return &Tuple{At: t.pos, Elems: elems}
}

func (p *parser) parseBracket() Expr {
	t := p.tok
	p.next()
	p.push(0)
	if p.tok.kind == tIdent {
		if n := p.peek(1); n.kind == tOp && (n.text == "|->" || n.text == ":") {
			return p.parseRecord(t.pos, n.text)
		}
	}
	first := p.parseExpr()
	switch {
	case p.isOp("|->") || p.isOp(","):
		// [x \in S, y, z \in T |-> e]: the first bound was read as an
		// expression; the rest are ordinary bounds.
		var bounds []*Bound
		var pending []*Ident
		if b, ok := asBound(first); ok {
			bounds = append(bounds, b)
		} else if id, ok := first.(*Ident); ok && p.isOp(",") {
			pending = append(pending, id)
		} else {
			p.errorf(first.Pos(), `expected "x \in S" before "|->" in a function constructor [%s ...]`, Print(first))
		}
		if p.isOp(",") {
			p.next()
			rest := p.parseBounds(false)
			if pending != nil {
				rest[0].Names = append(pending, rest[0].Names...)
				rest[0].At = pending[0].At
				if rest[0].Tuple {
					p.errorf(rest[0].At, "expected a name, not a tuple, after %s,", pending[0].Name)
				}
			}
			bounds = append(bounds, rest...)
		}
		p.expectOpf("|->", " in function constructor at %s", t.pos)
		f := &FuncCons{At: t.pos, Bounds: bounds, Body: p.parseExpr()}
		p.closing("]", "[", t.pos)
		p.pop()
		return f
	case p.isOp("->"):
		p.next()
		fs := &FuncSet{At: t.pos, Dom: first, Rng: p.parseExpr()}
		p.closing("]", "[", t.pos)
		p.pop()
		return fs
	case p.isKw("EXCEPT"):
		p.next()
		e := &Except{At: t.pos, Func: first}
		for {
			u := &ExceptUpdate{At: p.tok.pos}
			p.expectOp("!", " to start an EXCEPT update path")
			for {
				if p.isOp(".") {
					p.next()
					u.Path = append(u.Path, &ExceptStep{At: p.tok.pos, Field: p.ident(" of a record field after \"!.\"").Name})
				} else if p.isOp("[") {
					open := p.tok.pos
					p.next()
					u.Path = append(u.Path, &ExceptStep{At: open, Index: p.parseExprList()})
					p.closing("]", "[", open)
				} else {
					break
				}
			}
			if len(u.Path) == 0 {
				p.errorf(p.tok.pos, `expected "[" or "." after "!" in EXCEPT, found %s`, p.tok.describe())
			}
			p.expectOp("=", " after the EXCEPT path")
			u.Val = p.parseExpr()
			e.Updates = append(e.Updates, u)
			if !p.isOp(",") {
				break
			}
			p.next()
		}
		p.closing("]", "[", t.pos)
		p.pop()
		return e
	case p.isOp("]_"):
		p.next()
		p.pop()
		return &ActionBox{At: t.pos, Action: first, Sub: p.parseSub()}
	}
	p.errorf(p.tok.pos, `expected "|->", "->", EXCEPT or "]_" in "[" at %s, found %s`, t.pos, p.tok.describe())
	return nil
}

// parseRecord parses [a |-> e, ...] (sep "|->") or [a : S, ...] (sep ":").
func (p *parser) parseRecord(open Pos, sep string) Expr {
	var fields []*Field
	for {
		f := &Field{At: p.tok.pos}
		f.Name = p.ident(" of a record field").Name
		p.expectOp(sep, " after record field "+f.Name)
		f.Val = p.parseExpr()
		fields = append(fields, f)
		if !p.isOp(",") {
			break
		}
		p.next()
	}
	p.closing("]", "[", open)
	p.pop()
	if sep == ":" {
		return &RecordSet{At: open, Fields: fields}
	}
	return &RecordCons{At: open, Fields: fields}
}
