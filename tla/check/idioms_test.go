package check

import (
	"cmp"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/roomspec/roomspec/tla"
)

// TestIdioms checks the idiom corpus, testdata/idioms: one small spec per
// class of idiom that real specs use (priming operator parameters and
// expressions, higher-order operators and LAMBDA, EXCEPT paths, ENABLED in
// actions, CASE, recursive operators, x' \in a function set, sequence
// operators, fairness), each with the number of distinct states computed by
// hand in its header comment. A different count is a wrong answer.
func TestIdioms(t *testing.T) {
	cases := []struct {
		name     string
		distinct int64
		outcome  Outcome
		module   string // when not name (a second configuration)
	}{
		{"PrimeParam", 8, OK, ""},
		{"StepParam", 4, OK, ""},
		{"Channel", 21, OK, ""},
		{"PrimeExpr", 14, OK, ""},
		{"HigherOrder", 10, OK, ""},
		{"Except", 49, OK, ""},
		{"Enabled", 12, OK, ""},
		{"Case", 8, OK, ""},
		{"Recursive", 11, OK, ""},
		{"FuncSetIn", 16, OK, ""},
		{"SeqOps", 15, OK, ""},
		{"FairSF", 6, OK, ""},
		{"FairWF", 6, Violation, ""},
		// Checked against TLC (cc6b616): the same outcome and states.
		{"Assumed", 4, OK, ""},
		{"AssumedUnfair", 4, Violation, "Assumed"},
		{"LetLambda", 4, OK, ""},
		{"LetInstance", 4, OK, ""},
	}
	dir := filepath.Join("testdata", "idioms")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := loadModel(t, dir, cmp.Or(tc.module, tc.name), tc.name+".cfg")
			r := Check(context.Background(), m, Options{Workers: 2})
			require.NoError(t, r.Err)
			assert.Equal(t, tc.outcome, r.Outcome, "violated %s", r.Violated)
			assert.Equal(t, tc.distinct, r.Distinct, "distinct states")
		})
	}
}

// TestNoSilentWrongAnswer checks constructs that TLC refuses (values of
// different kinds compared, infinite sets enumerated, a CASE with no true
// arm, ...): each must stop the check with an error at its file:line:col,
// never evaluate to FALSE and quietly disable an action or pass a test.
func TestNoSilentWrongAnswer(t *testing.T) {
	cases := []struct {
		name, next string
		col        int // column of the offending expression in next
	}{
		{"IntString", `x' = 1 /\ x' # "a"`, 14},
		{"NestedRecord", `x' = [a |-> 1] /\ x' = [a |-> "s"]`, 22},
		{"SubsetKinds", `x' = 1 /\ {1} \subseteq {"a"}`, 15},
		{"StringInNat", `x' = 1 /\ "a" \in Nat`, 15},
		{"NotFunction", `x' = 1 /\ 1 \in [{1} -> {1}]`, 13},
		{"NotRecord", `x' = 1 /\ 1 \in [a : {1}]`, 13},
		{"NotSet", `x' = 1 /\ 1 \in SUBSET {1}`, 13},
		{"StringInInterval", `x' = 1 /\ "a" \in 1..3`, 15},
		{"InfiniteEnum", `x' \in Nat`, 8},
		{"CaseNoArm", `x' = CASE x = 7 -> 1`, 6},
		{"NotInDomain", `x' = <<1>>[2]`, 6},
		{"UnchangedKinds", `x' = "a" /\ UNCHANGED x`, 23},
		{"NotBoolean", `x' = 1 /\ 3`, 11},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			src := "---- MODULE M ----\nEXTENDS Naturals, Sequences\nVARIABLE x\nInit == x = 0\nNext == " + tc.next + "\n====\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "M.tla"), []byte(src), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "M.cfg"), []byte("INIT Init\nNEXT Next\nCHECK_DEADLOCK FALSE\n"), 0o644))
			m := loadModel(t, dir, "M", "M.cfg")
			r := Check(context.Background(), m, Options{Workers: 1})
			require.Equal(t, Failure, r.Outcome, "no error: %d distinct states", r.Distinct)
			var te *tla.Error
			require.True(t, errors.As(r.Err, &te), "error %v is not located", r.Err)
			assert.Equal(t, "M.tla", te.File)
			assert.Equal(t, tla.Pos{Line: 5, Col: len("Next == ") + tc.col}, te.Pos, "%v", r.Err)
		})
	}
}
