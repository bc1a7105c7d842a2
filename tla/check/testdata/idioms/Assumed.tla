------------------------------ MODULE Assumed ------------------------------
(* A temporal conjunct of the specification other than fairness, such as  *)
(* <>[][A]_v (from some point on, every step is an A step or stutters), is *)
(* an assumption on the behaviours: TLC explores what Init and Next reach  *)
(* (x in 0..3: 4 states) and checks a property P as Spec => P. Here x may  *)
(* be reset forever, which <>[](x = 3) does not survive, but not under     *)
(* <>[][Up]_x: from some point on only Up, which WF makes happen to 3.     *)
(* AssumedUnfair drops the WF: x may then stay at 0 forever.               *)
EXTENDS Naturals
VARIABLE x

Init == x = 0
Up == x < 3 /\ x' = x + 1
Reset == x' = 0
Next == Up \/ Reset

Spec == Init /\ [][Next]_x /\ WF_x(Up) /\ <>[][Up]_x
UnfairSpec == Init /\ [][Next]_x /\ <>[][Up]_x

Climbs == <>[](x = 3)
=============================================================================
