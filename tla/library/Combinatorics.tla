--------------------------- MODULE Combinatorics ---------------------------
(* roomspec's version of the CommunityModules module Combinatorics. TLC  *)
(* computes choose (and factorial) in Java, roomspec choose in Go.         *)
EXTENDS Naturals

factorial[n \in Nat] == IF n = 0 THEN 1 ELSE n * factorial[n - 1]
choose(n, k) == factorial[n] \div (factorial[k] * factorial[n - k])
==========================================================================
