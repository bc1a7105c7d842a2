package cfg

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/roomspec/roomspec/spec/tla"
)

// tokKind classifies a token.
type tokKind int

const (
	tEOF     tokKind = iota
	tIllegal         // lexical error; text is the message
	tIdent
	tKeyword // a configuration keyword such as INIT; text is the keyword
	tNumber  // text is the digits as written
	tString  // text is the unescaped value
	tPunct   // text is the symbol
)

// token is one lexeme. lit is the source spelling, for messages.
type token struct {
	kind tokKind
	text string
	lit  string
	pos  tla.Pos
}

// describe renders t for "found ..." in messages, in the same style as the
// TLA+ parser.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return fmt.Sprintf("string %q", t.text)
	case tKeyword:
		return fmt.Sprintf("keyword %s", t.text)
	}
	return fmt.Sprintf("%q", t.lit)
}

// keywords are the section keywords of a TLC configuration file. TLC
// matches them case-sensitively; any of them ends the section before it.
var keywords = map[string]bool{
	"CONSTANT": true, "CONSTANTS": true,
	"INIT": true, "NEXT": true, "SPECIFICATION": true,
	"INVARIANT": true, "INVARIANTS": true,
	"PROPERTY": true, "PROPERTIES": true,
	"CONSTRAINT": true, "CONSTRAINTS": true,
	"ACTION_CONSTRAINT": true, "ACTION_CONSTRAINTS": true,
	"SYMMETRY": true, "VIEW": true, "ALIAS": true,
	"CHECK_DEADLOCK": true, "POSTCONDITION": true,
}

// symbols are the punctuation tokens of the configuration language, longest
// first. "<<" and ">>" are lexed only so that a tuple gets a clear message.
var symbols = []string{"<-", "<<", ">>", "=", "{", "}", ",", "(", ")", "[", "]", "-", "!"}

// lexer turns source text into tokens on demand. Like the TLA+ lexer it
// counts columns in bytes.
type lexer struct {
	src  string
	off  int
	line int
	col  int
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1, col: 1} }

func (l *lexer) advance(n int) {
	for i := 0; i < n && l.off < len(l.src); i++ {
		if l.src[l.off] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.off++
	}
}

func (l *lexer) peekByte(i int) byte {
	if l.off+i < len(l.src) {
		return l.src[l.off+i]
	}
	return 0
}

func (l *lexer) pos() tla.Pos { return tla.Pos{Line: l.line, Col: l.col} }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWord(c byte) bool   { return isLetter(c) || isDigit(c) || c == '_' }

// skipSpace skips white space and comments (`\*` to the end of the line,
// nested `(* *)`). It returns an illegal token for an unterminated comment.
func (l *lexer) skipSpace() *token {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.advance(1)
		case c == '\\' && l.peekByte(1) == '*':
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance(1)
			}
		case c == '(' && l.peekByte(1) == '*':
			start := l.pos()
			depth := 0
			for {
				if l.off >= len(l.src) {
					return &token{kind: tIllegal, pos: start, lit: "(*",
						text: fmt.Sprintf(`expected "*)" to close comment "(*" at %s, found end of file`, start)}
				}
				if l.src[l.off] == '(' && l.peekByte(1) == '*' {
					depth++
					l.advance(2)
				} else if l.src[l.off] == '*' && l.peekByte(1) == ')' {
					depth--
					l.advance(2)
					if depth == 0 {
						break
					}
				} else {
					l.advance(1)
				}
			}
		default:
			return nil
		}
	}
	return nil
}

// next returns the next token.
func (l *lexer) next() token {
	if t := l.skipSpace(); t != nil {
		return *t
	}
	pos := l.pos()
	if l.off >= len(l.src) {
		return token{kind: tEOF, pos: pos}
	}
	c := l.src[l.off]
	switch {
	case isWord(c):
		return l.word(pos)
	case c == '"':
		return l.str(pos)
	}
	for _, s := range symbols {
		if strings.HasPrefix(l.src[l.off:], s) {
			l.advance(len(s))
			return token{kind: tPunct, text: s, lit: s, pos: pos}
		}
	}
	// Report a whole UTF-8 character, not its first byte.
	r, n := utf8.DecodeRuneInString(l.src[l.off:])
	lit := l.src[l.off : l.off+n]
	l.advance(n)
	return token{kind: tIllegal, pos: pos, lit: lit, text: fmt.Sprintf("unexpected character %q", r)}
}

// word lexes an identifier, keyword or number. As in TLA+, a word with at
// least one letter is an identifier (`1a` included); digits alone are a
// number.
func (l *lexer) word(pos tla.Pos) token {
	j := l.off
	letter := false
	for j < len(l.src) && isWord(l.src[j]) {
		letter = letter || isLetter(l.src[j])
		j++
	}
	w := l.src[l.off:j]
	l.advance(len(w))
	switch {
	case letter && keywords[w]:
		return token{kind: tKeyword, text: w, lit: w, pos: pos}
	case letter:
		return token{kind: tIdent, text: w, lit: w, pos: pos}
	case strings.Trim(w, "0123456789") == "":
		return token{kind: tNumber, text: w, lit: w, pos: pos}
	}
	// Digits and underscores, or underscores alone (`_` is TLA+'s
	// placeholder for operator arguments, which a configuration never takes).
	return token{kind: tIllegal, pos: pos, lit: w,
		text: fmt.Sprintf("expected an identifier or a number, found %q", w)}
}

// str lexes a string literal with TLA+'s escapes.
func (l *lexer) str(pos tla.Pos) token {
	start := l.off
	l.advance(1)
	var b strings.Builder
	for {
		if l.off >= len(l.src) || l.src[l.off] == '\n' {
			return token{kind: tIllegal, pos: pos, lit: l.src[start:l.off],
				text: fmt.Sprintf(`expected '"' to close string started at %s, found end of line`, pos)}
		}
		c := l.src[l.off]
		if c == '"' {
			l.advance(1)
			return token{kind: tString, text: b.String(), lit: l.src[start:l.off], pos: pos}
		}
		if c == '\\' {
			if l.off+1 >= len(l.src) || l.src[l.off+1] == '\n' {
				l.advance(1)
				continue // reported as an unterminated string above
			}
			e := l.peekByte(1)
			var r byte
			switch e {
			case '"', '\\':
				r = e
			case 'n':
				r = '\n'
			case 't':
				r = '\t'
			case 'r':
				r = '\r'
			case 'f':
				r = '\f'
			default:
				escPos := l.pos()
				l.advance(1)
				return token{kind: tIllegal, pos: escPos, lit: l.src[start:l.off],
					text: fmt.Sprintf(`expected one of \" \\ \n \t \r \f in string, found \%c`, e)}
			}
			b.WriteByte(r)
			l.advance(2)
			continue
		}
		b.WriteByte(c)
		l.advance(1)
	}
}
