---- MODULE Channel ----
(* Send(ch, m) == ch' = Append(ch, m), as in most real specs, with        *)
(* UNCHANGED of a parameter. in holds up to 2 messages of {1, 2}          *)
(* (1 + 2 + 4 = 7 values), out up to 1 (1 + 2 = 3 values); every pair is  *)
(* reachable: 7 * 3 = 21 states.                                           *)
EXTENDS Naturals, Sequences
VARIABLES in, out
Send(ch, m) == ch' = Append(ch, m)
Recv(ch) == ch # <<>> /\ ch' = Tail(ch)
Keep(v) == UNCHANGED v
Init == in = <<>> /\ out = <<>>
Next == \/ Len(in) < 2 /\ \E m \in {1, 2} : Send(in, m) /\ Keep(out)
        \/ Len(out) < 1 /\ in # <<>> /\ Send(out, Head(in)) /\ Recv(in)
        \/ Recv(out) /\ Keep(in)
====
