--------------------------- MODULE VectorClocks ---------------------------
(* roomspec's version of the CommunityModules module VectorClocks.       *)
(* CausalOrder, whose definition chooses among all orderings of the log,  *)
(* is computed in Go as TLC computes it in Java: each node's lines sorted *)
(* by its own clock, merged into the graph of what each line's clock says *)
(* it has seen, then a line is taken whose predecessors are all taken,    *)
(* visiting the nodes in TLC's order of their names.                      *)
EXTENDS Naturals, Sequences, Functions

LOCAL concurrent(v1, v2) == \E i, j \in DOMAIN v1 : i # j /\ v1[i] < v2[i] /\ v1[j] > v2[j]
LOCAL happenedBefore(v1, v2) ==
  /\ \A i \in DOMAIN v1 : v1[i] <= v2[i]
  /\ \E i \in DOMAIN v1 : v1[i] < v2[i]
IsCausalOrder(log, clock(_)) ==
  \A i \in 1..Len(log) :
    \A j \in 1..(i - 1) :
      LET Fill(c, D) == [d \in D |-> IF d \in DOMAIN c THEN c[d] ELSE 0]
          D == DOMAIN clock(log[i]) \cup DOMAIN clock(log[j])
          vci == Fill(clock(log[i]), D)
          vcj == Fill(clock(log[j]), D)
      IN happenedBefore(vcj, vci) \/ concurrent(vcj, vci)
CausalOrder(log, clock(_), node(_), domain(_)) ==
  CHOOSE newlog \in {f \in [1..Len(log) -> Range(log)] : Range(f) = Range(log)} :
    IsCausalOrder(newlog, clock)
==========================================================================
