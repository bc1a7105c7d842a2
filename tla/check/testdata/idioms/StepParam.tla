---- MODULE StepParam ----
(* Step(x) counts x from 0 to 3 through its parameter: 4 states.          *)
EXTENDS Naturals
VARIABLE x
Step(w) == w < 3 /\ w' = w + 1
Init == x = 0
Next == Step(x)
====
