---------------------------- MODULE Constrained ----------------------------
(***************************************************************************)
(* x counts up forever and y toggles; only the constraints make the model  *)
(* finite.                                                                 *)
(*                                                                         *)
(* CONSTRAINT XBound (x < 3): states with x \in 0..2, y \in {0, 1}, all    *)
(* reachable by incrementing and toggling: 3 * 2 = 6 distinct states.      *)
(* States with x = 3 violate the constraint: TLC neither counts nor        *)
(* explores them, and the states x = 2 do have successors, so there is no  *)
(* deadlock.                                                               *)
(*                                                                         *)
(* With also ACTION_CONSTRAINT OnlyZeroHasY (y' = 1 => x' = 0): y may      *)
(* become 1 only at x = 0, and from (0,1) incrementing gives x' = 1 with   *)
(* y' = 1, which the action constraint forbids, so (0,1) can only toggle   *)
(* back. Reachable: (0,0), (1,0), (2,0), (0,1): 4 distinct states.         *)
(*                                                                         *)
(* Every state has 2 successors (increment, toggle), so TLC generates      *)
(* 1 + 6 * 2 = 13 states under XBound and 1 + 4 * 2 = 9 with OnlyZeroHasY. *)
(***************************************************************************)
EXTENDS Naturals
VARIABLES x, y
Init == x = 0 /\ y = 0
Next == \/ x' = x + 1 /\ UNCHANGED y
        \/ y' = 1 - y /\ UNCHANGED x
XBound == x < 3
OnlyZeroHasY == y' = 1 => x' = 0
TypeOK == x \in 0..2 /\ y \in {0, 1}
=============================================================================
