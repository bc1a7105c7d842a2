---------------- MODULE Proofs ----------------
EXTENDS Naturals, TLAPS
VARIABLE x
Init == x = 0
Next == x' = x + 1
Inv == x \in Nat

THEOREM Safety == Init /\ [][Next]_x => []Inv
<1>1. Init => Inv
  BY DEF Init, Inv
<1>2. Inv /\ [Next]_x => Inv'
  <2>1. CASE Next
    BY <2>1 DEF Next, Inv
  <2>2. QED
    OBVIOUS
<1>3. QED
  PROOF BY <1>1, <1>2, PTL

LEMMA Trivial == ASSUME NEW n \in Nat PROVE n + 0 = n
  OBVIOUS

USE DEF Init

THEOREM Multi ==
ASSUME NEW n \in Nat,
NEW m \in Nat
PROVE n + m = m + n
BY DEF Init

COROLLARY TRUE
PROOF OMITTED

After == x
-----------------------------------------------
---- MODULE Inner ----
CONSTANT K
Double == 2 * K
====
I2 == INSTANCE Inner WITH K <- 2
==================================================
