------------------------------- MODULE Leader -------------------------------
(***************************************************************************)
(* Processes Procs = {a, b, c} (model values) become busy one at a time;   *)
(* a busy process may become the leader, and the leader going idle again  *)
(* releases leadership. None is a model value outside Procs.               *)
(*                                                                         *)
(* Reachable without symmetry: with leader = None, every one of the 2^3    *)
(* busy/idle assignments (processes become idle again through leadership): *)
(* 8 states. With a leader, the leader is one of the k busy processes:     *)
(* sum over k of C(3, k) * k = 3 + 6 + 3 = 12 states. Total 20.            *)
(*                                                                         *)
(* Under SYMMETRY Perms (permutations of Procs; None stays fixed) a state  *)
(* is determined up to permutation by k, and whether there is a leader:    *)
(* k = 0..3 without a leader, k = 1..3 with one: 7 states.                 *)
(*                                                                         *)
(* Successors: each idle process may become busy (3 - k), and either one   *)
(* of the k busy ones becomes leader (no leader yet) or the leader goes    *)
(* idle (1). Without a leader 3 successors: 8 * 3 = 24; with one 4 - k:    *)
(* sum over k of C(3, k) * k * (4 - k) = 9 + 12 + 3 = 24. Generated:       *)
(* 1 + 48 = 49. Under symmetry: 4 * 3 + (3 + 2 + 1) = 18, so 19.           *)
(***************************************************************************)
EXTENDS TLC
CONSTANTS Procs, None
VARIABLES state, leader
vars == <<state, leader>>

Init == state = [p \in Procs |-> "idle"] /\ leader = None
Next ==
  \/ \E p \in Procs : /\ state[p] = "idle"
                      /\ state' = [state EXCEPT ![p] = "busy"]
                      /\ UNCHANGED leader
  \/ \E p \in Procs : /\ state[p] = "busy" /\ leader = None
                      /\ leader' = p
                      /\ UNCHANGED state
  \/ /\ leader /= None
     /\ state' = [state EXCEPT ![leader] = "idle"]
     /\ leader' = None
Perms == Permutations(Procs)
LeaderBusy == leader /= None => state[leader] = "busy"
=============================================================================
