---- MODULE FuncSetIn ----
(* x' \in over a function set and over SUBSET: f ranges over the 4       *)
(* functions {1, 2} -> {0, 1} (f' # f and f[1] never decreases still      *)
(* reaches all 4 from <<0, 0>>), g over the 4 subsets of {1, 2}, growing   *)
(* one element at a time: 4 * 4 = 16 states.                               *)
EXTENDS Naturals, FiniteSets
VARIABLES f, g
Init == f \in [{1, 2} -> {0}] /\ g = {}
Next == \/ f' \in [{1, 2} -> {0, 1}] /\ f' # f /\ f[1] <= f'[1] /\ UNCHANGED g
        \/ g' \in SUBSET {1, 2} /\ Cardinality(g') = Cardinality(g) + 1 /\ UNCHANGED f
====
