package tla

import (
	"errors"
	"strings"
	"testing"
)

// TestMalformed checks that bad input gives an *Error at the right place
// saying what was expected, and never a panic.
func TestMalformed(t *testing.T) {
	const head = "---- MODULE M ----\n"
	tests := []struct {
		name, src string
		pos       string // line:col
		msg       string // substring of the message
	}{
		{"unclosed paren", head + "A == (1 + 2\nB == 3\n====\n", "3:1", `expected ")" to close "(" at 2:6, found "B"`},
		{"missing ==", head + "A 1\n====\n", "2:3", `expected "==" in the definition of A, found "1"`},
		{"missing == after params", head + "A(x) x\n====\n", "2:6", `expected "==" in the definition of A`},
		{"unknown backslash operator", head + "A == 1 \\foo 2\n====\n", "2:8", `unknown operator "\\foo"`},
		{"unexpected character", head + "A == 1 ; 2\n====\n", "2:8", `unexpected character ';'`},
		// A non-ASCII character is shown as written, and columns count
		// characters: "café" is "caf" then an unexpected 'é' at column 9.
		{"non-ASCII identifier", head + "A == café\n====\n", "2:9", `unexpected character 'é'`},
		{"non-ASCII after it", head + "A == \"é\" ; 1\n====\n", "2:10", `unexpected character ';'`},
		{"invalid UTF-8", head + "A == \xff\n====\n", "2:6", `unexpected byte 0xff (the file is not valid UTF-8)`},
		{"unterminated string", head + "A == \"abc\n====\n", "2:6", `expected '"' to close string started at 2:6, found end of line`},
		{"bad string escape", head + "A == \"a\\qb\"\n====\n", "2:8", `expected one of`},
		{"unterminated comment", head + "A == 1 (* (* *)\n====\n", "2:8", `expected "*)" to close comment "(*" at 2:8, found end of file`},
		{"missing end", head + "A == 1\n", "3:1", `expected "====" to end module M, found end of file`},
		{"no module header", "A == 1\n", "1:1", `expected a module header`},
		{"EXCEPT without path", head + "A == [f EXCEPT = 1]\n====\n", "2:16", `expected "!" to start an EXCEPT update path, found "="`},
		{"EXCEPT bang without step", head + "A == [f EXCEPT ! = 1]\n====\n", "2:18", `expected "[" or "." after "!" in EXCEPT, found "="`},
		{"non-associative chain", head + "A == a = b = c\n====\n", "2:12", `expected parentheses: "=" at 2:8 and "=" at 2:12 have conflicting precedence`},
		{"conflicting junctions", head + "A == a /\\ b \\/ c\n====\n", "2:13", `expected parentheses`},
		{"temporal quantifier", head + "A == \\AA x : x\n====\n", "2:6", `expected an expression, found temporal quantifier \AA (not supported)`},
		{"bullet breaks item", head + "A == /\\ x =\n     1\n====\n", "3:6", `expected an expression, found "1" at 3:6 (left of the enclosing /\ or \/ bullet`},
		{"IF without ELSE", head + "A == IF x THEN y\n====\n", "3:1", `expected ELSE after IF ... THEN (IF at 2:6), found "===="`},
		{"CASE without arrow", head + "A == CASE x y\n====\n", "2:13", `expected "->" after a CASE condition (CASE at 2:6), found "y"`},
		{"CASE with only OTHER", head + "A == CASE OTHER -> 1\n====\n", "2:11", `expected an expression, found "OTHER"`},
		{"operator-named instance", head + "a ++ b == INSTANCE M\n====\n", "2:11", `expected an expression after ++ ==, found INSTANCE`},
		{"LET instance with WITH", head + "A == LET I == INSTANCE M WITH x <- 1 IN I!B\n====\n", "2:10", `an INSTANCE in a LET definition is supported with implicit substitutions only (no WITH, no parameters): define I at the module's level`},
		{"unclosed set", head + "A == {1, 2\n====\n", "3:1", `expected "}" to close "{" at 2:6`},
		{"unclosed tuple", head + "A == <<1, 2\nB == 1\n====\n", "3:1", `expected ">>" to close "<<" at 2:6, found "B"`},
		{"bracket without form", head + "A == [x]\n====\n", "2:8", `expected "|->", "->", EXCEPT or "]_" in "[" at 2:6, found "]"`},
		{"quantifier without colon", head + "A == \\A x \\in S x\n====\n", "2:17", `expected ":" after the bound variables of \A at 2:6`},
		{"bad constant", head + "CONSTANT 1\n====\n", "2:10", `expected a parameter name`},
		{"bad number", head + "A == \\b102\n====\n", "2:6", `expected base-2 digits in number "\\b102"`},
		{"LET without IN", head + "A == LET x == 1 x\n====\n", "3:1", `expected "==" in the definition of x, found "===="`},
		{"junk at top level", head + "A == 1\n) \n====\n", "3:1", `expected a definition, declaration or "====", found ")"`},
		{"deep nesting", head + "A == " + strings.Repeat("(", 5000) + "\n====\n", "2:", `nested too deeply`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFile("m.tla", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error for %q", tt.src)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is %T, want *Error", err, err)
			}
			if e.File != "m.tla" {
				t.Errorf("file %q, want m.tla", e.File)
			}
			if !strings.HasPrefix(e.Pos.String(), tt.pos) {
				t.Errorf("position %s, want %s (%v)", e.Pos, tt.pos, err)
			}
			if !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("message %q\ndoes not contain %q", e.Msg, tt.msg)
			}
			if want := "m.tla:" + e.Pos.String() + ": " + e.Msg; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

func TestErrorList(t *testing.T) {
	var l ErrorList
	if l.Err() != nil {
		t.Error("empty list is an error")
	}
	l = append(l, &Error{File: "a.tla", Pos: Pos{1, 2}, Msg: "first"})
	if got := l.Err().Error(); got != "a.tla:1:2: first" {
		t.Errorf("one error: %q", got)
	}
	l = append(l, &Error{Msg: "second"})
	if got := l.Error(); got != "a.tla:1:2: first (and 1 more errors)" {
		t.Errorf("two errors: %q", got)
	}
	if got := (&Error{Msg: "bare"}).Error(); got != "bare" {
		t.Errorf("no file or position: %q", got)
	}
}

// TestLongChains: a chain of operators builds a tree as deep as the chain is
// long, so a chain of a million terms (`1 + 1 + ... + 1`, x”'..., f[1][1]...)
// is an error at the operator past the limit, not an overflow of the stack
// in a later pass; chains within the limit parse.
func TestLongChains(t *testing.T) {
	const head = "---- MODULE M ----\nA == "
	chain := func(n int, first, sep string) string { return first + strings.Repeat(sep, n) }
	tests := []struct {
		name, expr string
		ok         bool
	}{
		{"sum within the limit", chain(900, "1", " + 1"), true},
		{"sum of a million terms", chain(1_300_000, "1", " + 1"), false},
		{"primes", chain(2000, "x", "'"), false},
		{"applications", chain(2000, "f", "[1]"), false},
		{"fields", chain(2000, "r", ".a"), false},
		{"negations", chain(2000, "1", "") + strings.Repeat("~", 2000), false},
		{"nested parentheses", strings.Repeat("(", 2000) + "1" + strings.Repeat(")", 2000), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expr := tt.expr
			if tt.name == "negations" {
				expr = strings.Repeat("~", 2000) + "TRUE"
			}
			m, err := ParseFile("m.tla", []byte(head+expr+"\n====\n"))
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				if s := Print(m.Units[0].(*OpDef).Body); len(s) < len(expr)/2 {
					t.Errorf("printed %d bytes", len(s))
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want *Error", err, err)
			}
			if e.Pos.Line != 2 || !strings.Contains(e.Msg, "nested too deeply") {
				t.Errorf("got %v", err)
			}
		})
	}
}
