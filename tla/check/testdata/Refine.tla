------------------------------- MODULE Refine -------------------------------
(***************************************************************************)
(* n counts up to 3 (Up) and, under Spec, may go back to 0 (Reset). C maps *)
(* n to the counter of Counter.tla with Limit 3. Reachable: n \in 0..3, 4  *)
(* distinct states under every spec.                                       *)
(*                                                                         *)
(* CountsUp (C!CSpec) holds under SpecUp, whose steps are all CNext steps; *)
(* under Spec the Reset step 3 -> 0 is not a [CNext]_c step: the shortest *)
(* counterexample is 0, 1, 2, 3, 0. TopReached (C!Reaches, <>(n = 3))      *)
(* holds under SpecUpFair and fails under SpecUp (the count may stop).     *)
(***************************************************************************)
EXTENDS Naturals
VARIABLE n
Init == n = 0
Up == n < 3 /\ n' = n + 1
Reset == n = 3 /\ n' = 0
Spec == Init /\ [][Up \/ Reset]_n
SpecUp == Init /\ [][Up]_n
SpecUpFair == SpecUp /\ WF_n(Up)
C == INSTANCE Counter WITH c <- n, Limit <- 3
CountsUp == C!CSpec
TopReached == C!Reaches
=============================================================================
