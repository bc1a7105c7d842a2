------------------------------- MODULE Order -------------------------------
(***************************************************************************)
(* From 0 the spec may go to 1 or 2; 1 goes on to 3, 2 is a deadlock.     *)
(* TLC (one worker) takes states from its queue in order: expanding 1 it  *)
(* generates 3, which violates NotThree, before it expands 2 and finds    *)
(* the deadlock. So TLC reports NotThree with the trace 0, 1, 3.          *)
(* Distinct states: 0, 1, 2, 3.                                           *)
(***************************************************************************)
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == \/ x = 0 /\ x' \in {1, 2}
        \/ x = 1 /\ x' = 3
NotThree == x /= 3
=============================================================================
