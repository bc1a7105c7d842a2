---- MODULE FairSF ----
(* Fairness: Inc is enabled only while on is TRUE, and Toggle flips on    *)
(* forever, so weak fairness of Inc does not force it but strong fairness  *)
(* does. x in 0..2, on in BOOLEAN: 6 states. Live holds under SpecSF and   *)
(* is violated under SpecWF (a lasso toggling forever at x < 2).           *)
EXTENDS Naturals
VARIABLES x, on
vars == <<x, on>>
Init == x = 0 /\ on = FALSE
Toggle == on' = ~on /\ x' = x
Inc == on /\ x < 2 /\ x' = x + 1 /\ on' = on
Next == Toggle \/ Inc
SpecSF == Init /\ [][Next]_vars /\ WF_vars(Toggle) /\ SF_vars(Inc)
SpecWF == Init /\ [][Next]_vars /\ WF_vars(Toggle) /\ WF_vars(Inc)
Live == <>(x = 2)
====
