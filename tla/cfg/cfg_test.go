package cfg

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/roomspec/roomspec/tla"
)

// dump renders c compactly with positions, so a table row shows exactly
// what was parsed and where.
func dump(c *Config) string {
	var b strings.Builder
	for _, d := range c.Constants {
		fmt.Fprintf(&b, "CONSTANT %s %s", d.Pos, d)
		if d.Value != nil {
			fmt.Fprintf(&b, " @%s", valuePositions(d.Value))
		}
		if d.Subst != nil {
			fmt.Fprintf(&b, " @%s", d.Subst.Pos)
		}
		b.WriteByte('\n')
	}
	single := func(kw string, n *Name) {
		if n != nil {
			fmt.Fprintf(&b, "%s %s %s\n", kw, n.Pos, n.Name)
		}
	}
	list := func(kw string, ns []*Name) {
		for _, n := range ns {
			fmt.Fprintf(&b, "%s %s %s\n", kw, n.Pos, n.Name)
		}
	}
	single("INIT", c.Init)
	single("NEXT", c.Next)
	single("SPECIFICATION", c.Specification)
	list("INVARIANT", c.Invariants)
	list("PROPERTY", c.Properties)
	list("CONSTRAINT", c.Constraints)
	list("ACTION_CONSTRAINT", c.ActionConstraints)
	single("SYMMETRY", c.Symmetry)
	single("VIEW", c.View)
	single("ALIAS", c.Alias)
	list("POSTCONDITION", c.Postconditions)
	if c.CheckDeadlock != nil {
		fmt.Fprintf(&b, "CHECK_DEADLOCK %s %v\n", c.CheckDeadlockPos, *c.CheckDeadlock)
	}
	return b.String()
}

// valuePositions renders the positions of v and, for sets, of its elements.
func valuePositions(v *Value) string {
	if v.Kind != Set {
		return v.Pos.String()
	}
	var parts []string
	for _, e := range v.Elem {
		parts = append(parts, valuePositions(e))
	}
	return v.Pos.String() + "{" + strings.Join(parts, ",") + "}"
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", ""},
		{"only comments", "\\* nothing\n(* at (* all *) *)\n", ""},
		{"init next", "INIT Init\nNEXT Next\n", "INIT 1:6 Init\nNEXT 2:6 Next\n"},
		{"specification", "SPECIFICATION\n    Spec", "SPECIFICATION 2:5 Spec\n"},
		{"invariant synonyms and repeats",
			"INVARIANT A\nINVARIANTS B C\nINVARIANT\n  D\n  E\n",
			"INVARIANT 1:11 A\nINVARIANT 2:12 B\nINVARIANT 2:14 C\nINVARIANT 4:3 D\nINVARIANT 5:3 E\n"},
		{"property synonyms", "PROPERTY P\nPROPERTIES Q R",
			"PROPERTY 1:10 P\nPROPERTY 2:12 Q\nPROPERTY 2:14 R\n"},
		{"constraints", "CONSTRAINT C1 CONSTRAINTS C2\nACTION_CONSTRAINT A1\nACTION_CONSTRAINTS A2 A3",
			"CONSTRAINT 1:12 C1\nCONSTRAINT 1:27 C2\nACTION_CONSTRAINT 2:19 A1\nACTION_CONSTRAINT 3:20 A2\nACTION_CONSTRAINT 3:23 A3\n"},
		{"empty list sections", "PROPERTY\nINVARIANTS\nINIT I NEXT N", "INIT 3:6 I\nNEXT 3:13 N\n"},
		{"symmetry view alias", "SYMMETRY Perms\nVIEW V\nALIAS Al",
			"SYMMETRY 1:10 Perms\nVIEW 2:6 V\nALIAS 3:7 Al\n"},
		{"postcondition", "POSTCONDITION Post1 Post2\nPOSTCONDITION Post3",
			"POSTCONDITION 1:15 Post1\nPOSTCONDITION 1:21 Post2\nPOSTCONDITION 2:15 Post3\n"},
		{"check deadlock false", "CHECK_DEADLOCK\n  FALSE", "CHECK_DEADLOCK 2:3 false\n"},
		{"check deadlock true", "CHECK_DEADLOCK TRUE", "CHECK_DEADLOCK 1:16 true\n"},
		{"ints", "CONSTANTS N = 3 M = -12 Z = 0 Big = 9223372036854775807 Small = -9223372036854775808",
			"CONSTANT 1:11 N = 3 @1:15\nCONSTANT 1:17 M = -12 @1:21\nCONSTANT 1:25 Z = 0 @1:29\n" +
				"CONSTANT 1:31 Big = 9223372036854775807 @1:37\nCONSTANT 1:57 Small = -9223372036854775808 @1:65\n"},
		{"leading zeros", "CONSTANT N = 007", "CONSTANT 1:10 N = 7 @1:14\n"},
		{"strings with escapes", `CONSTANT S = "a\"b\\c\td" E = ""`,
			"CONSTANT 1:10 S = \"a\\\"b\\\\c\\td\" @1:14\nCONSTANT 1:27 E = \"\" @1:31\n"},
		{"booleans", "CONSTANT T = TRUE F = FALSE", "CONSTANT 1:10 T = TRUE @1:14\nCONSTANT 1:19 F = FALSE @1:23\n"},
		{"model values", "CONSTANTS\n  NIL = NIL\n  p = r1", "CONSTANT 2:3 NIL = NIL @2:9\nCONSTANT 3:3 p = r1 @3:7\n"},
		{"identifier starting with digit", "CONSTANT N = 1a", "CONSTANT 1:10 N = 1a @1:14\n"},
		{"sets", "CONSTANT S = {a, b} E = {} M = {1, \"x\", TRUE, m}",
			"CONSTANT 1:10 S = {a, b} @1:14{1:15,1:18}\nCONSTANT 1:21 E = {} @1:25{}\n" +
				"CONSTANT 1:28 M = {1, \"x\", TRUE, m} @1:32{1:33,1:36,1:41,1:47}\n"},
		{"nested sets over lines", "CONSTANT Majority = {{a1, a2},\n   {a1, a3}, {}}",
			"CONSTANT 1:10 Majority = {{a1, a2}, {a1, a3}, {}} @1:21{1:22{1:23,1:27},2:4{2:5,2:9},2:14{}}\n"},
		{"substitution", "CONSTANT Op <- MyOp", "CONSTANT 1:10 Op <- MyOp @1:16\n"},
		{"module substitution", "CONSTANT Op <- [Mod] Def", "CONSTANT 1:10 Op <- [Mod] Def @1:22\n"},
		{"module value", "CONSTANT N = [Mod] 4", "CONSTANT 1:10 N = [Mod] 4 @1:20\n"},
		{"operator at arguments", "CONSTANT F(1, a) = 2 F(2, a) = {}",
			"CONSTANT 1:10 F(1, a) = 2 @1:20\nCONSTANT 1:22 F(2, a) = {} @1:32{}\n"},
		{"instance constant", "CONSTANT I!J!N = 1", "CONSTANT 1:10 I!J!N = 1 @1:18\n"},
		{"comments everywhere",
			"CONSTANTS (* a (* nested *) comment *) N = (* x *) 3 \\* end\n  \\* S = 4\nINVARIANT (*\n*) Inv \\* x",
			"CONSTANT 1:40 N = 3 @1:52\nINVARIANT 4:4 Inv\n"},
		{"constant sections repeat", "CONSTANT A = 1\nINIT I\nCONSTANTS B = 2\nNEXT N",
			"CONSTANT 1:10 A = 1 @1:14\nCONSTANT 3:11 B = 2 @3:15\nINIT 2:6 I\nNEXT 4:6 N\n"},
		{"no trailing newline crlf", "INVARIANT Inv\r\nSPECIFICATION Spec",
			"SPECIFICATION 2:15 Spec\nINVARIANT 1:11 Inv\n"},
		{"comment at eof without newline", "INIT I \\* c", "INIT 1:6 I\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("t.cfg", []byte(tt.src))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := dump(c); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			if c.File != "t.cfg" {
				t.Errorf("File = %q", c.File)
			}
		})
	}
}

func TestValueFields(t *testing.T) {
	c, err := Parse("t.cfg", []byte(`CONSTANT N = -5 S = "hi" B = TRUE M = m X = {1, {m}}`))
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]*Value{}
	for _, d := range c.Constants {
		vals[d.Name] = d.Value
	}
	if v := vals["N"]; v.Kind != Int || v.Int != -5 {
		t.Errorf("N = %+v", v)
	}
	if v := vals["S"]; v.Kind != String || v.Str != "hi" {
		t.Errorf("S = %+v", v)
	}
	if v := vals["B"]; v.Kind != Bool || !v.Bool {
		t.Errorf("B = %+v", v)
	}
	if v := vals["M"]; v.Kind != ModelValue || v.Str != "m" {
		t.Errorf("M = %+v", v)
	}
	x := vals["X"]
	if x.Kind != Set || len(x.Elem) != 2 || x.Elem[0].Int != 1 || x.Elem[1].Kind != Set || x.Elem[1].Elem[0].Str != "m" {
		t.Errorf("X = %s", x)
	}
	if got := Kind(ModelValue).String(); got != "model value" {
		t.Errorf("Kind string %q", got)
	}
}

func TestDeadlockChecked(t *testing.T) {
	for src, want := range map[string]bool{"": true, "CHECK_DEADLOCK TRUE": true, "CHECK_DEADLOCK FALSE": false} {
		c, err := Parse("t.cfg", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.DeadlockChecked(); got != want {
			t.Errorf("%q: DeadlockChecked = %v, want %v", src, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"not a keyword", "INITS Init",
			`bad.cfg:1:1: expected a keyword (CONSTANT, INIT, NEXT, SPECIFICATION, INVARIANT, PROPERTY, CONSTRAINT, ACTION_CONSTRAINT, SYMMETRY, VIEW, ALIAS, CHECK_DEADLOCK, POSTCONDITION), found "INITS"`},
		{"lower-case keyword", "init Init",
			`bad.cfg:1:1: expected a keyword (CONSTANT, INIT, NEXT, SPECIFICATION, INVARIANT, PROPERTY, CONSTRAINT, ACTION_CONSTRAINT, SYMMETRY, VIEW, ALIAS, CHECK_DEADLOCK, POSTCONDITION), found "init"`},
		{"init without name", "INIT\n", `bad.cfg:2:1: expected a definition name after INIT, found end of file`},
		{"init followed by keyword", "INIT NEXT Next", `bad.cfg:1:6: expected a definition name after INIT, found keyword NEXT`},
		{"init twice", "INIT A\nNEXT N\nINIT B", `bad.cfg:3:1: expected INIT once, found it again (first at 1:6)`},
		{"specification twice", "SPECIFICATION A SPECIFICATION B", `bad.cfg:1:17: expected SPECIFICATION once, found it again (first at 1:15)`},
		{"check deadlock value", "CHECK_DEADLOCK no", `bad.cfg:1:16: expected TRUE or FALSE after CHECK_DEADLOCK, found "no"`},
		{"check deadlock twice", "CHECK_DEADLOCK FALSE\nCHECK_DEADLOCK TRUE", `bad.cfg:2:1: expected CHECK_DEADLOCK once, found it again (first value at 1:16)`},
		{"missing equals", "CONSTANT N 3", `bad.cfg:1:12: expected "=" or "<-" after constant N, found "3"`},
		{"missing value", "CONSTANT N =\nINIT I", `bad.cfg:2:1: expected a value (integer, string, TRUE, FALSE, model value or set), found keyword INIT`},
		{"unclosed set", "CONSTANT S = {a, b\nINIT I", `bad.cfg:2:1: expected "}" or "," in the set opened at 1:14, found keyword INIT`},
		{"set missing comma", "CONSTANT S = {a b}", `bad.cfg:1:17: expected "}" or "," in the set opened at 1:14, found "b"`},
		{"trailing comma", "CONSTANT S = {a,}", `bad.cfg:1:17: expected a value (integer, string, TRUE, FALSE, model value or set), found "}"`},
		{"tuple", "CONSTANT T = <<1, 2>>",
			`bad.cfg:1:14: expected a value (integer, string, TRUE, FALSE, model value or set), found "<<": TLC configuration files cannot write tuples; define the tuple in the spec and substitute it with "<-"`},
		{"integer overflow", "CONSTANT N = 9223372036854775808", `bad.cfg:1:14: expected an integer that fits in 64 bits, found 9223372036854775808`},
		{"negative overflow", "CONSTANT N = -9223372036854775809", `bad.cfg:1:15: expected an integer that fits in 64 bits, found -9223372036854775809`},
		{"minus without digits", "CONSTANT N = -x", `bad.cfg:1:15: expected digits after "-", found "x"`},
		{"unterminated string", "CONSTANT S = \"abc\nINIT I", `bad.cfg:1:14: expected '"' to close string started at 1:14, found end of line`},
		{"bad escape", `CONSTANT S = "a\qb"`, `bad.cfg:1:16: expected one of \" \\ \n \t \r \f in string, found \q`},
		{"unterminated comment", "INIT I\n(* open (* nested *)\n", `bad.cfg:2:1: expected "*)" to close comment "(*" at 2:1, found end of file`},
		{"unexpected character", "INVARIANT Inv;", `bad.cfg:1:14: unexpected character ';'`},
		{"operator placeholder", "CONSTANT Op(_, _) <- Def", `bad.cfg:1:13: expected an argument value, found "_" (substitute an operator constant with "Op <- Def")`},
		{"arguments then subst", "CONSTANT Op(1) <- Def", `bad.cfg:1:16: expected "=" after Op(...), found "<-"`},
		{"unclosed arguments", "CONSTANT F(1 = 2", `bad.cfg:1:14: expected ")" to close the arguments of F, found "="`},
		{"module scope unclosed", "CONSTANT N <- [M Def", `bad.cfg:1:18: expected "]" after the module name M, found "Def"`},
		{"subst to value", "CONSTANT N <- 3", `bad.cfg:1:15: expected a definition name after "<-", found "3"`},
		{"constant starts with value", "CONSTANT \"N\" = 3", `bad.cfg:1:10: expected a constant name or a keyword, found string "N"`},
		{"invariant list with number", "INVARIANT Inv 3", `bad.cfg:1:15: expected a definition name or a keyword, found "3"`},
		{"invariant TRUE", "INVARIANT TRUE", `bad.cfg:1:11: expected a definition name or a keyword, found "TRUE"`},
		{"digits and underscore", "CONSTANT N = 1_000", `bad.cfg:1:14: expected an identifier or a number, found "1_000"`},
		{"instance path", "CONSTANT I! = 1", `bad.cfg:1:13: expected a name after "!", found "="`},
		{"non-ascii", "INIT Ïnit", `bad.cfg:1:6: unexpected character 'Ï'`},
		{"deep nesting", "CONSTANT S = " + strings.Repeat("{", maxDepth+1),
			fmt.Sprintf(`bad.cfg:1:%d: expected sets nested at most %d deep, found deeper nesting`, 14+maxDepth, maxDepth)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("bad.cfg", []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse succeeded: %s", dump(c))
			}
			var te *tla.Error
			if !errors.As(err, &te) {
				t.Fatalf("error %T is not a *tla.Error: %v", err, err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name, src, want string // want "" means valid
	}{
		{"spec", "SPECIFICATION Spec", ""},
		{"init next", "INIT I NEXT N", ""},
		{"nothing", "INVARIANT Inv", ""},
		{"spec and init", "SPECIFICATION Spec\nINIT I\nNEXT N",
			"v.cfg:2:6: expected either SPECIFICATION or INIT/NEXT, found both (SPECIFICATION Spec at 1:15) (and 1 more errors)"},
		{"init without next", "INIT I", "v.cfg:1:6: expected NEXT to go with INIT I, found none"},
		{"next without init", "NEXT N", "v.cfg:1:6: expected INIT to go with NEXT N, found none"},
		{"constant twice", "CONSTANT N = 1\nCONSTANT N <- Def",
			"v.cfg:2:10: expected constant N to be given once, found a second definition (first at 1:10)"},
		{"module constant twice", "CONSTANT N = [M] 1 N = [M] 2",
			"v.cfg:1:20: expected constant [M] N to be given once, found a second definition (first at 1:10)"},
		{"same name other module", "CONSTANT N = 1 N = [M] 2", ""},
		{"operator at distinct arguments", "CONSTANT F(1) = 1 F(2) = 2", ""},
		{"operator at same arguments", "CONSTANT F({a}) = 1 F({a}) = 2",
			"v.cfg:1:21: expected constant F to be given once, found a second definition (first at 1:10)"},
		{"errors in source order", "CONSTANT N = 1\nNEXT X\nCONSTANT N = 2",
			"v.cfg:2:6: expected INIT to go with NEXT X, found none (and 1 more errors)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("v.cfg", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			err = c.Validate()
			got := ""
			if err != nil {
				got = err.Error()
				var list tla.ErrorList
				if !errors.As(err, &list) {
					t.Errorf("error %T is not a tla.ErrorList", err)
				}
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestRoundTrip checks that a constant's String form parses back to the
// same entry, so messages that quote entries show valid syntax.
func TestRoundTrip(t *testing.T) {
	src := `CONSTANTS A = {{a, "q\"\n"}, {}} B = -3 C <- [M] D E(1, {x}) = TRUE I!N = n`
	c, err := Parse("t.cfg", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Constants {
		c2, err := Parse("t.cfg", []byte("CONSTANT "+d.String()))
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if got := c2.Constants[0].String(); got != d.String() {
			t.Errorf("round trip %q -> %q", d, got)
		}
	}
}
