package tla

import (
	"fmt"
	"math/big"
	"strings"
)

// tokKind classifies a token.
type tokKind int

const (
	tEOF     tokKind = iota
	tIllegal         // lexical error; text is the message
	tIdent
	tKeyword // text is the keyword
	tNumber  // text is the decimal value
	tString  // text is the unescaped value
	tOp      // operator or punctuation; text is the normalised spelling
	tSep     // a line of 4+ dashes
	tEnd     // 4+ equals signs: end of module
	tWF      // WF_
	tSF      // SF_
	tOffside // synthetic: a token left of the innermost bullet column
	tStep    // a proof step number such as <1>, <*> or <+>
)

// token is one lexeme. lit is the source spelling, for messages.
type token struct {
	kind tokKind
	text string
	lit  string
	pos  Pos
}

// describe renders t for "found ..." in messages.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tString:
		return fmt.Sprintf("string %q", t.text)
	case tOffside:
		return fmt.Sprintf("%q at %s (left of the enclosing /\\ or \\/ bullet, which ends the list item)", t.lit, t.pos)
	}
	return fmt.Sprintf("%q", t.lit)
}

var keywords = map[string]bool{
	"ASSUME": true, "ASSUMPTION": true, "AXIOM": true, "CASE": true, "CHOOSE": true,
	"CONSTANT": true, "CONSTANTS": true, "DOMAIN": true, "ELSE": true, "ENABLED": true,
	"EXCEPT": true, "EXTENDS": true, "IF": true, "IN": true, "INSTANCE": true, "LET": true,
	"LOCAL": true, "MODULE": true, "OTHER": true, "SUBSET": true, "THEN": true,
	"THEOREM": true, "LEMMA": true, "PROPOSITION": true, "COROLLARY": true,
	"UNCHANGED": true, "UNION": true, "VARIABLE": true, "VARIABLES": true, "WITH": true,
	"LAMBDA": true, "RECURSIVE": true, "TRUE": true, "FALSE": true,
}

// backslashOps maps \word operators to their normalised spelling.
var backslashOps = map[string]string{
	`\in`: `\in`, `\notin`: `\notin`, `\A`: `\A`, `\forall`: `\A`, `\E`: `\E`, `\exists`: `\E`,
	`\AA`: `\AA`, `\EE`: `\EE`, `\X`: `\X`, `\times`: `\X`,
	`\land`: `/\`, `\lor`: `\/`, `\lnot`: `~`, `\neg`: `~`, `\equiv`: `<=>`,
	`\leq`: `<=`, `\geq`: `>=`, `\cup`: `\cup`, `\union`: `\cup`, `\cap`: `\cap`,
	`\intersect`: `\cap`, `\subseteq`: `\subseteq`, `\subset`: `\subset`,
	`\supseteq`: `\supseteq`, `\supset`: `\supset`, `\div`: `\div`, `\o`: `\o`, `\circ`: `\o`,
	`\cdot`: `\cdot`, `\approx`: `\approx`, `\asymp`: `\asymp`, `\bigcirc`: `\bigcirc`,
	`\bullet`: `\bullet`, `\cong`: `\cong`, `\doteq`: `\doteq`, `\gg`: `\gg`, `\ll`: `\ll`,
	`\odot`: `(.)`, `\ominus`: `(-)`, `\oplus`: `(+)`, `\oslash`: `(/)`,
	`\otimes`: `(\X)`, `\prec`: `\prec`, `\preceq`: `\preceq`, `\propto`: `\propto`,
	`\sim`: `\sim`, `\simeq`: `\simeq`, `\sqcap`: `\sqcap`, `\sqcup`: `\sqcup`,
	`\sqsubset`: `\sqsubset`, `\sqsupset`: `\sqsupset`, `\sqsubseteq`: `\sqsubseteq`,
	`\sqsupseteq`: `\sqsupseteq`, `\star`: `\star`, `\succ`: `\succ`, `\succeq`: `\succeq`,
	`\uplus`: `\uplus`, `\wr`: `\wr`,
}

// symbols lists punctuation and operator symbols, longest first so the
// lexer can take the first match.
var symbols = []string{
	"-+->", `(\X)`,
	"|->", "<=>", "...", "::=", "(+)", "(-)", "(.)", "(/)", ">>_",
	"==", "=>", "=<", "=|", "<=", "<>", "<<", "<-", "<:", ">=", ">>", `/\`, `\/`, "/=", "//",
	"~>", "[]", "]_", "->", "-|", "--", "-.", "++", "**", "..", "::", ":=", ":>", "@@", "!!",
	"##", "$$", "%%", "&&", "^^", "^+", "^*", "^#", "|-", "|=", "||", "??",
	"=", "<", ">", "/", "~", "[", "]", "-", "+", "*", ".", ":", "@", "!", "'", ",", "(", ")",
	"{", "}", "#", "%", "^", "|", "&", "$", "?", "_", `\`,
}

// symbolsByByte indexes symbols by their first byte, keeping the
// longest-first order, so the lexer tries only the few that can match.
var symbolsByByte = func() [256][]string {
	var t [256][]string
	for _, s := range symbols {
		t[s[0]] = append(t[s[0]], s)
	}
	return t
}()

// symbolNorm maps symbol synonyms to their normalised spelling.
var symbolNorm = map[string]string{"#": "/=", "=<": "<="}

// lexer turns source text into tokens on demand.
type lexer struct {
	Scanner
}

func newLexer(src string, off int, pos Pos) *lexer {
	return &lexer{Scanner{Src: src, Off: off, Pos: pos, KeepComments: true}}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWord(c byte) bool   { return isLetter(c) || isDigit(c) || c == '_' }

// next returns the next token.
func (l *lexer) next() token {
	if err := l.SkipSpace(); err != nil {
		e := err.(*Error)
		return token{kind: tIllegal, pos: e.Pos, lit: "(*", text: e.Msg}
	}
	pos := l.Pos
	if l.Off >= len(l.Src) {
		return token{kind: tEOF, pos: pos}
	}
	start := l.Off
	c := l.Src[l.Off]
	mk := func(k tokKind, text string) token {
		return token{kind: k, text: text, lit: l.Src[start:l.Off], pos: pos}
	}
	switch {
	case c == '-' && strings.HasPrefix(l.Src[l.Off:], "----"):
		for l.Peek(0) == '-' {
			l.Advance(1)
		}
		return mk(tSep, "----")
	case c == '=' && strings.HasPrefix(l.Src[l.Off:], "===="):
		for l.Peek(0) == '=' {
			l.Advance(1)
		}
		return mk(tEnd, "====")
	case isWord(c):
		return l.word(pos)
	case c == '<' && l.stepLen() > 0:
		l.Advance(l.stepLen())
		return mk(tStep, l.Src[start:l.Off])
	case c == '"':
		return l.str(pos)
	case c == '\\':
		n := l.Peek(1)
		if isLetter(n) {
			j := l.Off + 1
			for j < len(l.Src) && isLetter(l.Src[j]) {
				j++
			}
			w := l.Src[l.Off:j]
			// \b101, \o17, \hFF: numbers in another base.
			if base := map[byte]int{'b': 2, 'o': 8, 'h': 16, 'B': 2, 'O': 8, 'H': 16}[n]; base != 0 {
				k := l.Off + 2
				for k < len(l.Src) && isWord(l.Src[k]) {
					k++
				}
				digits := l.Src[l.Off+2 : k]
				if digits != "" && (isDigit(digits[0]) || base == 16) {
					v, ok := new(big.Int).SetString(digits, base)
					l.Advance(k - l.Off)
					if !ok {
						return token{kind: tIllegal, pos: pos, lit: l.Src[start:l.Off],
							text: fmt.Sprintf("expected base-%d digits in number %q", base, l.Src[start:l.Off])}
					}
					return mk(tNumber, v.String())
				}
			}
			if op, ok := backslashOps[w]; ok {
				l.Advance(len(w))
				return mk(tOp, op)
			}
			l.Advance(len(w))
			return token{kind: tIllegal, pos: pos, lit: w, text: fmt.Sprintf("unknown operator %q", w)}
		}
	}
	// "x=<<1>>" is "x = <<1>>": "=<" followed by "<" never makes sense.
	if strings.HasPrefix(l.Src[l.Off:], "=<<") {
		l.Advance(1)
		return mk(tOp, "=")
	}
	for _, s := range symbolsByByte[c] {
		if strings.HasPrefix(l.Src[l.Off:], s) {
			l.Advance(len(s))
			if n, ok := symbolNorm[s]; ok {
				return mk(tOp, n)
			}
			return mk(tOp, s)
		}
	}
	lit, msg := l.Illegal()
	return token{kind: tIllegal, pos: pos, lit: lit, text: msg}
}

// stepLen returns the length of a proof step token <digits>, <*> or <+> at
// the current offset, or 0. No expression contains one: "<" and ">" do not
// chain, and "<<" is lexed first.
func (l *lexer) stepLen() int {
	j := l.Off + 1
	for j < len(l.Src) && isDigit(l.Src[j]) {
		j++
	}
	if j == l.Off+1 && j < len(l.Src) && (l.Src[j] == '*' || l.Src[j] == '+') {
		j++
	}
	if j > l.Off+1 && j < len(l.Src) && l.Src[j] == '>' {
		return j + 1 - l.Off
	}
	return 0
}

// word lexes an identifier, keyword or number.
func (l *lexer) word(pos Pos) token {
	start := l.Off
	j := l.Off
	letter := false
	for j < len(l.Src) && isWord(l.Src[j]) {
		letter = letter || isLetter(l.Src[j])
		j++
	}
	w := l.Src[start:j]
	if !letter {
		if strings.Trim(w, "_") == "" {
			l.Advance(1)
			return token{kind: tOp, text: "_", lit: "_", pos: pos}
		}
		// A number, possibly a decimal: digits then . then digits.
		d := strings.TrimRight(w, "_")
		if len(d) < len(w) || strings.ContainsRune(w, '_') {
			l.Advance(len(w))
			return token{kind: tIllegal, pos: pos, lit: w, text: fmt.Sprintf("malformed number %q", w)}
		}
		if j+1 < len(l.Src) && l.Src[j] == '.' && isDigit(l.Src[j+1]) {
			k := j + 1
			for k < len(l.Src) && isDigit(l.Src[k]) {
				k++
			}
			l.Advance(k - start)
			return token{kind: tNumber, text: l.Src[start:k], lit: l.Src[start:k], pos: pos}
		}
		l.Advance(len(w))
		v := strings.TrimLeft(w, "0")
		if v == "" {
			v = "0"
		}
		return token{kind: tNumber, text: v, lit: w, pos: pos}
	}
	if strings.HasPrefix(w, "WF_") || strings.HasPrefix(w, "SF_") {
		l.Advance(3)
		if w[0] == 'W' {
			return token{kind: tWF, text: "WF_", lit: "WF_", pos: pos}
		}
		return token{kind: tSF, text: "SF_", lit: "SF_", pos: pos}
	}
	l.Advance(len(w))
	if keywords[w] {
		return token{kind: tKeyword, text: w, lit: w, pos: pos}
	}
	return token{kind: tIdent, text: w, lit: w, pos: pos}
}

// str lexes a string literal.
func (l *lexer) str(pos Pos) token {
	start := l.Off
	v, err := l.String()
	if err != nil {
		e := err.(*Error)
		return token{kind: tIllegal, pos: e.Pos, lit: l.Src[start:l.Off], text: e.Msg}
	}
	return token{kind: tString, text: v, lit: l.Src[start:l.Off], pos: pos}
}
