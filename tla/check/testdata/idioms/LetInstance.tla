----------------------------- MODULE LetInstance -----------------------------
(* An instance named in a LET definition, as CheckpointCoordination's      *)
(* model does: LET C == INSTANCE LetInstanceCounter IN ... C!Inc. x counts *)
(* to 3 (4 states; no deadlock check).                                     *)
EXTENDS Naturals
VARIABLE x

Init == x = 0
Next == LET C == INSTANCE LetInstanceCounter IN x < 3 /\ C!Inc
Spec == Init /\ [][Next]_x
=============================================================================
