package eval_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/tla"
	"github.com/roomspec/roomspec/tla/eval"
	"github.com/roomspec/roomspec/tla/value"
)

// loadSpec loads module name from dir and binds its constants.
func loadSpec(t testing.TB, dir, name string, bindings ...eval.Binding) *eval.Spec {
	t.Helper()
	mods, err := tla.Load(os.DirFS(dir), name)
	require.NoError(t, err)
	info, err := tla.Resolve(mods)
	require.NoError(t, err)
	sp, err := eval.NewSpec(info, bindings)
	require.NoError(t, err)
	return sp
}

func modelValues(names ...string) value.Value {
	vs := make([]value.Value, len(names))
	for i, n := range names {
		vs[i] = &value.Model{Name: n}
	}
	return value.NewSet(vs...)
}

// evalTestSpec is testdata/EvalTest.tla with N = 3, Procs = {p1, p2, p3}
// and Big = 2^62.
func evalTestSpec(t testing.TB) *eval.Spec {
	return loadSpec(t, "testdata", "EvalTest",
		eval.Binding{Name: "N", Value: value.Int(3)},
		eval.Binding{Name: "Procs", Value: modelValues("p1", "p2", "p3")},
		eval.Binding{Name: "Big", Value: value.Int(1 << 62)},
	)
}

// canon enumerates lazy sets (intervals, SUBSET, [S -> T], ...) so that a
// value prints the same whichever representation the evaluator chose.
func canon(t testing.TB, v value.Value) value.Value {
	switch x := v.(type) {
	case *value.Func:
		keys := make([]value.Value, x.Len())
		vals := make([]value.Value, x.Len())
		for i := range keys {
			keys[i] = canon(t, x.Keys()[i])
			vals[i] = canon(t, x.Vals()[i])
		}
		return value.NewFunc(keys, vals)
	case value.SetValue:
		s, err := x.Enumerate()
		require.NoError(t, err, "enumerating %s", value.Format(v))
		elems := make([]value.Value, s.Len())
		for i, e := range s.Elems() {
			elems[i] = canon(t, e)
		}
		return value.NewSetOwned(elems)
	}
	return v
}

// evalCases are constant expressions and the value TLC gives them, as
// printed by value.Format (sets sorted, tuples as <<...>>).
var evalCases = []struct {
	expr, want string
}{
	// Integers: \div rounds toward negative infinity, % is in 0..b-1.
	{`7 \div 2`, `3`},
	// Quantifiers over a..b computed where they are used, empty ones
	// included.
	{`LET n == N IN \A i \in 1..n : i > 0`, `TRUE`},
	{`LET n == N IN \E i \in n..1 : TRUE`, `FALSE`},
	{`LET n == N IN \E i \in 2..n - 1 : i = 2`, `TRUE`},
	{`LET n == N IN \E i \in 3..n - 1 : TRUE`, `FALSE`},
	{`LET n == N IN \A i \in 3..n - 1 : FALSE`, `TRUE`},
	{`LET n == N IN {i \in 1..n : \E j \in 1..i - 1 : j * 2 = i}`, `{2}`},
	{`(-7) \div 2`, `-4`},
	{`7 \div (-2)`, `-4`},
	{`(-7) \div (-2)`, `3`},
	{`(-6) \div 3`, `-2`},
	{`(-1) \div 5`, `-1`},
	// Unary minus binds less tightly than \div (precedence 12 vs 13)...
	{`-7 \div 2`, `-3`},
	{`-1 \div 5`, `0`},
	// ...but more tightly than % (10-11).
	{`-7 % 2`, `1`},
	{`7 % 3`, `1`},
	{`(-1) % 5`, `4`},
	{`(-6) % 3`, `0`},
	{`2^10`, `1024`},
	{`(-2)^3`, `-8`},
	{`(-2)^63`, `-9223372036854775808`},
	{`1^Big`, `1`},
	{`(-1)^(Big + 1)`, `-1`},
	{`0^Big`, `0`},
	{`- 3 + 5`, `2`},
	{`2 * 3 + 4 * 5`, `26`},
	{`10 - 3 - 2`, `5`},
	{`Big + (Big - 1)`, `9223372036854775807`},
	{`-Big - Big`, `-9223372036854775808`},
	{`(-Big - Big) * 1`, `-9223372036854775808`},
	{`3 < 4 /\ 4 >= 4 /\ ~(5 <= 4)`, `TRUE`},
	{`-1 \in Nat`, `FALSE`},
	{`-1 \in Int`, `TRUE`},
	{`0 \in Nat`, `TRUE`},

	// Sets.
	{`{1, 2} \cup {2, 3}`, `{1, 2, 3}`},
	{`{1, 2} \cap {2, 3}`, `{2}`},
	{`{1, 2, 3} \ {2}`, `{1, 3}`},
	{`(1..5) \ {2, 4}`, `{1, 3, 5}`},
	{`(1..5) \cap (4..9)`, `{4, 5}`},
	{`SUBSET {1, 2}`, `{{}, {1}, {2}, {1, 2}}`},
	{`UNION {{1}, {2, 3}, {}}`, `{1, 2, 3}`},
	{`{1} \subseteq {1, 2}`, `TRUE`},
	{`{1, 3} \subseteq {1, 2}`, `FALSE`},
	{`{} \subseteq {}`, `TRUE`},
	{`{x \in 1..10 : x % 3 = 0}`, `{3, 6, 9}`},
	{`{x * x : x \in -2..2}`, `{0, 1, 4}`},
	{`{<<x, y>> : x \in 1..2, y \in {"a"}}`, `{<<1, "a">>, <<2, "a">>}`},
	{`{p + q : <<p, q>> \in {1, 2} \X {10}}`, `{11, 12}`},
	{`3..1`, `{}`},
	{`Cardinality(3..5)`, `3`},
	{`Cardinality(1..0)`, `0`},
	{`Cardinality({1, 1, 2})`, `2`},
	{`Cardinality(SUBSET (1..4))`, `16`},
	{`{1, 2} \in SUBSET (1..3)`, `TRUE`},
	{`{1, 4} \in SUBSET (1..3)`, `FALSE`},
	{`1..3 = {3, 2, 1}`, `TRUE`},
	{`{{1}, {1}} = {{1}}`, `TRUE`},
	{`SUBSET {1} = {{}, {1}}`, `TRUE`},
	{`"abc" \in STRING`, `TRUE`},
	// Lazy and explicit sets are the same values, also inside other values.
	{`{1..2} = {{1, 2}}`, `TRUE`},
	{`Cardinality({1..2, {1, 2}})`, `1`},
	{`[s \in {1..2} |-> 0][{1, 2}]`, `0`},
	{`<<1..2>> = <<{1, 2}>>`, `TRUE`},
	{`(1..3) \cup (2..5) = 1..5`, `TRUE`},
	{`[1..2 -> 1..2] = [{1, 2} -> {1, 2}]`, `TRUE`},
	{`Cardinality(1..Big)`, `4611686018427387904`},
	{`Big \in 1..Big`, `TRUE`},
	{`\A s \in SUBSET (1..3) : s \subseteq 1..3`, `TRUE`},

	// Functions.
	{`[x \in {1, 2} |-> x * 2][2]`, `4`},
	{`[x \in {1, 2} |-> x * 2]`, `<<2, 4>>`},
	{`DOMAIN [x \in {"a", "b"} |-> 0]`, `{"a", "b"}`},
	{`[x \in {"a", "b"} |-> 0]`, `[a |-> 0, b |-> 0]`},
	{`[x \in {3, 5} |-> x]`, `(3 :> 3 @@ 5 :> 5)`},
	{`[x \in 1..2, y \in 1..2 |-> x * 10 + y][2, 1]`, `21`},
	{`[x \in 1..2, y \in 1..2 |-> x * 10 + y][<<1, 2>>]`, `12`},
	{`[<<x, y>> \in {1, 2} \X {3} |-> x * y][<<2, 3>>]`, `6`},
	{`[1..2 -> {0, 1}]`, `{<<0, 0>>, <<0, 1>>, <<1, 0>>, <<1, 1>>}`},
	{`Cardinality([1..3 -> {0, 1}])`, `8`},
	{`[{"a", "b"} -> {0}]`, `{[a |-> 0, b |-> 0]}`},
	{`[{} -> {1}]`, `{<<>>}`},
	{`[1..2 -> {}]`, `{}`},
	{`<<0, 1>> \in [1..2 -> {0, 1}]`, `TRUE`},
	{`<<0, 2>> \in [1..2 -> {0, 1}]`, `FALSE`},
	{`<<0>> \in [1..2 -> {0, 1}]`, `FALSE`},
	{`[i \in 1..2 |-> 0] \in [{1, 2} -> Nat]`, `TRUE`},
	{`[f2 EXCEPT ![1][2] = 99]`, `<<<<11, 99>>, <<21, 22>>>>`},
	{`[f2 EXCEPT ![2][1] = @ + 1]`, `<<<<11, 12>>, <<22, 22>>>>`},
	{`[f2 EXCEPT ![1] = <<0>>, ![2][2] = @ * 2]`, `<<<<0>>, <<21, 44>>>>`},
	{`[[i \in 1..3 |-> i] EXCEPT ![2] = 0, ![3] = @ * 10]`, `<<1, 0, 30>>`},
	{`[[i \in 1..2 |-> i] EXCEPT ![1] = 5, ![1] = @ + 1]`, `<<6, 2>>`},
	{`[<<1, 2>> EXCEPT ![1] = <<@, @>>]`, `<<<<1, 1>>, 2>>`},
	{`[r EXCEPT !.val = @ + 1].val`, `2`},
	{`[r EXCEPT !.sub.k = 5].sub`, `[k |-> 5]`},
	{`[r EXCEPT !["sub"].k = @ - 1].sub.k`, `-1`},
	{`[r EXCEPT !.val = 7, !.name = "s"]`, `[name |-> "s", sub |-> [k |-> 0], val |-> 7]`},
	{`fact[5]`, `120`},
	{`fact[0]`, `1`},
	{`[n \in 1..4 |-> fact[n]]`, `<<1, 2, 6, 24>>`},
	{`fib[15]`, `610`},
	{`g2[2, 3]`, `5`},
	{`g2[<<0, 1>>]`, `1`},
	{`DOMAIN <<"x", "y">>`, `{1, 2}`},
	{`DOMAIN <<>>`, `{}`},
	{`[[a |-> 1] EXCEPT !.a = @ + 1, !.a = @ * 10]`, `[a |-> 20]`},
	{`[x \in {"a"} |-> 1].a`, `1`},
	{`Cardinality({<<1, 2>>, [i \in 1..2 |-> i], (1 :> 1 @@ 2 :> 2)})`, `1`},
	{`Cardinality({[a |-> 1, b |-> 2], [b |-> 2, a |-> 1]})`, `1`},

	// Records, and their equality with functions.
	{`r.sub.k`, `0`},
	{`r["name"]`, `"r"`},
	{`DOMAIN r`, `{"name", "sub", "val"}`},
	{`[a |-> 1, b |-> 2] = [b |-> 2, a |-> 1]`, `TRUE`},
	{`[a |-> 1] = [x \in {"a"} |-> 1]`, `TRUE`},
	{`[a |-> 1] = [a |-> 2]`, `FALSE`},
	{`[a : {1, 2}, b : {"x"}]`, `{[a |-> 1, b |-> "x"], [a |-> 2, b |-> "x"]}`},
	{`[a |-> 2, b |-> "x"] \in [a : 1..3, b : STRING]`, `TRUE`},
	{`[a |-> 2] \in [a : 1..3, b : STRING]`, `FALSE`},

	// Tuples and sequences.
	{`<<1, 2>> = [i \in 1..2 |-> i]`, `TRUE`},
	{`<<>> = [i \in {} |-> i]`, `TRUE`},
	{`<<1, 2>> = <<1, 2, 3>>`, `FALSE`},
	{`(1 :> "a" @@ 2 :> "b") = <<"a", "b">>`, `TRUE`},
	{`<<3, 4>>[2]`, `4`},
	{`Len(<<1, 2, 3>>)`, `3`},
	{`Len(<<>>)`, `0`},
	{`Append(<<1>>, 2)`, `<<1, 2>>`},
	{`Append(<<>>, "a")`, `<<"a">>`},
	{`Head(<<4, 5>>)`, `4`},
	{`Tail(<<4, 5, 6>>)`, `<<5, 6>>`},
	{`Tail(<<4>>)`, `<<>>`},
	{`SubSeq(<<1, 2, 3, 4>>, 2, 3)`, `<<2, 3>>`},
	{`SubSeq(<<1, 2, 3, 4>>, 1, 4)`, `<<1, 2, 3, 4>>`},
	{`SubSeq(<<1, 2>>, 3, 2)`, `<<>>`},
	{`<<1>> \o <<2, 3>>`, `<<1, 2, 3>>`},
	{`<<>> \o <<>>`, `<<>>`},
	{`"ab" \o "cd"`, `"abcd"`},
	{`SelectSeq(<<1, 2, 3, 4>>, IsEven)`, `<<2, 4>>`},
	{`SelectSeq(<<1, 2, 3>>, LAMBDA v : v > 1)`, `<<2, 3>>`},
	{`<<1, 2>> \in Seq({1, 2})`, `TRUE`},
	{`<<1, 3>> \in Seq({1, 2})`, `FALSE`},
	{`<<>> \in Seq({})`, `TRUE`},
	{`[i \in 2..3 |-> 1] \in Seq({1})`, `FALSE`},
	{`<<1, "a">> \in Nat \X STRING`, `TRUE`},
	{`{1} \X {2} \X {3}`, `{<<1, 2, 3>>}`},
	{`({1} \X {2}) \X {3}`, `{<<<<1, 2>>, 3>>}`},
	{`Cardinality({1, 2} \X {3, 4} \X {5})`, `4`},
	{`<<1, 2, 3>> \in {1} \X {2} \X {3}`, `TRUE`},

	// CHOOSE is deterministic and picks the first element in TLC's order.
	{`CHOOSE x \in 1..10 : x > 3`, `4`},
	{`CHOOSE x \in {"b", "a", "c"} : TRUE`, `"a"`},
	{`CHOOSE s \in SUBSET {1, 2, 3} : Cardinality(s) = 2`, `{1, 2}`},
	{`CHOOSE p \in Procs : TRUE`, `p1`},
	{`SetSum({1, 2, 3, 4})`, `10`},
	{`SetSum({})`, `0`},

	// LET, RECURSIVE, higher-order operators and LAMBDA.
	{`LET sq(v) == v * v IN sq(3) + sq(4)`, `25`},
	{`LET RECURSIVE cnt(_) cnt(k) == IF k = 0 THEN 0 ELSE 1 + cnt(k - 1) IN cnt(5)`, `5`},
	{`LET g[k \in 0..4] == IF k = 0 THEN 0 ELSE k + g[k-1] IN g[4]`, `10`},
	// Deep but finite recursion is fine.
	{`LET RECURSIVE cnt(_) cnt(k) == IF k = 0 THEN 0 ELSE 1 + cnt(k - 1) IN cnt(5000)`, `5000`},
	{`LET g[k \in 0..5000] == IF k = 0 THEN 0 ELSE 1 + g[k-1] IN g[5000]`, `5000`},
	{`LET u == 1 IN LET w == u + 1 IN w * 10`, `20`},
	{`LET u == 1 IN LET u2 == 5 IN u + u2`, `6`},
	{`Twice(Inc, 3)`, `5`},
	{`Twice(LAMBDA v : v * 2, 3)`, `12`},
	{`Fold(Plus, <<1, 2, 3>>, 0)`, `6`},
	{`Fold(LAMBDA p, q : p \o <<q>>, <<1, 2>>, <<>>)`, `<<1, 2>>`},
	{`LET k == 10 IN Twice(LAMBDA v : v + k, 0)`, `20`},
	{`2 \prec 3`, `TRUE`},
	{`3 \prec 3`, `FALSE`},

	// CASE and IF.
	{`CASE N = 1 -> "one" [] N = 3 -> "three" [] OTHER -> "other"`, `"three"`},
	{`CASE N = 1 -> 1 [] OTHER -> 0`, `0`},
	{`IF N > 2 THEN "big" ELSE "small"`, `"big"`},
	// Only the chosen branch is evaluated; TLC takes the first true arm.
	{`IF TRUE THEN 1 ELSE 1 \div 0`, `1`},
	{`CASE TRUE -> 1 [] TRUE -> 2`, `1`},

	// Quantifiers, also over tuple patterns.
	{`\A x \in 1..3 : x > 0`, `TRUE`},
	{`\E x \in 1..3 : x > 2`, `TRUE`},
	{`\E x \in {} : TRUE`, `FALSE`},
	{`\A x \in {} : FALSE`, `TRUE`},
	{`\E <<p, q>> \in {1, 2} \X {3, 4} : p + q = 6`, `TRUE`},
	{`\A <<p, q>> \in {1, 2} \X {3, 4} : p < q`, `TRUE`},
	{`\E <<p, q>> \in {1, 2} \X {3, 4} : p + q = 7`, `FALSE`},
	{`\A x, y \in 1..3 : x + y <= 6`, `TRUE`},
	{`\E x \in 1..3, y \in 2..4 : x = y + 1 /\ y = 2`, `TRUE`},

	// Strings, booleans, model values.
	{`"abc" = "abc"`, `TRUE`},
	{`"a" /= "b"`, `TRUE`},
	{`"say \"hi\""`, `"say \"hi\""`},
	{`BOOLEAN`, `{FALSE, TRUE}`},
	{`TRUE => FALSE`, `FALSE`},
	{`FALSE => (1 \div 0 = 0)`, `TRUE`},
	{`FALSE /\ (1 \div 0 = 0)`, `FALSE`},
	{`TRUE \/ (1 \div 0 = 0)`, `TRUE`},
	{`TRUE <=> ~FALSE`, `TRUE`},
	{`Procs`, `{p1, p2, p3}`},
	{`Cardinality(Procs)`, `3`},
	{`(CHOOSE p \in Procs : TRUE) = 1`, `FALSE`},
	{`(CHOOSE p \in Procs : TRUE) \in Procs`, `TRUE`},
	{`{p \in Procs : p /= CHOOSE q \in Procs : TRUE}`, `{p2, p3}`},

	// Bags.
	{`EmptyBag`, `<<>>`},
	{`SetToBag({"a", "b"})`, `[a |-> 1, b |-> 1]`},
	{`SetToBag({1, 2}) (+) SetToBag({2})`, `<<1, 2>>`},
	{`BagToSet(SetToBag({1, 2}) (+) SetToBag({2}))`, `{1, 2}`},
	{`CopiesIn(2, SetToBag({1, 2}) (+) SetToBag({2}))`, `2`},
	{`CopiesIn(7, SetToBag({1}))`, `0`},
	{`SetToBag({1, 2}) (-) SetToBag({2})`, `<<1>>`},
	{`BagCardinality(SetToBag({1, 2}) (+) SetToBag({2}))`, `3`},
	{`BagIn(3, SetToBag({1}))`, `FALSE`},
	{`IsABag(SetToBag({1}))`, `TRUE`},
	{`IsABag(<<0>>)`, `FALSE`},
	{`SetToBag({1}) \sqsubseteq SetToBag({1, 2})`, `TRUE`},
	{`BagUnion({SetToBag({1}), SetToBag({1, 2})})`, `<<2, 1>>`},
	{`Cardinality(SubBag(SetToBag({1}) (+) SetToBag({1})))`, `3`},

	// A filter of an infinite set is never enumerated: membership in it
	// is its predicate's, as TLC decides it.
	{`[a |-> 3] \in [{"a"} -> {n \in Nat : n > 0}]`, `TRUE`},
	{`[a |-> 0] \in [{"a"} -> {n \in Nat : n > 0}]`, `FALSE`},
	{`-1 \in {n \in Nat : TRUE}`, `FALSE`},
	{`<<1, 2>> \in {s \in Seq(Nat) : Len(s) = 2}`, `TRUE`},
	{`<<1>> \in {s \in Seq(Nat) : Len(s) = 2}`, `FALSE`},
	{`4 \in {n \in Nat : n > 1} \ {n \in Nat : n % 2 = 0}`, `FALSE`},

	// TLC.
	{`(1 :> "a") @@ (1 :> "b")`, `<<"a">>`},
	{`("x" :> 1) @@ ("y" :> 2)`, `[x |-> 1, y |-> 2]`},
	{`(3 :> 1) @@ (5 :> 2)`, `(3 :> 1 @@ 5 :> 2)`},
	{`ToString(42)`, `"42"`},
	{`ToString(<<1, "a">>)`, `"<<1, \"a\">>"`},
	{`Permutations({1, 2})`, `{<<1, 2>>, <<2, 1>>}`},
	{`Cardinality(Permutations(Procs))`, `6`},
	{`ToString(CHOOSE p \in Procs : TRUE)`, `"p1"`},
	{`SortSeq(<<3, 1, 2>>, LAMBDA u, w : u < w)`, `<<1, 2, 3>>`},
	{`BagOfAll(LAMBDA e : e % 2, SetToBag({1, 2, 3}))`, `(0 :> 1 @@ 1 :> 2)`},
	{`Print(1, 2)`, `2`},
	{`Assert(TRUE, "ok")`, `TRUE`},
}

// TestEval evaluates each of evalCases in EvalTest.tla's root scope.
func TestEval(t *testing.T) {
	sp := evalTestSpec(t)
	for _, tc := range evalCases {
		t.Run(tc.expr, func(t *testing.T) {
			f, err := sp.ParseFormula(tc.expr)
			require.NoError(t, err)
			v, err := sp.Eval(f, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, value.Format(canon(t, v)))
		})
	}
}

// lineOf returns the 1-based line of testdata/EvalTest.tla that starts
// with prefix, and the column at which marker first occurs after the
// prefix.
func lineOf(t *testing.T, lines []string, prefix, marker string) (int, int) {
	t.Helper()
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			col := strings.Index(l[len(prefix):], marker)
			require.GreaterOrEqual(t, col, 0, "marker %q not on line %q", marker, l)
			return i + 1, len(prefix) + col + 1
		}
	}
	t.Fatalf("no line starts with %q", prefix)
	return 0, 0
}

// TestEvalErrors checks that each erroneous definition of EvalTest.tla
// gives an error located at the offending expression, never a panic.
func TestEvalErrors(t *testing.T) {
	sp := evalTestSpec(t)
	src, err := os.ReadFile(filepath.Join("testdata", "EvalTest.tla"))
	require.NoError(t, err)
	lines := strings.Split(string(src), "\n")
	cases := []struct {
		def    string
		marker string // where on the definition's line the error points
		msg    string // part of the message
	}{
		{"ErrDomain", "[i", "4 is not in the domain"},
		{"ErrChoose", "CHOOSE", "CHOOSE found no element"},
		{"ErrHead", "Head", "Head of the empty sequence"},
		{"ErrAddString", "+", `"a"`},
		{"ErrOverflowAdd", "+ Big", "overflow"},
		{"ErrOverflowMul", "*", "overflow"},
		{"ErrAssert", "Assert", `Assert failed: "one is not two"`},
		{"ErrCase", "CASE", "no CASE arm is true"},
		{"ErrFactDomain", "fact[", "-1 is not in the domain of fact"},
		{"ErrTail", "Tail", "Tail of the empty sequence"},
		{"ErrField", "r.", "no field missing"},
		{"ErrNotBool", "3", "expected a boolean"},
		{"ErrDivZero", `\div`, "division by zero"},
		{"ErrSubSeq", "SubSeq", "out of range"},
		{"ErrRecordApply", "r[", `"nope" is not in the domain`},
		{"ErrCardinalityInfinite", "Cardinality", "Nat"},
		{"ErrEnumInfinite", "{j", "cannot enumerate an infinite set"},
		{"ErrNotSet", "4", "expected a set"},
		{"ErrMod", "%", "must be positive"},
		{"ErrPow", "^", "overflow"},
		{"ErrSelectSeq", "Inc", "must be a boolean, found 2"},
		{"ErrSortSeq", "Plus", "must be a boolean, found 3"},
		{"ErrHuge", "..", "too large"},
		// A quantifier over a..b walks the integers without making a
		// set, but refuses what the set would refuse, where it would.
		{"ErrHugeQuant", "..", "too large"},
		{"ErrRangeBound", "..", "expected an integer, found TRUE"},
	}
	for _, tc := range cases {
		t.Run(tc.def, func(t *testing.T) {
			line, col := lineOf(t, lines, tc.def+" ==", tc.marker)
			f, err := sp.Formula(tc.def)
			require.NoError(t, err)
			v, err := sp.Eval(f, nil)
			require.Error(t, err, "evaluated to %v", v)
			var te *tla.Error
			require.True(t, errors.As(err, &te), "error %v (%T) is not a *tla.Error", err, err)
			assert.Equal(t, "EvalTest.tla", filepath.Base(te.File))
			assert.Equal(t, tla.Pos{Line: line, Col: col}, te.Pos, "error %v", err)
			assert.Contains(t, te.Msg, tc.msg)
			assert.NotContains(t, err.Error(), "internal error")
		})
	}
}

// TestParseFormulaErrors: errors in an expression given to ParseFormula are
// located in that expression ("expr"), errors in the definitions it uses
// in the module's file.
func TestParseFormulaErrors(t *testing.T) {
	sp := evalTestSpec(t)
	src, err := os.ReadFile(filepath.Join("testdata", "EvalTest.tla"))
	require.NoError(t, err)
	lines := strings.Split(string(src), "\n")
	cases := []struct {
		expr string
		file string
		pos  tla.Pos
	}{
		{"1 + Unknown", "expr", tla.Pos{Line: 1, Col: 5}},
		{"<<1>> \\o Head(<<>>)", "expr", tla.Pos{Line: 1, Col: 10}},
	}
	line, col := lineOf(t, lines, "ErrHead ==", "Head")
	cases = append(cases, struct {
		expr string
		file string
		pos  tla.Pos
	}{"1 + ErrHead", "EvalTest.tla", tla.Pos{Line: line, Col: col}})
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			// A name the resolver does not know is an error of
			// ParseFormula, one of evaluation an error of Eval.
			f, err := sp.ParseFormula(tc.expr)
			if err == nil {
				_, err = sp.Eval(f, nil)
			}
			var te *tla.Error
			require.True(t, errors.As(err, &te), "error %v", err)
			assert.Equal(t, tc.file, filepath.Base(te.File))
			assert.Equal(t, tc.pos, te.Pos)
		})
	}
}

// TestIncomparableValues: TLC refuses to compare values of different kinds
// ("Attempted to check equality of integer 1 with non-integer"), also
// inside \in; only model values compare (unequal) with everything. A spec
// that relies on such a comparison fails in TLC, so it fails here.
func TestIncomparableValues(t *testing.T) {
	sp := evalTestSpec(t)
	cases := []struct {
		expr string
		want string // "" for an error
	}{
		// Model values are comparable with anything.
		{`(CHOOSE p \in Procs : TRUE) = 1`, `FALSE`},
		{`(CHOOSE p \in Procs : TRUE) \in {1, 2}`, `FALSE`},
		{`1 \in Procs \cup {1}`, `TRUE`},
		{`"a" \in Procs \cup {"b"}`, `FALSE`},
		// Values of different kinds are not.
		{`1 = "a"`, ``},
		{`1 /= "a"`, ``},
		{`"a" \in {1, 2}`, ``},
		{`"a" \notin 1..3`, ``},
		{`"a" \in Procs \cup {1}`, ``},
		{`{1} = 1`, ``},
		{`1 = TRUE`, ``},
		{`<<1>> = {1}`, ``},
		// Tuples, records and functions are one kind.
		{`<<1>> = [a |-> 1]`, `FALSE`},
		{`<<>> = [x \in {} |-> 1]`, `TRUE`},
	}
	for _, tc := range cases {
		t.Run(tc.expr, func(t *testing.T) {
			f, err := sp.ParseFormula(tc.expr)
			require.NoError(t, err)
			v, err := sp.Eval(f, nil)
			if tc.want == "" {
				require.Error(t, err, "%s evaluated to %v", tc.expr, v)
				var te *tla.Error
				require.True(t, errors.As(err, &te))
				assert.Equal(t, "expr", te.File)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, value.Format(v))
		})
	}
	t.Run("nested", func(t *testing.T) {
		for _, expr := range []string{`[a |-> 1] = [a |-> "x"]`, `{1} = {"a"}`, `<<1>> \in {<<"a">>}`,
			`{1} \subseteq {"a"}`, `"a" \in Nat`, `1 \in [{1} -> {1}]`, `1 \in [a : {1}]`, `1 \in SUBSET {1}`,
			`"a" \in 1..3`, `1 \in Seq({1})`, `1 \in {1} \X {2}`} {
			f, err := sp.ParseFormula(expr)
			require.NoError(t, err)
			v, err := sp.Eval(f, nil)
			assert.Error(t, err, "%s evaluated to %v", expr, v)
		}
	})
}

// TestDeepRecursion evaluates recursions without end in a child process:
// each must end with an error, not kill the process with an overflow of
// the Go stack (TLC reports a StackOverflowError as an error of the spec).
func TestDeepRecursion(t *testing.T) {
	if os.Getenv("ROOMSPEC_EVAL_RECURSION_CHILD") == "1" {
		sp := evalTestSpec(t)
		for _, name := range []string{"ErrLoop", "ErrLoopFn"} {
			f, err := sp.Formula(name)
			require.NoError(t, err)
			_, err = sp.Eval(f, nil)
			fmt.Printf("%s: %v\n", name, err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeepRecursion$")
	cmd.Env = append(os.Environ(), "ROOMSPEC_EVAL_RECURSION_CHILD=1")
	out, err := cmd.CombinedOutput()
	tail := string(out[max(0, len(out)-2000):])
	require.NoError(t, err, "child failed:\n%s", tail)
	assert.Contains(t, string(out), "ErrLoop: EvalTest.tla:", tail)
	assert.Contains(t, string(out), "ErrLoopFn: EvalTest.tla:", tail)
	assert.Contains(t, string(out), "recursion without end", tail)
}

// TestUserSymbols checks that operator symbols a spec defines or binds (an
// infix definition, a LET definition, an operator parameter, an instance's
// substitution) are not taken for the built-in operators of that name.
func TestUserSymbols(t *testing.T) {
	sp := loadSpec(t, "testdata", "Symbols")
	for _, tc := range []struct{ expr, want string }{
		{`2 + 3`, `6`},
		{`Apply(Times, 2, 3)`, `6`},
		{`L`, `6`},
		{`I!Rem`, `14`},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			f, err := sp.ParseFormula(tc.expr)
			require.NoError(t, err)
			v, err := sp.Eval(f, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.want, value.Format(v))
		})
	}
}
