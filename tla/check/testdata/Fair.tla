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
EXTENDS Naturals
VARIABLES x, done
vars == <<x, done>>

Init == x = 0 /\ done = FALSE
Toggle == x' = 1 - x /\ UNCHANGED done
B == x = 1 /\ done' = TRUE /\ UNCHANGED x
Next == Toggle \/ B

SpecNoFair == Init /\ [][Next]_vars
SpecWF == Init /\ [][Next]_vars /\ WF_vars(Toggle) /\ WF_vars(B)
SpecSF == Init /\ [][Next]_vars /\ WF_vars(Toggle) /\ SF_vars(B)
\* Idle only stutters, so ENABLED <<Idle>>_vars is always false and
\* WF_vars(Idle) constrains nothing: SpecIdle allows what SpecNoFair does.
Idle == UNCHANGED vars
SpecIdle == Init /\ [][Next]_vars /\ WF_vars(Idle)

EventuallyDone == <>done
DoneForever == <>[]done
OneLeadsToDone == (x = 1) ~> done
InfOftenOne == []<>(x = 1)
EventuallyAlwaysZero == <>[](x = 0)
\* Quantified temporal formulas. done changes at most once, so it settles
\* on some value in every behaviour (holds under any spec); x settles only
\* if the clock may stop (fails under SpecWF, where Toggle keeps firing).
DoneSettles == \E d \in BOOLEAN : <>[](done = d)
XSettles == \E v \in {0, 1} : <>[](x = v)
\* x never becomes 2, whatever the fairness; each instance must be checked.
XVisitsAll == \A v \in {0, 1, 2} : []<>(x = v)
XVisitsBoth == \A v \in {0, 1} : []<>(x = v)
\* Under SpecWF x always changes again; without fairness it may not.
XChanges == \A v \in {0, 1} : (x = v) ~> (x # v)
\* B is enabled (as an action, stuttering or not) whenever x = 1.
BOftenEnabled == []<>(ENABLED B)
\* More shapes: an action inside <>, a negation, an implication between
\* temporal formulas, <>[] of an action, a conjunction. BHappens: under
\* SpecWF B need never fire (the toggling run), under SpecSF it must.
\* NotStuckAtZero: staying at x = 0 needs the clock to stop, which
\* WF(Toggle) forbids. DoneThenTicks: under SpecWF x toggles forever, also
\* after done; without fairness it may stop. DoneSettlesStep: done changes
\* at most once, so eventually no step changes it. DoneAndTicks: both hold
\* under SpecSF; EventuallyDone fails under SpecWF.
BHappens == <><<B>>_vars
NotStuckAtZero == ~<>[](x = 0)
DoneThenTicks == <>done => []<>(x = 1)
DoneSettlesStep == <>[][UNCHANGED done]_vars
DoneAndTicks == EventuallyDone /\ InfOftenOne
\* A safety property checked as a temporal property: x never decreases.
\* Toggle from (1,F) to (0,F) violates it at the third state.
NeverDecrease == [][x' >= x]_x
\* done never goes back to FALSE: holds.
DoneStays == [][done => done']_vars
=============================================================================
