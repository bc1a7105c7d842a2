package tla

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestPrecedence checks operator precedence and associativity against the
// table in Specifying Systems (section 15.2.1) by printing the parse fully
// parenthesised.
func TestPrecedence(t *testing.T) {
	tests := []struct{ in, want string }{
		{`a + b * c`, `a + (b * c)`},
		{`a * b + c`, `(a * b) + c`},
		{`a + b + c`, `(a + b) + c`},
		{`a - b - c`, `(a - b) - c`},
		{`a + b - c`, `a + (b - c)`}, // - is 11-11, + is 10-10
		{`-a + b`, `(-a) + b`},
		{`-a * b`, `-(a * b)`},
		{`-a ^ 2`, `-(a ^ 2)`},
		{`a \in S \cup T`, `a \in (S \cup T)`},
		{`a = b /\ c = d`, `(a = b) /\ (c = d)`},
		{`a /\ b => c \/ d`, `(a /\ b) => (c \/ d)`},
		{`a => b <=> c`, `a => (b <=> c)`},
		{`~a = b`, `~(a = b)`},
		{`~a /\ b`, `(~a) /\ b`},
		{`x' = x + 1`, `x' = (x + 1)`},
		{`f[x]' = 1`, `f[x]' = 1`},
		{`(a + b)'`, `(a + b)'`},
		{`x'[1]`, `x'[1]`},
		{`r.a.b`, `r.a.b`},
		{`1..N \X S`, `1 .. (N \X S)`}, // \X is 10-13, .. is 9-9
		{`A \X B \X C`, `A \X B \X C`},
		{`DOMAIN f \cup S`, `(DOMAIN f) \cup S`},
		{`SUBSET S \X T`, ``}, // SUBSET is 10-13 in SANY, as is \X
		{`SUBSET S \ T`, `(SUBSET S) \ T`},
		{`DOMAIN f + 1`, ``},
		{`DOMAIN f .. 3`, `(DOMAIN f) .. 3`},
		{`[]x = 1`, ``}, // [] is 4-15: SANY asks for [](x = 1)
		{`[](x = 1) /\ <>y`, `([](x = 1)) /\ (<>y)`},
		{`ENABLED A /\ B`, `(ENABLED A) /\ B`},
		{`a \cdot b + c`, ``},
		{`a ## b ## c`, `(a ## b) ## c`},
		{`UNCHANGED <<x, y>> /\ a`, `(UNCHANGED <<x, y>>) /\ a`},
		{`[]P => <>Q`, `([]P) => (<>Q)`},
		{`[][Next]_vars`, `[][Next]_vars`},
		{`[A]_(x + y)`, `[A]_(x + y)`},
		{`WF_r.a(A) /\ SF_<<x>>(B)`, `WF_r.a(A) /\ SF_<<x>>(B)`},
		{`<<A>>_<<x, y>>`, `<<A>>_<<x, y>>`},
		{`[][M!Next]_M!vars`, `[][M!Next]_M!vars`},
		{`<<M!A>>_M(1)!N!vars`, `<<M!A>>_M(1)!N!vars`},
		{`WF_M!vars(M!A) /\ SF_M(x)!vars(B)`, `WF_M!vars(M!A) /\ SF_M(x)!vars(B)`},
		{`WF_vars((A))`, `WF_vars(A)`},
		{`[A]_1`, ``},
		{`P ~> Q /\ R`, `P ~> (Q /\ R)`},
		{`1 :> 2 @@ 3 :> 4`, `(1 :> 2) @@ (3 :> 4)`},
		{`s \o t \o u`, `(s \o t) \o u`},
		{`a \div b % c`, `(a \div b) % c`},
		{`a \land b \lor c`, ``}, // conflicting
		{`a \leq b`, `a <= b`},
		{`a =< b # c`, ``}, // non-associative
		{`a \geq b`, `a >= b`},
		{`a \lnot b`, ``},
		{`\neg a`, `~a`},
		{`S \union T \intersect U`, ``},
		{`S \union T`, `S \cup T`},
		{`B1 \oplus B2 (+) B3`, `(B1 (+) B2) (+) B3`},
		{`B1 \ominus B2`, `B1 (-) B2`},
		{`a \equiv b`, `a <=> b`},
		{`f \circ g`, `f \o g`},
		{`\A x \in S : P /\ Q`, `\A x \in S : P /\ Q`},
		{`(\A x \in S : P) /\ Q`, `(\A x \in S : P) /\ Q`},
		{`a /\ \E x : P /\ Q`, `a /\ (\E x : P /\ Q)`},
		{`IF a THEN b ELSE c + 1`, `IF a THEN b ELSE c + 1`},
		{`CHOOSE x \in S : x > 1`, `CHOOSE x \in S : x > 1`},
		{`M!Op(1) + M(2)!N!X`, `M!Op(1) + M(2)!N!X`},
		{`LAMBDA x, y : x + y`, `LAMBDA x, y : x + y`},
		{`a \times b`, `a \X b`},
		{`{x \in S : x \in T}`, `{x \in S : x \in T}`},
		{`{(x \in S) : x \in T}`, `{(x \in S) : x \in T}`},
		{`x=<<1>>`, `x = <<1>>`},
		{`x=<1`, `x <= 1`},
	}
	for _, tt := range tests {
		x, err := ParseExpr(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s: parsed as %s, want a precedence error", tt.in, Print(x))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got := Print(x); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// TestJunctionColumns covers the column rule for bulleted lists on
// expressions whose layout decides their meaning.
func TestJunctionColumns(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"two items", "/\\ a\n/\\ b", `a /\ b`},
		{"nested or in and", "/\\ \\/ a\n   \\/ b\n/\\ c", `(a \/ b) /\ c`},
		{"and of ors", "\\/ /\\ a\n   /\\ b\n\\/ c", `(a /\ b) \/ c`},
		{"misaligned bullet ends list", "  /\\ a\n  /\\ b\n \\/ c", `(a /\ b) \/ c`},
		{"deeper bullet is infix", "/\\ a\n  /\\ b", `a /\ b`}, // one item a /\ b, spliced
		{"item continues right of bullet", "/\\ a =\n    b\n/\\ c", `(a = b) /\ c`},
		{"list inside parens", "(/\\ a\n /\\ b) \\/ c", `(a /\ b) \/ c`},
		{"list after IF", "IF p THEN /\\ a\n          /\\ b\n     ELSE c", `IF p THEN a /\ b ELSE c`},
		{"quantifier body", "\\E x \\in S : /\\ a\n              /\\ b", `\E x \in S : a /\ b`},
		{"same op spliced", "/\\ a /\\ b\n/\\ c", `a /\ b /\ c`},
		{"single item", "/\\ a", `/\ a`},
		{"columns count code points", "/\\ x = \"é\" /\\ \\/ a\n              \\/ b", `(x = "é") /\ (a \/ b)`},
		{"tab aligns to column 9", "        /\\ a\n\t/\\ b", `a /\ b`},
		{"tab after text", "p =>\t/\\ a\n\t/\\ b", `p => (a /\ b)`},
		{"item is ending infix", "/\\ a\n/\\ b\n=> c", `(a /\ b) => c`},
		{"list after prefix op mid-line", "(i # j) => ~ /\\ p\n              /\\ q", `(i /= j) => (~(p /\ q))`},
		{"infix at inner bullet column ends inner list",
			"/\\ /\\ a\n   /\\ \\/ b\n      \\/ c\n   => d\n/\\ e", `((a /\ (b \/ c)) => d) /\ e`},
		{"quantifier body on next lines", "\\A i \\in S :\n  /\\ a\n  /\\ b", `\A i \in S : a /\ b`},
		{"set filter with list", "{ p \\in S :\n    /\\ a\n    /\\ b }", `{p \in S : a /\ b}`},
	}
	for _, tt := range tests {
		x, err := ParseExpr(tt.in)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := Print(x); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestPrintRoundTrip prints every definition body of the shared modules and
// the testdata specs and parses the text back: the trees must be the same
// (up to junction layout, which Print writes as infix).
func TestPrintRoundTrip(t *testing.T) {
	files, _ := globTLA("testdata")
	files = append(files, sharedModulesIfPresent()...)
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseFile(f, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range m.Units {
			d, ok := u.(*OpDef)
			if !ok {
				continue
			}
			text := Print(d.Body)
			back, err := ParseExpr(text)
			if err != nil {
				t.Errorf("%s: %s: printed text does not parse: %v\n%s", f, d.Name, err, text)
				continue
			}
			if a, b := shape(d.Body), shape(back); a != b {
				t.Errorf("%s: %s: round trip changed the tree:\n%s\n---\n%s", f, d.Name, a, b)
			}
			n++
		}
	}
	// The testdata alone has over 40 definitions; the shared modules add more.
	if n < 40 {
		t.Errorf("only %d definitions round-tripped", n)
	}
}

var unitPos = regexp.MustCompile(` @\d+:\d+`)

// shape is Dump without positions and without the bulleted/infix
// distinction.
func shape(x Expr) string {
	s := Dump(x)
	s = strings.ReplaceAll(s, "bulleted ", "")
	return unitPos.ReplaceAllString(s, "")
}

// TestQuote checks that Quote writes strings the lexer reads back
// unchanged, including bytes that are not valid UTF-8.
func TestQuote(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote`, `back\slash`, "nl\ntab\tcr\rff\f", "\x8d\xff", "é"} {
		x, err := ParseExpr(Quote(s))
		if err != nil {
			t.Errorf("%q: %v", Quote(s), err)
			continue
		}
		if got := x.(*Str).Value; got != s {
			t.Errorf("Quote(%q) read back as %q", s, got)
		}
	}
}

// TestPrintUnitOperators checks that user-defined operators print in the
// form they were defined, which parses back (inside LET, for example).
func TestPrintUnitOperators(t *testing.T) {
	for _, src := range []string{
		"LET a ++ b == a + b IN 1 ++ 2",
		"LET -. a == 0 - a IN -3",
		"LET a ^+ == a IN 1^+",
		"LET a \\prec b == a < b IN 1 \\prec 2",
		"LET F(G(_), x) == G(x) IN F(LAMBDA y : y, 1)",
	} {
		x, err := ParseExpr(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		text := Print(x)
		y, err := ParseExpr(text)
		if err != nil {
			t.Errorf("%s printed as %s, which does not parse: %v", src, text, err)
			continue
		}
		if shape(x) != shape(y) {
			t.Errorf("%s printed as %s, which parses differently", src, text)
		}
	}
	if _, err := ParseExpr("LET [] a == a IN 1"); err == nil {
		t.Error("LET [] a == ... parsed; [] is built in and cannot be defined")
	}
}

// TestPrintUnitRoundTrip prints every unit of the testdata and shared
// modules with PrintUnit, parses the result as a module, and expects the
// same units back (theorems without a readable body and submodules are left
// out: PrintUnit renders only their header).
func TestPrintUnitRoundTrip(t *testing.T) {
	files, _ := globTLA("testdata")
	files = append(files, sharedModulesIfPresent()...)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseFile(f, src)
		if err != nil {
			t.Fatal(err)
		}
		var kept []Unit
		var text strings.Builder
		text.WriteString("---- MODULE RoundTrip ----\n")
		for _, u := range m.Units {
			if th, ok := u.(*Theorem); ok && th.Body == nil {
				continue
			}
			if _, ok := u.(*Module); ok {
				continue
			}
			kept = append(kept, u)
			text.WriteString(PrintUnit(u) + "\n")
		}
		text.WriteString("====\n")
		back, err := ParseFile("RoundTrip.tla", []byte(text.String()))
		if err != nil {
			t.Errorf("%s: printed units do not parse: %v\n%s", f, err, text.String())
			continue
		}
		if len(back.Units) != len(kept) {
			t.Errorf("%s: %d units printed, %d read back", f, len(kept), len(back.Units))
			continue
		}
		for i, u := range kept {
			if a, b := shapeNode(u), shapeNode(back.Units[i]); a != b {
				t.Errorf("%s: unit %d changed:\n%s\n---\n%s", f, i, a, b)
			}
		}
	}
}

func shapeNode(n Node) string {
	return unitPos.ReplaceAllString(strings.ReplaceAll(Dump(n), "bulleted ", ""), "")
}
