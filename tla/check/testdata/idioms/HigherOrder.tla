---- MODULE HigherOrder ----
(* Operator parameters and LAMBDA, also as actions. Set(i) moves x around *)
(* 0..4 (all reachable); the LAMBDA adds 5 to x < 3 (5, 6, 7); Either's    *)
(* actions add 10 and 11 from 7: 5 + 3 + 2 = 10 states.                    *)
EXTENDS Naturals
VARIABLE x
Apply(F(_), v) == F(v)
Do(Act(_)) == \E i \in 1..2 : Act(i)
Either(A, B) == A \/ B
Set(i) == x' = (x + i) % 5
Init == x = 0
Next == \/ Do(Set)
        \/ x < 3 /\ x' = Apply(LAMBDA k : k + 5, x)
        \/ x = 7 /\ Either(x' = 10, x' = 11)
====
