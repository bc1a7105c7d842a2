----------------------------- MODULE Relation -----------------------------
(* roomspec's version of the CommunityModules module Relation: a relation *)
(* on a set S is a boolean function R on S \X S.                           *)
EXTENDS Naturals, FiniteSets

LOCAL Of(op(_, _), S) == [p \in S \X S |-> op(p[1], p[2])]
IsReflexive(R, S) == \A x \in S : R[x, x]
IsReflexiveUnder(op(_, _), S) == IsReflexive(Of(op, S), S)
IsIrreflexive(R, S) == \A x \in S : ~R[x, x]
IsIrreflexiveUnder(op(_, _), S) == IsIrreflexive(Of(op, S), S)
IsSymmetric(R, S) == \A x, y \in S : R[x, y] <=> R[y, x]
IsSymmetricUnder(op(_, _), S) == IsSymmetric(Of(op, S), S)
IsAntiSymmetric(R, S) == \A x, y \in S : R[x, y] /\ R[y, x] => x = y
IsAntiSymmetricUnder(op(_, _), S) == IsAntiSymmetric(Of(op, S), S)
IsAsymmetric(R, S) == \A x, y \in S : ~(R[x, y] /\ R[y, x])
IsAsymmetricUnder(op(_, _), S) == IsAsymmetric(Of(op, S), S)
IsTransitive(R, S) == \A x, y, z \in S : R[x, y] /\ R[y, z] => R[x, z]
IsTransitiveUnder(op(_, _), S) == IsTransitive(Of(op, S), S)
IsStrictlyPartiallyOrdered(R, S) ==
  IsIrreflexive(R, S) /\ IsAntiSymmetric(R, S) /\ IsTransitive(R, S)
IsStrictlyPartiallyOrderedUnder(op(_, _), S) == IsStrictlyPartiallyOrdered(Of(op, S), S)
IsPartiallyOrdered(R, S) ==
  IsReflexive(R, S) /\ IsAntiSymmetric(R, S) /\ IsTransitive(R, S)
IsPartiallyOrderedUnder(op(_, _), S) == IsPartiallyOrdered(Of(op, S), S)
IsStrictlyTotallyOrdered(R, S) ==
  IsStrictlyPartiallyOrdered(R, S) /\ \A x, y \in S : x # y => R[x, y] \/ R[y, x]
IsStrictlyTotallyOrderedUnder(op(_, _), S) == IsStrictlyTotallyOrdered(Of(op, S), S)
IsTotallyOrdered(R, S) == IsPartiallyOrdered(R, S) /\ \A x, y \in S : R[x, y] \/ R[y, x]
IsTotallyOrderedUnder(op(_, _), S) == IsTotallyOrdered(Of(op, S), S)
\* R's transitive closure, by squaring: after n rounds, paths of up to 2^n
\* steps.
TransitiveClosure(R, S) ==
  LET N == Cardinality(S)
      trcl[n \in Nat] ==
        [x, y \in S |-> IF n = 0 THEN R[x, y]
                        ELSE \/ trcl[n - 1][x, y]
                             \/ \E z \in S : trcl[n - 1][x, z] /\ trcl[n - 1][z, y]]
  IN trcl[N]
ReflexiveTransitiveClosure(R, S) ==
  LET trcl == TransitiveClosure(R, S) IN [x, y \in S |-> x = y \/ trcl[x, y]]
IsConnected(R, S) ==
  LET rtrcl == ReflexiveTransitiveClosure(R, S) IN \A x, y \in S : rtrcl[x, y]
==========================================================================
