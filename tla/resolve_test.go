package tla

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/internal/sharedpath"
)

// resolveSrc loads module M (and the other modules given) from text and
// resolves it.
func resolveSrc(t *testing.T, src string, others map[string]string) (*Modules, *Info, error) {
	t.Helper()
	fsys := fstest.MapFS{"M.tla": {Data: []byte(src)}}
	for name, text := range others {
		fsys[name+".tla"] = &fstest.MapFile{Data: []byte(text)}
	}
	mods, err := Load(fsys, "M")
	require.NoError(t, err)
	info, err := Resolve(mods)
	return mods, info, err
}

// TestResolveErrors: what SANY rejects before TLC explores a state is an
// error at its line and column, wherever it is (unreached code included),
// and every such error of a spec is reported.
func TestResolveErrors(t *testing.T) {
	inner := "---- MODULE Inner ----\nEXTENDS Naturals\nCONSTANT N\nVARIABLE v\nD == v + N\n====\n"
	for _, tc := range []struct {
		name   string
		body   string // after "---- MODULE M ----\nEXTENDS Naturals\nVARIABLE x\n" (line 4 on)
		errors []string
	}{
		{"undefined name", "A == x' = Nope + 1", []string{"4:11: unknown name Nope"}},
		{"wrong number of arguments", "Add(a, b) == a + b\nA == x' = Add(x)", []string{"5:11: Add takes 2 argument(s), got 1"}},
		{"too many arguments of a built-in", "A == x' = Len(<<>>, 1)", []string{"4:11: unknown operator Len (it is defined in the standard module Sequences: EXTENDS Sequences)"}},
		{"defined twice", "A == 1\nA == 2", []string{"5:1: A is defined twice: here and at 4:1"}},
		{"defined twice through EXTENDS", "Nat == 1", []string{"4:1: Nat is defined twice: here and an operator of the standard module Naturals"}},
		{"bound name hides a variable", "A == \\E x \\in {1} : x' = x", []string{"4:9: x is already a variable declared at M.tla:3:10"}},
		{"parameter hides a definition", "B == 1\nA(B) == B", []string{"5:3: B is already a definition declared at M.tla:4:1"}},
		{"LET hides a bound name", "A == \\E y \\in {1} : LET y == 2 IN y", []string{"4:25: y is already a bound name bound at 4:9"}},
		{"a name bound twice", "A == \\A y, y \\in {1} : y = 1", []string{"4:12: y is already a bound name bound at 4:9"}},
		{"bounds do not see each other", "A == \\A y \\in {{1}}, z \\in y : z = 1", []string{"4:28: unknown name y"}},
		{"priming an action", "Inc == x' = x + 1\nA == Inc'", []string{"5:9: level error: Inc is an action, but ' takes a constant or state-level expression"}},
		{"priming twice", "A == (x')' = 1", []string{"4:10: level error: x' is an action, but ' takes a constant or state-level expression"}},
		{"UNCHANGED of an action", "A == UNCHANGED (x' = 1)", []string{"4:6: level error: x' = 1 is an action, but UNCHANGED takes a constant or state-level expression"}},
		{"an action for a primed parameter", "F(q) == q'\nA == F(x')", []string{"5:6: level error: x' is an action, but argument 1 of F takes a constant or state-level expression"}},
		{"ENABLED of a temporal formula", "A == ENABLED []TRUE", []string{"4:6: level error: []TRUE is a temporal formula, but ENABLED takes an expression of at most action level"}},
		{"[] of an action", "A == [](x' = x)", []string{"4:6: [] applied to an action that is not of the form [A]_v: x' = x"}},
		{"recursion without RECURSIVE", "F(n) == IF n = 0 THEN 0 ELSE F(n - 1)", []string{"4:30: unknown operator F (F is used in its own definition: a recursive operator must be declared RECURSIVE F(_) before it)"}},
		{"used before its definition", "A == B\nB == 1", []string{"4:6: unknown name B (it is defined below, at 5:1: an operator must be defined before it is used, or declared RECURSIVE B before)"}},
		{"RECURSIVE with another arity", "RECURSIVE F(_, _)\nF(n) == n", []string{"5:1: F is declared RECURSIVE with 2 arguments at 4:11, defined with 1"}},
		{"an operator where a value is expected", "F(n) == n\nA == F + 1", []string{"5:6: F takes 1 argument(s), got 0"}},
		{"operator argument of another arity", "F(G(_)) == G(1)\nH(a, b) == a\nA == F(H)", []string{"6:8: H takes 2 argument(s), where an operator of 1 argument(s) is expected"}},
		{"LAMBDA of another arity", "F(G(_)) == G(1)\nA == F(LAMBDA a, b : a)", []string{"5:8: LAMBDA with 2 parameters where an operator of 1 arguments is expected"}},
		{"@ outside EXCEPT", "A == @ + 1", []string{"4:6: @ is used outside the new value of an EXCEPT update"}},
		{"instance without a substitution", "I == INSTANCE Inner WITH v <- x", []string{"4:1: INSTANCE Inner: nothing here is named N"}},
		{"an instance's variable", "I == INSTANCE Inner WITH v <- x, N <- 1\nA == I!v", []string{"5:6: v is a variable of module Inner, which the instance substitutes; it has no definition v"}},
		{"not a definition of the instance", "I == INSTANCE Inner WITH v <- x, N <- 1\nA == I!Nope", []string{"5:6: module Inner has no definition Nope"}},
		{"substituted twice", "I == INSTANCE Inner WITH v <- x, N <- 1, N <- 2", []string{"4:42: N is substituted twice"}},
		{"every error", "A == Nope\nB == Len(x)\nA == 1", []string{
			"4:6: unknown name Nope",
			"5:6: unknown operator Len",
			"6:1: A is defined twice"}},
		{"theorems are not checked", "THEOREM T == \\A n \\in Nat : Unknown(n)\nA == T", nil},
		{"declared RECURSIVE", "RECURSIVE F(_)\nF(n) == IF n = 0 THEN 0 ELSE F(n - 1)\nA == F(3)", nil},
		{"LET RECURSIVE", "A == LET RECURSIVE F(_)\n         F(n) == IF n = 0 THEN 0 ELSE F(n - 1)\n     IN F(3)", nil},
		{"recursive function", "f[n \\in Nat] == IF n = 0 THEN 1 ELSE n * f[n - 1]\nA == f[3]", nil},
		{"same names in sibling scopes", "A == (\\E y \\in {1} : y = 1) /\\ (\\E y \\in {2} : y = 2)", nil},
		{"a primed state function", "F(q) == q'\nA == F(x + 1) = 2 /\\ (ENABLED (x' = 1))' = TRUE", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "---- MODULE M ----\nEXTENDS Naturals\nVARIABLE x\n" + tc.body + "\n====\n"
			_, _, err := resolveSrc(t, src, map[string]string{"Inner": inner})
			if len(tc.errors) == 0 {
				require.NoError(t, err)
				return
			}
			var list ErrorList
			require.True(t, errors.As(err, &list), "error %v", err)
			require.Len(t, list, len(tc.errors), "%v", err)
			for i, want := range tc.errors {
				assert.Equal(t, "M.tla", list[i].File)
				assert.True(t, strings.HasPrefix(list[i].Pos.String()+": "+list[i].Msg, want), "error %d: %s:%s\nwant prefix %s", i, list[i].Pos, list[i].Msg, want)
			}
		})
	}
}

// TestResolveUses checks what names stand for: slots of binding groups,
// counted out from the use, definitions, declarations and built-ins.
func TestResolveUses(t *testing.T) {
	src := `---- MODULE M ----
EXTENDS Naturals
CONSTANT S
VARIABLE x
Op(a, F(_)) == \E y \in S : LET z == y IN F(a + z + x)
====
`
	mods, info, err := resolveSrc(t, src, nil)
	require.NoError(t, err)
	uses := map[string]Use{}
	Inspect(mods.Root, func(n Node) bool {
		switch x := n.(type) {
		case *Ident:
			if u, ok := info.Use(x); ok {
				uses[x.Name] = u
			}
		case *OpApp:
			if u, ok := info.Use(x); ok {
				uses[x.Name] = u
			}
		}
		return true
	})
	for _, tc := range []struct {
		name string
		kind SymbolKind
		up   int
		slot int
	}{
		{"a", SymParameter, 2, 0},
		{"F", SymParameter, 2, 1},
		{"y", SymBound, 1, 0},
		{"z", SymDefinition, 0, 0},
		{"S", SymConstant, 0, 0},
		{"x", SymVariable, 0, 0},
	} {
		u := uses[tc.name]
		require.NotNil(t, u.Symbol, tc.name)
		assert.Equal(t, tc.kind, u.Kind, tc.name)
		assert.Equal(t, tc.up, u.Up, tc.name)
		assert.Equal(t, tc.slot, u.Slot, tc.name)
	}
	assert.Equal(t, OpPlus, uses["+"].Builtin.Op)
	assert.True(t, uses["z"].Local)
	assert.Equal(t, []int{0, 1}, info.Lookup(mods.Root, "Op").Params)
	assert.Equal(t, StateLevel, info.Lookup(mods.Root, "Op").Level)
}

// TestResolveShared resolves every model of ../shared: TLC checked them
// all, so SANY accepted them, and so must the resolver.
func TestResolveShared(t *testing.T) {
	for _, folder := range []string{"tla-examples", "tla-corpus"} {
		dir := sharedpath.Require(t, folder)
		files, err := filepath.Glob(filepath.Join(dir, "*", "*.tla"))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, f := range files {
			mods, err := Load(os.DirFS(filepath.Dir(f)), strings.TrimSuffix(filepath.Base(f), ".tla"))
			require.NoError(t, err, f)
			_, err = Resolve(mods)
			assert.NoError(t, err, f)
		}
	}
}

// TestResolveLibrary resolves every module of roomspec's library.
func TestResolveLibrary(t *testing.T) {
	for _, name := range LibraryModules() {
		src := "---- MODULE M ----\nEXTENDS " + name + "\n====\n"
		_, _, err := resolveSrc(t, src, nil)
		assert.NoError(t, err, name)
	}
}

// FuzzResolve: on any module that loads, the resolver returns its table
// and errors at positions; it never panics.
func FuzzResolve(f *testing.F) {
	addModuleSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := ParseFile("M.tla", src)
		if err != nil {
			return
		}
		mods, err := Load(fstest.MapFS{m.Name + ".tla": {Data: src}}, m.Name)
		if err != nil {
			return
		}
		info, err := Resolve(mods)
		if info == nil {
			t.Fatal("no Info")
		}
		var list ErrorList
		if err != nil && !errors.As(err, &list) {
			t.Fatalf("error %v is %T, want ErrorList", err, err)
		}
		for _, e := range list {
			if e.File == "" {
				t.Fatalf("error without a file: %v", e)
			}
		}
	})
}
