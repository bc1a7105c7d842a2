------------------------------ MODULE Counter ------------------------------
(* A counter up to Limit, instantiated by Actions.tla. *)
EXTENDS Naturals
CONSTANT Limit
VARIABLE c
CInit == c = 0
CNext == c < Limit /\ c' = c + 1
CSpec == CInit /\ [][CNext]_c
=============================================================================
