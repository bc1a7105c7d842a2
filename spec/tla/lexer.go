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
	comments []*Comment // every comment lexed so far, in source order
	src      string
	off      int
	line     int
	col      int // column of src[off]; a tab advances to the next multiple of 8, plus 1
}

func newLexer(src string, off int, pos Pos) *lexer {
	return &lexer{src: src, off: off, line: pos.Line, col: pos.Col}
}

func (l *lexer) advance(n int) {
	for i := 0; i < n && l.off < len(l.src); i++ {
		switch l.src[l.off] {
		case '\n':
			l.line++
			l.col = 1
		case '\t':
			// Tab stops every 8 columns, as in SANY (JavaCC's default), so
			// bullets aligned in an editor with tabs align here too.
			l.col = (l.col-1)/8*8 + 9
		default:
			// Columns count code points, as SANY does: UTF-8 continuation
			// bytes (in strings and comments) take no column.
			if c := l.src[l.off]; c < 0x80 || c >= 0xC0 {
				l.col++
			}
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

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isWord(c byte) bool   { return isLetter(c) || isDigit(c) || c == '_' }

// lineStart reports whether only blanks precede offset off on its line.
func (l *lexer) lineStart(off int) bool {
	for i := off - 1; i >= 0 && l.src[i] != '\n'; i-- {
		if c := l.src[i]; c != ' ' && c != '\t' && c != '\r' && c != '\f' {
			return false
		}
	}
	return true
}

// skipSpace skips white space and comments. It returns an illegal token for
// an unterminated block comment.
func (l *lexer) skipSpace() *token {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			l.advance(1)
		case c == '\\' && l.peekByte(1) == '*':
			start, from := Pos{l.line, l.col}, l.off
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.advance(1)
			}
			l.comments = append(l.comments, &Comment{At: start, Text: strings.TrimRight(l.src[from:l.off], "\r"), ownLine: l.lineStart(from)})
		case c == '(' && l.peekByte(1) == '*':
			start, from := Pos{l.line, l.col}, l.off
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
						l.comments = append(l.comments, &Comment{At: start, Text: l.src[from:l.off], ownLine: l.lineStart(from)})
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
	pos := Pos{l.line, l.col}
	if l.off >= len(l.src) {
		return token{kind: tEOF, pos: pos}
	}
	start := l.off
	c := l.src[l.off]
	mk := func(k tokKind, text string) token {
		return token{kind: k, text: text, lit: l.src[start:l.off], pos: pos}
	}
	switch {
	case c == '-' && strings.HasPrefix(l.src[l.off:], "----"):
		for l.peekByte(0) == '-' {
			l.advance(1)
		}
		return mk(tSep, "----")
	case c == '=' && strings.HasPrefix(l.src[l.off:], "===="):
		for l.peekByte(0) == '=' {
			l.advance(1)
		}
		return mk(tEnd, "====")
	case isWord(c):
		return l.word(pos)
	case c == '<' && l.stepLen() > 0:
		l.advance(l.stepLen())
		return mk(tStep, l.src[start:l.off])
	case c == '"':
		return l.str(pos)
	case c == '\\':
		n := l.peekByte(1)
		if isLetter(n) {
			j := l.off + 1
			for j < len(l.src) && isLetter(l.src[j]) {
				j++
			}
			w := l.src[l.off:j]
			// \b101, \o17, \hFF: numbers in another base.
			if base := map[byte]int{'b': 2, 'o': 8, 'h': 16, 'B': 2, 'O': 8, 'H': 16}[n]; base != 0 {
				k := l.off + 2
				for k < len(l.src) && isWord(l.src[k]) {
					k++
				}
				digits := l.src[l.off+2 : k]
				if digits != "" && (isDigit(digits[0]) || base == 16) {
					v, ok := new(big.Int).SetString(digits, base)
					l.advance(k - l.off)
					if !ok {
						return token{kind: tIllegal, pos: pos, lit: l.src[start:l.off],
							text: fmt.Sprintf("expected base-%d digits in number %q", base, l.src[start:l.off])}
					}
					return mk(tNumber, v.String())
				}
			}
			if op, ok := backslashOps[w]; ok {
				l.advance(len(w))
				return mk(tOp, op)
			}
			l.advance(len(w))
			return token{kind: tIllegal, pos: pos, lit: w, text: fmt.Sprintf("unknown operator %q", w)}
		}
	}
	// "x=<<1>>" is "x = <<1>>": "=<" followed by "<" never makes sense.
	if strings.HasPrefix(l.src[l.off:], "=<<") {
		l.advance(1)
		return mk(tOp, "=")
	}
	for _, s := range symbolsByByte[c] {
		if strings.HasPrefix(l.src[l.off:], s) {
			l.advance(len(s))
			if n, ok := symbolNorm[s]; ok {
				return mk(tOp, n)
			}
			return mk(tOp, s)
		}
	}
	l.advance(1)
	return token{kind: tIllegal, pos: pos, lit: string(c), text: fmt.Sprintf("unexpected character %q", c)}
}

// stepLen returns the length of a proof step token <digits>, <*> or <+> at
// the current offset, or 0. No expression contains one: "<" and ">" do not
// chain, and "<<" is lexed first.
func (l *lexer) stepLen() int {
	j := l.off + 1
	for j < len(l.src) && isDigit(l.src[j]) {
		j++
	}
	if j == l.off+1 && j < len(l.src) && (l.src[j] == '*' || l.src[j] == '+') {
		j++
	}
	if j > l.off+1 && j < len(l.src) && l.src[j] == '>' {
		return j + 1 - l.off
	}
	return 0
}

// word lexes an identifier, keyword or number.
func (l *lexer) word(pos Pos) token {
	start := l.off
	j := l.off
	letter := false
	for j < len(l.src) && isWord(l.src[j]) {
		letter = letter || isLetter(l.src[j])
		j++
	}
	w := l.src[start:j]
	if !letter {
		if strings.Trim(w, "_") == "" {
			l.advance(1)
			return token{kind: tOp, text: "_", lit: "_", pos: pos}
		}
		// A number, possibly a decimal: digits then . then digits.
		d := strings.TrimRight(w, "_")
		if len(d) < len(w) || strings.ContainsRune(w, '_') {
			l.advance(len(w))
			return token{kind: tIllegal, pos: pos, lit: w, text: fmt.Sprintf("malformed number %q", w)}
		}
		if j+1 < len(l.src) && l.src[j] == '.' && isDigit(l.src[j+1]) {
			k := j + 1
			for k < len(l.src) && isDigit(l.src[k]) {
				k++
			}
			l.advance(k - start)
			return token{kind: tNumber, text: l.src[start:k], lit: l.src[start:k], pos: pos}
		}
		l.advance(len(w))
		v := strings.TrimLeft(w, "0")
		if v == "" {
			v = "0"
		}
		return token{kind: tNumber, text: v, lit: w, pos: pos}
	}
	if strings.HasPrefix(w, "WF_") || strings.HasPrefix(w, "SF_") {
		l.advance(3)
		if w[0] == 'W' {
			return token{kind: tWF, text: "WF_", lit: "WF_", pos: pos}
		}
		return token{kind: tSF, text: "SF_", lit: "SF_", pos: pos}
	}
	l.advance(len(w))
	if keywords[w] {
		return token{kind: tKeyword, text: w, lit: w, pos: pos}
	}
	return token{kind: tIdent, text: w, lit: w, pos: pos}
}

// str lexes a string literal.
func (l *lexer) str(pos Pos) token {
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
				escPos := Pos{l.line, l.col}
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
