---- MODULE SeqOps ----
(* \o, SubSeq, SelectSeq, Len: s ranges over the sequences of "a" and "b" *)
(* of length <= 3 (dropping the head or the b's keeps it there):           *)
(* 1 + 2 + 4 + 8 = 15 states.                                              *)
EXTENDS Naturals, Sequences
VARIABLE s
Init == s = <<>>
Next == \/ Len(s) < 3 /\ \E v \in {"a", "b"} : s' = s \o <<v>>
        \/ Len(s) > 0 /\ s' = SubSeq(s, 2, Len(s))
        \/ s' = SelectSeq(s, LAMBDA e : e = "a") /\ s' # s
====
