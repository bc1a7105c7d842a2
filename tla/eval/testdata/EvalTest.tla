---------------------------- MODULE EvalTest ----------------------------
(* Definitions that eval_test.go evaluates. The constants are bound by the *)
(* test: N = 3, Procs = {p1, p2, p3} (model values), Big = 2^62.          *)
EXTENDS Naturals, Integers, Sequences, FiniteSets, Bags, TLC

CONSTANTS N, Procs, Big

fact[n \in Nat] == IF n = 0 THEN 1 ELSE n * fact[n-1]

g2[m \in 0..3, n \in 0..3] == IF m = 0 THEN n ELSE g2[m-1, n] + 1

fib[n \in 0..20] == IF n < 2 THEN n ELSE fib[n-1] + fib[n-2]

RECURSIVE SetSum(_)
SetSum(S) == IF S = {} THEN 0
             ELSE LET e == CHOOSE e \in S : TRUE IN e + SetSum(S \ {e})

Twice(F(_), v) == F(F(v))
Inc(v) == v + 1
Fold(Op(_, _), seq, init) ==
  LET RECURSIVE F(_)
      F(i) == IF i = 0 THEN init ELSE Op(F(i - 1), seq[i])
  IN F(Len(seq))
Plus(p, q) == p + q

\* Recursion without end: an error, not a crash (TestDeepRecursion).
RECURSIVE Loop(_)
Loop(n) == Loop(n + 1)
ErrLoop == Loop(0)
loopf[n \in Nat] == loopf[n + 1]
ErrLoopFn == loopf[0]

r == [name |-> "r", val |-> 1, sub |-> [k |-> 0]]
f2 == [i \in 1..2 |-> [j \in 1..2 |-> i * 10 + j]]

a \prec b == a < b

IsEven(k) == k % 2 = 0

\* Error cases: each definition is on its own line so that the test can
\* check the line of the reported position.
ErrDomain == [i \in 1..3 |-> i][4]
ErrChoose == CHOOSE k \in 1..3 : k > 5
ErrHead == Head(<<>>)
ErrAddString == 1 + "a"
ErrOverflowAdd == Big + Big + Big
ErrOverflowMul == Big * 4
ErrAssert == Assert(1 = 2, "one is not two")
ErrCase == CASE N = 1 -> "one" [] N = 2 -> "two"
ErrFactDomain == fact[-1]
ErrTail == Tail(<<>>)
ErrField == r.missing
ErrNotBool == IF 3 THEN 1 ELSE 2
ErrDivZero == 7 \div 0
ErrSubSeq == SubSeq(<<1, 2>>, 1, 5)
ErrRecordApply == r["nope"]
ErrCardinalityInfinite == Cardinality(Nat)
ErrEnumInfinite == \E k \in {j \in Nat : j < 3} : k = 1
ErrNotSet == 3 \in 4
ErrMod == 5 % 0
ErrPow == 2^63
ErrSelectSeq == SelectSeq(<<1, 2>>, Inc)
ErrSortSeq == SortSeq(<<2, 1>>, Plus)
ErrHuge == CHOOSE k \in 1..Big : TRUE
ErrHugeQuant == \E j \in {Big} : \A k \in 1..j : k > 0
ErrRangeBound == \E j \in {1} : \E k \in 1..(j = 1) : TRUE
=============================================================================
