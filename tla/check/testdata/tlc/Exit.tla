------------------------------ MODULE Exit ------------------------------
(* TLCSet("exit", TRUE) stops the search: x counts up without end, and   *)
(* the invariant asks to stop once x is 3. The postcondition still       *)
(* holds at the stop, as TLC checks it.                                  *)
EXTENDS Naturals, TLC
VARIABLE x
Init == x = 0
Next == x' = x + 1
StopAt3 == x = 3 => TLCSet("exit", TRUE)
Post == TLCGet("distinct") >= 4
=======================================================================
