package tla

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Scanner reads TLA+ source text position by position. It holds the
// lexical rules that TLA+ modules and TLC configuration files share: how
// lines and columns are counted, white space and comments, and string
// literals. The TLA+ lexer and the configuration lexer (tla/cfg) are
// both built on it, so the two never disagree on a comment or a column.
type Scanner struct {
	Src string
	Off int // byte offset of the next character
	// Pos is the position of Src[Off]. Columns count code points, as SANY
	// does (UTF-8 continuation bytes take no column), and a tab advances to
	// the next multiple of 8, plus 1 (JavaCC's default), so bullets aligned
	// in an editor with tabs align here too.
	Pos Pos
	// Comments collects every comment skipped, in source order, when
	// KeepComments is set.
	Comments     []*Comment
	KeepComments bool
}

// NewScanner returns a scanner of src starting at byte offset off, which is
// at position pos.
func NewScanner(src string, off int, pos Pos) *Scanner {
	return &Scanner{Src: src, Off: off, Pos: pos}
}

// Advance moves n bytes forward.
func (s *Scanner) Advance(n int) {
	for i := 0; i < n && s.Off < len(s.Src); i++ {
		switch c := s.Src[s.Off]; {
		case c == '\n':
			s.Pos.Line++
			s.Pos.Col = 1
		case c == '\t':
			s.Pos.Col = (s.Pos.Col-1)/8*8 + 9
		case c < 0x80 || c >= 0xC0:
			s.Pos.Col++
		}
		s.Off++
	}
}

// Peek returns the byte i places ahead, or 0 past the end.
func (s *Scanner) Peek(i int) byte {
	if s.Off+i < len(s.Src) {
		return s.Src[s.Off+i]
	}
	return 0
}

// lineStart reports whether only blanks precede offset off on its line.
func (s *Scanner) lineStart(off int) bool {
	for i := off - 1; i >= 0 && s.Src[i] != '\n'; i-- {
		if c := s.Src[i]; c != ' ' && c != '\t' && c != '\r' && c != '\f' {
			return false
		}
	}
	return true
}

// SkipSpace skips white space, `\*` line comments and nested `(* *)` block
// comments. An unterminated block comment is an error at its start.
func (s *Scanner) SkipSpace() error {
	for s.Off < len(s.Src) {
		c := s.Src[s.Off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			s.Advance(1)
		case c == '\\' && s.Peek(1) == '*':
			start, from := s.Pos, s.Off
			for s.Off < len(s.Src) && s.Src[s.Off] != '\n' {
				s.Advance(1)
			}
			s.comment(start, from, strings.TrimRight(s.Src[from:s.Off], "\r"))
		case c == '(' && s.Peek(1) == '*':
			start, from := s.Pos, s.Off
			depth := 0
			for {
				if s.Off >= len(s.Src) {
					return &Error{Pos: start, Msg: fmt.Sprintf(`expected "*)" to close comment "(*" at %s, found end of file`, start)}
				}
				if s.Src[s.Off] == '(' && s.Peek(1) == '*' {
					depth++
					s.Advance(2)
				} else if s.Src[s.Off] == '*' && s.Peek(1) == ')' {
					depth--
					s.Advance(2)
					if depth == 0 {
						s.comment(start, from, s.Src[from:s.Off])
						break
					}
				} else {
					s.Advance(1)
				}
			}
		default:
			return nil
		}
	}
	return nil
}

func (s *Scanner) comment(at Pos, from int, text string) {
	if s.KeepComments {
		s.Comments = append(s.Comments, &Comment{At: at, Text: text, ownLine: s.lineStart(from)})
	}
}

// String lexes the string literal starting at the current `"` and returns
// its unescaped value (escapes \" \\ \n \t \r \f, as TLA+ has them). An
// unterminated string or an unknown escape is an error.
func (s *Scanner) String() (string, error) {
	start := s.Pos
	s.Advance(1)
	var b strings.Builder
	for {
		if s.Off >= len(s.Src) || s.Src[s.Off] == '\n' {
			return "", &Error{Pos: start, Msg: fmt.Sprintf(`expected '"' to close string started at %s, found end of line`, start)}
		}
		c := s.Src[s.Off]
		switch c {
		case '"':
			s.Advance(1)
			return b.String(), nil
		case '\\':
			var r byte
			switch e := s.Peek(1); e {
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
				at := s.Pos
				if e == 0 || e == '\n' {
					s.Advance(1)
					continue // an unterminated string, reported above
				}
				s.Advance(1)
				r, _ := utf8.DecodeRuneInString(s.Src[s.Off:])
				return "", &Error{Pos: at, Msg: fmt.Sprintf(`expected one of \" \\ \n \t \r \f in string, found \%c`, r)}
			}
			b.WriteByte(r)
			s.Advance(2)
		default:
			b.WriteByte(c)
			s.Advance(1)
		}
	}
}

// Illegal consumes the character at the current offset, which no token
// starts with, and returns it as written (a whole UTF-8 character, so that
// a message shows `é`, not its first byte) with a message saying so.
func (s *Scanner) Illegal() (lit, msg string) {
	r, n := utf8.DecodeRuneInString(s.Src[s.Off:])
	lit = s.Src[s.Off : s.Off+n]
	s.Advance(n)
	if r == utf8.RuneError && n <= 1 {
		return lit, fmt.Sprintf("unexpected byte %#x (the file is not valid UTF-8)", lit[0])
	}
	return lit, fmt.Sprintf("unexpected character %q", r)
}
