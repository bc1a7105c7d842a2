------------------------------ MODULE Actions ------------------------------
(* Initial predicates and actions enumerated by action_test.go, each with  *)
(* the successors TLC computes for it.                                     *)
EXTENDS Integers
VARIABLES x, y
vars == <<x, y>>

Init == x \in 0..2 /\ y = x * 10
InitTest == x = 1 /\ y = 2 /\ x = 1
InitFalse == x = 1 /\ y = 2 /\ x = 2
InitBoth == x \in {1, 2} /\ y \in {"a", "b"}
InitExists == \E v \in 1..2 : x = v /\ y = -v
InitOr == \/ x = 0 /\ y = 0
          \/ x = 1 /\ y \in {7, 8}
InitIf == x \in 0..1 /\ IF x = 0 THEN y = "zero" ELSE y = "one"
InitForall == \A k \in {4} : x = k /\ y = k
InitMissing == x = 1
InitUseBefore == y = x + 1 /\ x = 1

AssignThenTest == x' = x + 1 /\ x' = x + 1 /\ y' = y
AssignThenTestFails == x' = x + 1 /\ x' = x + 2 /\ y' = y
InSet == x' \in {x, x + 1, x + 2} /\ UNCHANGED y
InSetFilter == x' \in 0..5 /\ x' > 3 /\ y' = x'
TestBeforeAssign == x' \in {x + 1} /\ y' = x' * 2 /\ y' \in {2, 4}
Branch == \/ x' = 0 /\ y' = y
          \/ x' = 1 /\ y' = y
          \/ /\ x' = 0
             /\ y' = y
Exists == \E k \in 1..3 : x' = k /\ y' = k * k
ExistsTuple == \E <<a, b>> \in {1, 2} \X {3} : x' = a /\ y' = b
ExistsEmpty == \E k \in {} : x' = k /\ y' = k
UnchangedTuple == UNCHANGED <<x, y>>
UnchangedVars == UNCHANGED vars
UnchangedOne == x' = 5 /\ UNCHANGED y
UnchangedAfterAssign == x' = x /\ UNCHANGED <<x, y>>
UnchangedConflict == x' = x + 1 /\ UNCHANGED x /\ y' = y
IfAction == IF x = 0 THEN x' = 1 /\ y' = y ELSE UNCHANGED vars
CaseAction == CASE x = 0 -> x' = 10 /\ y' = 0
                [] x = 1 -> x' = 11 /\ y' = 1
                [] OTHER -> UNCHANGED vars
LetAction == LET n == x + 1 IN x' = n /\ y' = n
Set(v) == x' = v /\ y' = y
SetNext == \E v \in 1..2 : Set(v)
Inc == x' = x + 1 /\ y' = y
BoxInc == [Inc]_vars
AngleInc == <<Inc>>_vars
AngleStutter == <<UNCHANGED x /\ y' = y>>_vars
AngleOther == <<x' = x /\ y' = y + 1>>_x
\* TLC enumerates \A over a finite set as the conjunction of its instances,
\* and P => A as A when P holds (else as TRUE).
ForallConj == y' = y /\ \A k \in {1, 2} : x' \in 1..5 /\ x' > k
ForallAssign == \A k \in {3} : x' = k /\ y' = k * 10
ForallEmpty == (\A k \in {} : x' = k) /\ x' = 9 /\ y' = y
ImpliesAssign == y' = y /\ (x = 1 => x' = 7) /\ x' \in {7, 8}
Guarded == x > 100 /\ x' = 0 /\ y' = 0
EnabledGuarded == ENABLED Guarded
EnabledInc == ENABLED Inc
EnabledNeedsY == ENABLED (x' = x /\ y' = 7 /\ y' # y)

\* Errors.
Missing == x' = 1
PrimeBefore == y' = x' + 1 /\ x' = 1
UnchangedThenMissing == UNCHANGED x

\* An instance as the next-state relation: C!CNext counts x up to 2,
\* the unnamed instance brings CInit and CNext for y (up to 3).
C == INSTANCE Counter WITH c <- x, Limit <- 2
INSTANCE Counter WITH c <- y, Limit <- 3
InstInit == C!CInit /\ CInit
InstNext == \/ C!CNext /\ UNCHANGED y
            \/ CNext /\ UNCHANGED x
InstSpecX == C!CSpec
\* A parameterized instance: the limit is an argument.
CP(l) == INSTANCE Counter WITH c <- x, Limit <- l
CPNext == CP(1)!CNext /\ UNCHANGED y
CPNext3 == \E l \in {1, 3} : CP(l)!CNext /\ y' = l
=============================================================================
