---------------------------- MODULE PostFalse ----------------------------
(* A POSTCONDITION that is false once the search is over: TLC reports    *)
(* "Postcondition ... is false" and exits with status 10.                *)
EXTENDS Naturals, TLC
VARIABLE x
Init == x = 0
Next == x < 2 /\ x' = x + 1
Post == TLCGet("distinct") = 2
=======================================================================
