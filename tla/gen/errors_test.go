package gen_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/roomspec/roomspec/tla/gen"
)

// generate runs gen on a one-file module M.tla with the configuration
// cfgText (M.cfg).
func generate(module, cfgText string) ([]byte, error) {
	fsys := fstest.MapFS{
		"M.tla": {Data: []byte(module)},
		"M.cfg": {Data: []byte(cfgText)},
	}
	in, err := gen.LoadInput(fsys, "M.tla", "M.tla")
	if err != nil {
		return nil, err
	}
	return gen.Generate(in)
}

const plainCfg = "SPECIFICATION Spec\nINVARIANT TypeOK\n"

// mod wraps definitions in a module with one variable x.
func mod(defs string) string {
	return "---- MODULE M ----\nEXTENDS Naturals, Sequences, FiniteSets\nVARIABLE x\n" + defs + "\nSpec == Init /\\ [][Next]_x\n====\n"
}

// Each construct outside gen's subset is an error at its position (line 4
// is the first line of defs).
func TestUnsupported(t *testing.T) {
	tests := []struct {
		name, module, cfg string
		want              string // file:line:col: prefix of the message
		unsupported       bool
	}{
		{"choose", mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == x' = CHOOSE y \\in 0..3 : y > x\nNext == Inc"), plainCfg,
			"M.tla:6:13: CHOOSE", true},
		{"set filter of integers", mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == x' = Cardinality({y \\in 0..3 : y > x})\nNext == Inc"), plainCfg,
			"M.tla:6:25: a set of int", true},
		{"set map", mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == x' = Cardinality({y + 1 : y \\in 0..x})\nNext == Inc"), plainCfg,
			"M.tla:6:25: set map", true},
		{"no TypeOK", mod("Init == x = 0\nInc == x' = x + 1\nNext == Inc"), "SPECIFICATION Spec\n",
			"M.tla:1:1: no TypeOK", false},
		{"variable untyped", mod("TypeOK == TRUE\nInit == x = 0\nInc == x' = x + 1\nNext == Inc"), plainCfg,
			"M.tla:3:10: TypeOK has no conjunct x \\in T", false},
		{"guard below Next", mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == x > 0\nNext == Inc"), plainCfg,
			"M.tla:7:9: Inc below Next assigns no primed variable", true},
		{"action does not assign", "---- MODULE M ----\nEXTENDS Naturals\nVARIABLES x, y\nTypeOK == x \\in 0..3 /\\ y \\in 0..3\nInit == x = 0 /\\ y = 0\nInc == x' = x + 1\nNext == Inc /\\ UNCHANGED x\nSpec == Init /\\ [][Next]_<<x, y>>\n====\n", plainCfg,
			"M.tla:6:1: action Inc does not assign y' on some path", false},
		{"unnamed action", mod("TypeOK == x \\in 0..3\nInit == x = 0\nNext == x' = x + 1"), plainCfg,
			"M.tla:6:1: a disjunct of Next that is not a named action", true},
		{"LET with parameters", mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == LET f(y) == y + 1 IN x' = f(x)\nNext == Inc"), plainCfg,
			"M.tla:6:12: LET definitions with parameters", true},
		{"unbounded quantifier", mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == \\E y : x' = y\nNext == Inc"), plainCfg,
			"M.tla:6:11: unbounded", true},
		{"function definition", mod("TypeOK == x \\in 0..3\nf[n \\in 0..3] == n\nInit == x = 0\nInc == x' = f[x]\nNext == Inc"), plainCfg,
			"M.tla:5:1: function definition f", true},
		{"recursive operator", "---- MODULE M ----\nEXTENDS Naturals\nVARIABLE x\nRECURSIVE F(_)\nF(n) == IF n = 0 THEN 0 ELSE F(n - 1)\nTypeOK == x \\in 0..3\nInit == x = 0\nInc == x' = F(x)\nNext == Inc\nSpec == Init /\\ [][Next]_x\n====\n", plainCfg,
			"M.tla:4:1: RECURSIVE", true},
		{"tuple of unknown type", mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == x' = Len(<<1, 2>>)\nNext == Inc"), plainCfg,
			"M.tla:6:17: a tuple whose type is not known", true},
		{"string constant", "---- MODULE M ----\nEXTENDS Naturals\nCONSTANT N\nVARIABLE x\nTypeOK == x \\in 0..3\nInit == x = 0\nInc == x' = x\nNext == Inc\nSpec == Init /\\ [][Next]_x\n====\n", plainCfg + "CONSTANT N = \"a\"\n",
			"M.cfg:3:14: constant N: a string value is", true},
		{"set of sets", mod("TypeOK == x \\in SUBSET SUBSET {1, 2}\nInit == x = {}\nInc == x' = x\nNext == Inc"), plainCfg,
			"M.tla:4:24: a set of int", true},
		{"wire annotation with an unknown name", mod("TypeOK == x \\in 0..3\nInit == x = 0\n\\* @action: environment client\n\\* @wire: send Ping(room: nosuch) a->b\nInc == x' = (x + 1) % 4\nNext == Inc"), plainCfg,
			"M.tla:8:1: @wire of Inc (\"send Ping(room: nosuch) a->b\"): nosuch is not defined", false},
		{"log annotation with an unknown name", mod("TypeOK == x \\in 0..3\nInit == x = 0\n\\* @action: implementation worker\n\\* @log: tick(at: nosuch')\nInc == x' = (x + 1) % 4\nNext == Inc"), plainCfg,
			"M.tla:8:1: @log of Inc (\"tick(at: nosuch')\"): nosuch is not defined", false},
		{"log fields of two types", mod("TypeOK == x \\in 0..3\nInit == x = 0\n\\* @action: implementation worker\n\\* @log: tick(at: x')\n\\* @log: tock(at: x' = 1)\nInc == x' = (x + 1) % 4\nNext == Inc"), plainCfg,
			"M.tla:9:1: @log of Inc (\"tock(at: x' = 1)\"): @log field at is a bool here and a int in another annotation", false},
		{"idle annotation on an integer parameter", mod("TypeOK == x \\in 0..3\nInit == x = 0\n\\* @action: implementation worker\n\\* @idle: tick(at: n) if x = n\nInc(n) == x = n /\\ x' = (x + 1) % 4\nNext == \\E n \\in 0..3 : Inc(n)"), plainCfg,
			"M.tla:8:1: @idle of Inc: parameter n is not an element of a constant set", false},
		{"Go name clash", "---- MODULE M ----\nEXTENDS Naturals\nVARIABLES x_y, xY\nTypeOK == x_y \\in 0..1 /\\ xY \\in 0..1\nInit == x_y = 0 /\\ xY = 0\nInc == x_y' = 1 /\\ xY' = 1\nNext == Inc\nSpec == Init /\\ [][Next]_<<x_y, xY>>\n====\n", plainCfg,
			"M.tla:3:16: variable xY and variable x_y both become XY in Go (State)", false},
		{"reserved name", mod("TypeOK == x \\in 0..3\nInit == x = 0\nFormat(n) == n + 1\nInc == x' = Format(x) % 4\nNext == Inc"), plainCfg,
			"M.tla:6:1: Format and gen's own Format both become Format in Go (Config)", false},
		{"instance", "---- MODULE M ----\nEXTENDS Naturals\nVARIABLE x\nI == INSTANCE Naturals\nTypeOK == x \\in 0..3\nInit == x = 0\nInc == x' = x\nNext == Inc\nSpec == Init /\\ [][Next]_x\n====\n", plainCfg,
			"M.tla:4:1: INSTANCE", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := generate(tt.module, tt.cfg)
			if err == nil {
				t.Fatal("gen accepted it")
			}
			t.Log(err)
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %q, want prefix %q", err, tt.want)
			}
			if got := errors.Is(err, gen.ErrUnsupported); got != tt.unsupported {
				t.Errorf("errors.Is(err, ErrUnsupported) = %v, want %v", got, tt.unsupported)
			}
		})
	}
}

// A liveness property is left to the checker: a state predicate of it
// that gen cannot compile is skipped and named in the output, and the
// ones it can compile become methods.
func TestLivenessAtomSkipped(t *testing.T) {
	src, err := generate(mod("TypeOK == x \\in 0..3\nInit == x = 0\nInc == x' = (x + 1) % 4\nNext == Inc\n"+
		"Big == x > 2\nLive == (x = 0) ~> (ENABLED Inc /\\ Big)"), plainCfg+"PROPERTY Live\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"// Liveness property Live: a state predicate gen cannot compile was\n// skipped: M.tla:",
		"func (c *Config) Big(s *State) bool",
		`{Name: "Live", Kind: specrt.Liveness}`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated code lacks %q", want)
		}
	}
}
