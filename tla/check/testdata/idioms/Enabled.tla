---- MODULE Enabled ----
(* ENABLED inside an action, of an action that primes a parameter: R      *)
(* resets x once Step(x) is disabled (x = 3), counting resets in y up to   *)
(* 2. x in 0..3, y in 0..2, all reachable: 12 states.                      *)
EXTENDS Naturals
VARIABLES x, y
Step(w) == w < 3 /\ w' = w + 1
A == Step(x) /\ UNCHANGED y
R == ~ENABLED A /\ y < 2 /\ x' = 0 /\ y' = y + 1
Init == x = 0 /\ y = 0
Next == A \/ R
====
