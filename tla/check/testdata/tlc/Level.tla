---------------------------- MODULE Level ----------------------------
(* TLCGet("level") as TLC defines it: 0 in ASSUME and the initial        *)
(* predicate, the level of the state being expanded in the next-state    *)
(* relation and an action constraint, that of the successor in its       *)
(* constraint, invariants and VIEW, and one more under a prime. The      *)
(* VIEW keeps a state that repeats at a later level apart, as trace      *)
(* validation does: x in {0, 1} at levels 1..4 is 1 + 2 + 2 + 2 = 7      *)
(* distinct states, as TLC counts them.                                  *)
EXTENDS Naturals, TLC
VARIABLE x, seen

ASSUME TLCGet("level") = 0

Init == /\ x = 0
        /\ seen = TLCGet("level")

Next == /\ x' \in {x, 1 - x}
        /\ seen' = TLCGet("level")
        /\ TLCGet("level")' = TLCGet("level") + 1

Constraint == TLCGet("level") <= 4
StepConstraint == TLCGet("level") = seen + 1 \/ seen = 0
Inv == seen = TLCGet("level") - 1 \/ (seen = 0 /\ TLCGet("level") = 1)
View == <<x, TLCGet("level")>>
Post == TLCGet("stats").distinct = 7 /\ TLCGet("diameter") = 4 /\ TLCGet("queue") = 0
=======================================================================
