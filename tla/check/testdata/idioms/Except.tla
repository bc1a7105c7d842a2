---- MODULE Except ----
(* EXCEPT paths through records and tuples, two updates under one prefix, *)
(* @, and f[p] meaning the old value. Each p goes (cnt, log): (0, <<0,0>>) *)
(* then adds 1 to log[1] or log[2], then 2 to either: 1 + 2 + 4 = 7        *)
(* values per p, independently: 7 * 7 = 49 states.                         *)
EXTENDS Naturals
VARIABLE f
P == {"a", "b"}
Init == f = [p \in P |-> [cnt |-> 0, log |-> <<0, 0>>]]
Next == \E p \in P, i \in 1..2 :
          /\ f[p].cnt < 2
          /\ f' = [f EXCEPT ![p].cnt = @ + 1, ![p].log[i] = @ + f[p].cnt + 1]
====
