package cfg

import (
	"fmt"
	"strconv"

	"github.com/roomspec/roomspec/tla"
)

// maxDepth bounds set nesting so that hostile input cannot exhaust the
// stack; real configurations nest two or three levels.
const maxDepth = 1000

// Parse reads a configuration file. file is used only in messages. The
// error, if any, is a *tla.Error "file:line:col: expected ..., found ...".
// Parse checks syntax only; call Config.Validate for the conflicts TLC
// rejects before checking.
func Parse(file string, src []byte) (*Config, error) {
	p := &parser{file: file, lex: newLexer(string(src)), cfg: &Config{File: file}}
	p.next()
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.cfg, nil
}

type parser struct {
	file  string
	lex   *lexer
	tok   token
	cfg   *Config
	depth int
}

// bail carries the first error out of the recursive descent.
type bail struct{ err *tla.Error }

func (p *parser) next() { p.tok = p.lex.next() }

func (p *parser) fail(pos tla.Pos, format string, args ...any) {
	panic(bail{&tla.Error{File: p.file, Pos: pos, Msg: fmt.Sprintf(format, args...)}})
}

// failExpected reports that want was expected at the current token.
func (p *parser) failExpected(want string) {
	if p.tok.kind == tIllegal {
		// The lexer's message already says what was expected.
		p.fail(p.tok.pos, "%s", p.tok.text)
	}
	p.fail(p.tok.pos, "expected %s, found %s", want, p.tok.describe())
}

func (p *parser) is(punct string) bool { return p.tok.kind == tPunct && p.tok.text == punct }

func (p *parser) expect(punct, context string) {
	if !p.is(punct) {
		p.failExpected(fmt.Sprintf("%q %s", punct, context))
	}
	p.next()
}

func (p *parser) parse() (err error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	for p.tok.kind != tEOF {
		if p.tok.kind != tKeyword {
			p.failExpected("a keyword (CONSTANT, INIT, NEXT, SPECIFICATION, INVARIANT, PROPERTY, CONSTRAINT, ACTION_CONSTRAINT, SYMMETRY, VIEW, ALIAS, CHECK_DEADLOCK, POSTCONDITION)")
		}
		kw := p.tok
		p.next()
		c := p.cfg
		switch kw.text {
		case "CONSTANT", "CONSTANTS":
			for p.tok.kind != tKeyword && p.tok.kind != tEOF {
				c.Constants = append(c.Constants, p.constant())
			}
		case "INIT":
			p.single(kw, &c.Init)
		case "NEXT":
			p.single(kw, &c.Next)
		case "SPECIFICATION":
			p.single(kw, &c.Specification)
		case "SYMMETRY":
			p.single(kw, &c.Symmetry)
		case "VIEW":
			p.single(kw, &c.View)
		case "ALIAS":
			p.single(kw, &c.Alias)
		case "INVARIANT", "INVARIANTS":
			c.Invariants = p.list(c.Invariants)
		case "PROPERTY", "PROPERTIES":
			c.Properties = p.list(c.Properties)
		case "CONSTRAINT", "CONSTRAINTS":
			c.Constraints = p.list(c.Constraints)
		case "ACTION_CONSTRAINT", "ACTION_CONSTRAINTS":
			c.ActionConstraints = p.list(c.ActionConstraints)
		case "POSTCONDITION":
			c.Postconditions = p.list(c.Postconditions)
		case "CHECK_DEADLOCK":
			if c.CheckDeadlock != nil {
				p.fail(kw.pos, "expected CHECK_DEADLOCK once, found it again (first value at %s)", c.CheckDeadlockPos)
			}
			if p.tok.kind != tIdent || p.tok.text != "TRUE" && p.tok.text != "FALSE" {
				p.failExpected("TRUE or FALSE after CHECK_DEADLOCK")
			}
			b := p.tok.text == "TRUE"
			c.CheckDeadlock, c.CheckDeadlockPos = &b, p.tok.pos
			p.next()
		default:
			// keywords and this switch are kept in step; reaching here is
			// a bug in this package, not bad input.
			panic("cfg: unhandled keyword " + kw.text)
		}
	}
	return nil
}

// name reads one definition name after context.
func (p *parser) name(context string) *Name {
	if p.tok.kind != tIdent || p.tok.text == "TRUE" || p.tok.text == "FALSE" {
		p.failExpected("a definition name " + context)
	}
	n := &Name{Pos: p.tok.pos, Name: p.tok.text}
	p.next()
	return n
}

// single reads the one name of INIT, NEXT, SPECIFICATION, SYMMETRY, VIEW or
// ALIAS into *dst; TLC rejects these keywords given twice.
func (p *parser) single(kw token, dst **Name) {
	if *dst != nil {
		p.fail(kw.pos, "expected %s once, found it again (first at %s)", kw.text, (*dst).Pos)
	}
	*dst = p.name("after " + kw.text)
}

// list reads the names of a list section, which may be empty and may span
// lines: it ends at the next keyword or the end of the file.
func (p *parser) list(dst []*Name) []*Name {
	for p.tok.kind != tKeyword && p.tok.kind != tEOF {
		dst = append(dst, p.name("or a keyword"))
	}
	return dst
}

// constant reads one CONSTANT entry.
func (p *parser) constant() *ConstantDef {
	if p.tok.kind != tIdent || p.tok.text == "TRUE" || p.tok.text == "FALSE" {
		p.failExpected("a constant name or a keyword")
	}
	d := &ConstantDef{Pos: p.tok.pos, Name: p.tok.text}
	p.next()
	for p.is("!") { // an instance's constant: A!B!N
		p.next()
		if p.tok.kind != tIdent {
			p.failExpected(`a name after "!"`)
		}
		d.Name += "!" + p.tok.text
		p.next()
	}
	if p.is("(") {
		p.next()
		for {
			if p.tok.kind == tIllegal && p.tok.lit == "_" {
				p.fail(p.tok.pos, `expected an argument value, found "_" (substitute an operator constant with "%s <- Def")`, d.Name)
			}
			d.Args = append(d.Args, p.value())
			if !p.is(",") {
				break
			}
			p.next()
		}
		p.expect(")", "to close the arguments of "+d.Name)
		if !p.is("=") {
			p.failExpected(fmt.Sprintf(`"=" after %s(...)`, d.Name))
		}
	}
	switch {
	case p.is("<-"):
		p.next()
		d.Module = p.module()
		d.Subst = p.name(`after "<-"`)
	case p.is("="):
		p.next()
		d.Module = p.module()
		d.Value = p.value()
	default:
		p.failExpected(fmt.Sprintf(`"=" or "<-" after constant %s`, d.Name))
	}
	return d
}

// module reads an optional `[M]` module scope.
func (p *parser) module() string {
	if !p.is("[") {
		return ""
	}
	p.next()
	if p.tok.kind != tIdent {
		p.failExpected(`a module name after "["`)
	}
	m := p.tok.text
	p.next()
	p.expect("]", "after the module name "+m)
	return m
}

// value reads a constant value.
func (p *parser) value() *Value {
	t := p.tok
	switch {
	case t.kind == tNumber:
		p.next()
		return &Value{Pos: t.pos, Kind: Int, Int: p.integer(t, false)}
	case t.kind == tPunct && t.text == "-":
		p.next()
		if p.tok.kind != tNumber {
			p.failExpected(`digits after "-"`)
		}
		n := p.tok
		p.next()
		return &Value{Pos: t.pos, Kind: Int, Int: p.integer(n, true)}
	case t.kind == tString:
		p.next()
		return &Value{Pos: t.pos, Kind: String, Str: t.text}
	case t.kind == tIdent && (t.text == "TRUE" || t.text == "FALSE"):
		p.next()
		return &Value{Pos: t.pos, Kind: Bool, Bool: t.text == "TRUE"}
	case t.kind == tIdent:
		p.next()
		return &Value{Pos: t.pos, Kind: ModelValue, Str: t.text}
	case t.kind == tPunct && t.text == "{":
		if p.depth >= maxDepth {
			p.fail(t.pos, "expected sets nested at most %d deep, found deeper nesting", maxDepth)
		}
		p.depth++
		p.next()
		v := &Value{Pos: t.pos, Kind: Set, Elem: []*Value{}}
		if !p.is("}") {
			for {
				v.Elem = append(v.Elem, p.value())
				if !p.is(",") {
					break
				}
				p.next()
			}
		}
		p.expect("}", fmt.Sprintf(`or "," in the set opened at %s`, t.pos))
		p.depth--
		return v
	case t.kind == tPunct && t.text == "<<":
		p.fail(t.pos, `expected a value (integer, string, TRUE, FALSE, model value or set), found "<<": TLC configuration files cannot write tuples; define the tuple in the spec and substitute it with "<-"`)
	}
	p.failExpected("a value (integer, string, TRUE, FALSE, model value or set)")
	return nil
}

// integer converts the digits of t, negated if neg. TLA+ integers are
// unbounded, but the checker's are 64-bit, so larger literals are refused
// here rather than wrapped.
func (p *parser) integer(t token, neg bool) int64 {
	s := t.text
	if neg {
		s = "-" + s
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		p.fail(t.pos, "expected an integer that fits in 64 bits, found %s", s)
	}
	return n
}
