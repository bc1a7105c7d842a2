---- MODULE PrimeParam ----
(* Priming an operator parameter (issue 13): q' in Lose(a) is a'. From    *)
(* <<1, 2, 3>> every subsequence is reachable by deleting elements one at *)
(* a time: 1 + 3 + 3 + 1 = 8 states (b stays 0).                           *)
EXTENDS Naturals, Sequences
VARIABLES a, b
Init == a = <<1, 2, 3>> /\ b = 0
Lose(q) == /\ q # <<>>
           /\ \E i \in 1..Len(q) : q' = [j \in 1..(Len(q) - 1) |-> IF j < i THEN q[j] ELSE q[j + 1]]
           /\ UNCHANGED b
Next == Lose(a)
====
