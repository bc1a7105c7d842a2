--------------------------------- MODULE Sym ---------------------------------
(***************************************************************************)
(* Each process of Procs = {a, b, c} (model values) may join or leave the  *)
(* set active. Without symmetry every subset of Procs is reachable: 2^3 =  *)
(* 8 distinct states. Under SYMMETRY Perms the permutations of Procs       *)
(* identify subsets of equal size: 4 orbits ({}, one, two, all three).     *)
(* NotAll fails after 4 states ({} and three joins); NoneActive fails in   *)
(* the initial state.                                                      *)
(* Every state has 3 successors (one per process): 1 + 8 * 3 = 25 states   *)
(* generated without symmetry, 1 + 4 * 3 = 13 with it.                     *)
(***************************************************************************)
EXTENDS Naturals, FiniteSets, TLC
CONSTANT Procs
VARIABLE active
Init == active = {}
Next == \E p \in Procs : \/ p \notin active /\ active' = active \cup {p}
                         \/ p \in active /\ active' = active \ {p}
Perms == Permutations(Procs)
NotAll == Cardinality(active) < 3
NoneActive == active /= {}
=============================================================================
