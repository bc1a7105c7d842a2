------------------------------ MODULE LetLambda ------------------------------
(* A LET definition whose body passes a LAMBDA to an operator, as          *)
(* CigaretteSmokers does: the LAMBDA's parameter is in the first slot of   *)
(* its own group, not the LET definition's, which a walk of the            *)
(* specification (deciding what is temporal, what is primed) must not     *)
(* confuse (it recursed without end). x: 0 -> 1 -> 2 -> 3 -> 0, 4 states.  *)
EXTENDS Naturals
VARIABLE x

Pick(S, P(_)) == CHOOSE v \in S : P(v)

Init == x = 0
Next == LET r == Pick(0..3, LAMBDA v : v > x)
        IN  x' = IF x < 3 THEN r ELSE 0
Spec == Init /\ [][Next]_x
=============================================================================
