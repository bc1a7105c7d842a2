---- MODULE Base ----
CONSTANT C
Op == C + 1
Inner(a) == a + C
====
