---- MODULE Recursive ----
(* RECURSIVE operators (also in LET) and a recursive function. q grows by *)
(* 1 or 2 while its sum stays <= 4 and fact[Len(q)] < 6 (Len(q) <= 2):     *)
(* <<>>; 1, 2; 11, 12, 21, 22; 111, 112, 121, 211 (sums <= 4): 11 states.  *)
EXTENDS Naturals, Sequences
VARIABLE q
RECURSIVE Sum(_)
Sum(s) == IF s = <<>> THEN 0 ELSE Head(s) + Sum(Tail(s))
fact[n \in 0..5] == IF n = 0 THEN 1 ELSE n * fact[n - 1]
Init == q = <<>>
Next == \E v \in 1..2 :
          /\ Sum(q) + v <= 4
          /\ fact[Len(q)] < 6
          /\ LET RECURSIVE Cnt(_)
                 Cnt(s) == IF s = <<>> THEN 0 ELSE 1 + Cnt(Tail(s))
             IN Cnt(q) = Len(q)
          /\ q' = Append(q, v)
====
