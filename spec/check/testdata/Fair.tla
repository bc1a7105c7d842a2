-------------------------------- MODULE Fair --------------------------------
(***************************************************************************)
(* B is enabled only intermittently: x toggles between 0 and 1, and B may  *)
(* set done only while x = 1. Weak fairness of B does not force B (it is   *)
(* not continuously enabled), strong fairness does.                        *)
(*                                                                         *)
(* Reachable states: (x, done) with x \in {0, 1}, done \in BOOLEAN:        *)
(* (0,F) -Toggle-> (1,F) -B-> (1,T) -Toggle-> (0,T), and Toggle also links *)
(* (1,F) back to (0,F) and (0,T) to (1,T). All 2 * 2 = 4 are reachable.   *)
(*                                                                         *)
(* Under SpecWF the behaviour (0,F) (1,F) (0,F) ... satisfies WF(Toggle)   *)
(* (Toggle is taken forever) and WF(B) (B is disabled at every (0,F)), and *)
(* done stays FALSE: <>done, <>[]done and (x = 1) ~> done fail. Under      *)
(* SpecSF that behaviour violates SF(B) (B enabled infinitely often, never *)
(* taken), every fair behaviour sets done, and done stays TRUE: the three  *)
(* properties hold. Under SpecNoFair the clock may stop: []<>(x = 1)       *)
(* fails; under SpecWF Toggle must keep firing and it holds.               *)
(***************************************************************************)
VARIABLES x, done
vars == <<x, done>>

Init == x = 0 /\ done = FALSE
Toggle == x' = 1 - x /\ UNCHANGED done
B == x = 1 /\ done' = TRUE /\ UNCHANGED x
Next == Toggle \/ B

SpecNoFair == Init /\ [][Next]_vars
SpecWF == Init /\ [][Next]_vars /\ WF_vars(Toggle) /\ WF_vars(B)
SpecSF == Init /\ [][Next]_vars /\ WF_vars(Toggle) /\ SF_vars(B)

EventuallyDone == <>done
DoneForever == <>[]done
OneLeadsToDone == (x = 1) ~> done
InfOftenOne == []<>(x = 1)
EventuallyAlwaysZero == <>[](x = 0)
\* A safety property checked as a temporal property: x never decreases.
\* Toggle from (1,F) to (0,F) violates it at the third state.
NeverDecrease == [][x' >= x]_x
\* done never goes back to FALSE: holds.
DoneStays == [][done => done']_vars
=============================================================================
