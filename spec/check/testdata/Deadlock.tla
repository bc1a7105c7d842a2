------------------------------ MODULE Deadlock ------------------------------
(***************************************************************************)
(* x counts from 0 to 3 and stops: the state x = 3 has no successor, a     *)
(* deadlock reached after 4 states (0, 1, 2, 3). With CHECK_DEADLOCK FALSE *)
(* the model has 4 distinct states and no error.                           *)
(***************************************************************************)
EXTENDS Naturals
VARIABLE x
Init == x = 0
Next == x < 3 /\ x' = x + 1
=============================================================================
