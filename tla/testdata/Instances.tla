---- MODULE Instances ----
EXTENDS Base
VARIABLE v
B == INSTANCE Base
P(k) == INSTANCE Base WITH C <- k
INSTANCE Base WITH C <- 3
LOCAL L == INSTANCE Base WITH C <- v
Use == B!Op + P(2)!Op + P(v)!Inner(1) + L!C
Sub == [][B!Op]_B!C /\ WF_P(2)!C(P(2)!Op)
====
