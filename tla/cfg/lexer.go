package cfg

import (
	"fmt"
	"strings"

	"github.com/roomspec/roomspec/tla"
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

// lexer turns source text into tokens on demand. White space, comments,
// string literals and positions follow the TLA+ lexer's rules exactly: both
// are built on tla.Scanner.
type lexer struct {
	tla.Scanner
}

func newLexer(src string) *lexer { return &lexer{tla.Scanner{Src: src, Pos: tla.Pos{Line: 1, Col: 1}}} }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWord(c byte) bool   { return isLetter(c) || isDigit(c) || c == '_' }

// next returns the next token.
func (l *lexer) next() token {
	if err := l.SkipSpace(); err != nil {
		e := err.(*tla.Error)
		return token{kind: tIllegal, pos: e.Pos, lit: "(*", text: e.Msg}
	}
	pos := l.Pos
	if l.Off >= len(l.Src) {
		return token{kind: tEOF, pos: pos}
	}
	c := l.Src[l.Off]
	switch {
	case isWord(c):
		return l.word(pos)
	case c == '"':
		return l.str(pos)
	}
	for _, s := range symbols {
		if strings.HasPrefix(l.Src[l.Off:], s) {
			l.Advance(len(s))
			return token{kind: tPunct, text: s, lit: s, pos: pos}
		}
	}
	lit, msg := l.Illegal()
	return token{kind: tIllegal, pos: pos, lit: lit, text: msg}
}

// word lexes an identifier, keyword or number. As in TLA+, a word with at
// least one letter is an identifier (`1a` included); digits alone are a
// number.
func (l *lexer) word(pos tla.Pos) token {
	j := l.Off
	letter := false
	for j < len(l.Src) && isWord(l.Src[j]) {
		letter = letter || isLetter(l.Src[j])
		j++
	}
	w := l.Src[l.Off:j]
	l.Advance(len(w))
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
	start := l.Off
	v, err := l.String()
	if err != nil {
		e := err.(*tla.Error)
		return token{kind: tIllegal, pos: e.Pos, lit: l.Src[start:l.Off], text: e.Msg}
	}
	return token{kind: tString, text: v, lit: l.Src[start:l.Off], pos: pos}
}
