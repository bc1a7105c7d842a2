--------------------------- MODULE SequencesExt ---------------------------
(* roomspec's version of the CommunityModules module SequencesExt (the   *)
(* operators in common use). SetToSeq and SetToSortSeq, whose TLA+        *)
(* definitions choose among infinitely many sequences, are computed by    *)
(* roomspec itself, as TLC computes them in Java.                         *)
EXTENDS Sequences, Naturals, FiniteSets, FiniteSetsExt, Folds, Functions

ToSet(s) == {s[i] : i \in DOMAIN s}
SetToSeq(S) == CHOOSE f \in [1..Cardinality(S) -> S] : IsInjective(f)
SetToSortSeq(S, op(_, _)) ==
  CHOOSE f \in [1..Cardinality(S) -> S] :
    IsInjective(f) /\ \A i \in 1..(Cardinality(S) - 1) : op(f[i], f[i + 1])
TupleOf(set, n) == [1..n -> set]
SeqOf(set, n) == UNION {[1..m -> set] : m \in 0..n}
BoundedSeq(S, n) == SeqOf(S, n)
Contains(s, e) == \E i \in 1..Len(s) : s[i] = e
IsSorted(s, op(_, _)) == \A i \in 1..(Len(s) - 1) : op(s[i], s[i + 1])
Reverse(s) == [i \in 1..Len(s) |-> s[Len(s) - i + 1]]
Remove(s, e) == SelectSeq(s, LAMBDA t : t # e)
ReplaceAll(s, old, new) == [i \in 1..Len(s) |-> IF s[i] = old THEN new ELSE s[i]]
InsertAt(s, i, e) == SubSeq(s, 1, i - 1) \o <<e>> \o SubSeq(s, i, Len(s))
ReplaceAt(s, i, e) == [s EXCEPT ![i] = e]
RemoveAt(s, i) == SubSeq(s, 1, i - 1) \o SubSeq(s, i + 1, Len(s))
Cons(elt, seq) == <<elt>> \o seq
Snoc(elt, seq) == Append(seq, elt)
Front(s) == SubSeq(s, 1, Len(s) - 1)
Last(s) == s[Len(s)]
IsPrefix(s, t) == Len(s) <= Len(t) /\ SubSeq(s, 1, Len(s)) = SubSeq(t, 1, Len(s))
IsStrictPrefix(s, t) == IsPrefix(s, t) /\ s # t
IsSuffix(s, t) == IsPrefix(Reverse(s), Reverse(t))
IsStrictSuffix(s, t) == IsSuffix(s, t) /\ s # t
Prefixes(s) == {SubSeq(s, 1, l) : l \in 0..Len(s)}
Suffixes(s) == {SubSeq(s, l, Len(s)) : l \in 1..(Len(s) + 1)}
SelectInSeq(seq, Test(_)) ==
  LET I == {i \in 1..Len(seq) : Test(seq[i])} IN IF I = {} THEN 0 ELSE Min(I)
SelectLastInSeq(seq, Test(_)) ==
  LET I == {i \in 1..Len(seq) : Test(seq[i])} IN IF I = {} THEN 0 ELSE Max(I)
FoldLeft(op(_, _), base, seq) ==
  LET RECURSIVE F(_, _)
      F(acc, i) == IF i > Len(seq) THEN acc ELSE F(op(acc, seq[i]), i + 1)
  IN F(base, 1)
FoldRight(op(_, _), seq, base) ==
  LET RECURSIVE F(_, _)
      F(acc, i) == IF i = 0 THEN acc ELSE F(op(seq[i], acc), i - 1)
  IN F(base, Len(seq))
FoldSeq(op(_, _), base, seq) == FoldRight(op, seq, base)
FlattenSeq(seqs) == FoldLeft(\o, <<>>, seqs)
Zip(s, t) == [i \in 1..Len(s) |-> <<s[i], t[i]>>]
SubSeqs(s) == {SubSeq(s, i + 1, j) : i, j \in 0..Len(s)}
==========================================================================
