------------------------------ MODULE Deadlock ------------------------------
(***************************************************************************)
(* x counts from 0 to 3 and stops: the state x = 3 has no successor, a     *)
(* deadlock reached after 4 states (0, 1, 2, 3), also under Spec, whose    *)
(* [Next]_x allows stuttering (TLC checks deadlock against Next alone).    *)
(* With CHECK_DEADLOCK FALSE the model has 4 distinct states and no error. *)
(*                                                                         *)
(* With CONSTRAINT Below2 only 0 and 1 are in the model (2 states); x = 1  *)
(* has a successor (x = 2, outside the model), so it is not a deadlock:    *)
(* TLC reports a deadlock only for a state with no successor at all. The  *)
(* same holds for ACTION_CONSTRAINT StepBelow2, which forbids 1 -> 2.      *)
(*                                                                         *)
(* Liveness with CHECK_DEADLOCK FALSE: a terminal state stutters forever.  *)
(* Without fairness the count may stop at 0, so <>(x = 3) fails; under     *)
(* FairSpec it must reach 3 and stay: <>(x = 3), <>[](x = 3) and          *)
(* []<>(x = 3) hold. [](x < 3) fails at x = 3, after 4 states.            *)
(*                                                                         *)
(* States generated (TLC counts every successor computed, also those       *)
(* outside the constraints): 1 initial + 3 successors = 4; with Below2 or  *)
(* StepBelow2, 1 + (0 -> 1) + (1 -> 2, not kept) = 3.                      *)
(***************************************************************************)
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
Spec == Init /\ [][Next]_x
FairSpec == Init /\ [][Next]_x /\ WF_x(Next)
Below2 == x < 2
StepBelow2 == x' < 2
Reaches3 == <>(x = 3)
Stays3 == <>[](x = 3)
InfOften3 == []<>(x = 3)
AlwaysBelow3 == [](x < 3)
StartsAtZero == x = 0
StartsAtOne == x = 1
=============================================================================
