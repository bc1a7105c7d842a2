---- MODULE PrimeExpr ----
(* Primed expressions: (x + y)' and Sum(x, y)' are evaluated in the next  *)
(* state. x grows while x + y stays <= 5, y shrinks to 0 while x + y stays *)
(* >= 1. Reachable: 0 <= y <= 2 and 0 <= x <= 5 - y (4 + 5 + 6 = 15       *)
(* pairs) except <<0, 0>>, which only y's step could reach: 14 states.     *)
EXTENDS Naturals
VARIABLES x, y
Sum(a, b) == a + b
Init == x = 0 /\ y = 2
Next == \/ x' = x + 1 /\ y' = y /\ (x + y)' <= 5
        \/ y > 0 /\ y' = y - 1 /\ x' = x /\ Sum(x, y)' >= 1
====
