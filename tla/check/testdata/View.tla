--------------------------------- MODULE View ---------------------------------
(***************************************************************************)
(* x cycles through 0, 1, 2 while steps counts the steps taken. The state  *)
(* with steps = k has x = k % 3, so under CONSTRAINT StepBound (steps <    *)
(* 10) there are 10 distinct states (steps = 0..9). With VIEW XOnly two    *)
(* states are the same when their x is: the first three states (x = 0, 1,  *)
(* 2) are distinct and the fourth (x = 0 again) is not new: 3 states.      *)
(* Each state has one successor: 1 + 10 = 11 states generated without the  *)
(* view (the successor of steps = 9 is outside the constraint), 1 + 3 = 4  *)
(* with it.                                                                *)
(***************************************************************************)
EXTENDS Naturals
VARIABLES x, steps
Init == x = 0 /\ steps = 0
Next == x' = (x + 1) % 3 /\ steps' = steps + 1
StepBound == steps < 10
XOnly == x
=============================================================================
