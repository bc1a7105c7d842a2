---------------------------- MODULE Toys ----------------------------
(* A spec for gen's generic differential test: constructs Room.tla does *)
(* not use (disjunctions and \E inside actions, x' \in S, CASE and IF    *)
(* with different assignment orders, tests after assignment, sequences  *)
(* of records, functions over integer and product domains).             *)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS Procs, N, Flag

VARIABLES pc, q, box, cnt, log, k

Vals == {"idle", "busy", "done", "Zed"}
Ids == 1..N
Pairs == Procs \X Ids
Msg == [p : Procs, v : 0..N]

TypeOK ==
    /\ pc \in [Procs -> Vals]
    /\ q \in Seq(Msg)
    /\ \A i \in 1..Len(q) : q[i].v <= N
    /\ box \in SUBSET Procs
    /\ cnt \in [Ids -> 0..N]
    /\ log \in [Pairs -> BOOLEAN]
    /\ k \in 0..N

Init ==
    /\ pc = [p \in Procs |-> "idle"]
    /\ q = << >>
    /\ box = {}
    /\ cnt = [i \in Ids |-> 0]
    /\ log = [x \in Pairs |-> FALSE]
    /\ k = 0

\* @action: environment client
Start(p) ==
    /\ pc[p] = "idle"
    /\ \/ pc' = [pc EXCEPT ![p] = "busy"]
       \/ pc' = [pc EXCEPT ![p] = "Zed"]
    /\ Len(q) < N
    /\ \E v \in 0..N : q' = Append(q, [p |-> p, v |-> v])
    /\ UNCHANGED <<box, cnt, log, k>>

\* @action: implementation worker
Take ==
    /\ q # << >>
    /\ LET m == Head(q) IN
       /\ q' = Tail(q)
       /\ IF m.v > 0
          THEN /\ box' = box \cup {m.p}
               /\ cnt' = [cnt EXCEPT ![m.v] = (@ + 1) % (N + 1)]
          ELSE /\ cnt' = cnt
               /\ box' = box \ {m.p}
       /\ log' = [log EXCEPT ![<<m.p, IF m.v = 0 THEN 1 ELSE m.v>>] = ~@]
    /\ UNCHANGED <<pc, k>>

\* @action: implementation worker
Finish(p) ==
    /\ pc[p] # "idle"
    /\ pc' = [pc EXCEPT ![p] = CASE pc[p] = "busy" -> "done"
                                 [] OTHER -> "idle"]
    /\ pc'[p] # "busy"
    /\ CASE Flag -> box' = {}
         [] p \in box -> box' = box \ {p}
         [] OTHER -> UNCHANGED box
    /\ \E i \in Ids : cnt' = [cnt EXCEPT ![i] = cnt[i] \div 2]
    /\ box' \subseteq Procs
    /\ UNCHANGED <<q, log, k>>

\* @action: environment client
Reset(p) ==
    /\ p \notin box
    /\ k' \in Ids
    /\ cnt' = IF k' = 1 THEN [i \in Ids |-> 0] ELSE cnt
    /\ pc' = pc
    /\ q' = q
    /\ box' = box
    /\ log' = [x \in Pairs |-> IF x[1] = p THEN FALSE ELSE log[x]]

Next ==
    \/ \E p \in Procs : Start(p)
    \/ Take
    \/ \E p \in Procs : Finish(p) \/ Reset(p)

vars == <<pc, q, box, cnt, log, k>>

Spec == Init /\ [][Next]_vars

\* An operator used at two types becomes two methods.
Same(a, b) == a = b

BoxIdle ==
    /\ \A p \in box : pc[p] \in {"idle", "done", "Zed", "busy"}
    /\ Same(Cardinality(box), Cardinality(box))
    /\ \A p \in Procs : Same(pc[p], "busy") => p \notin box \/ Flag \/ TRUE
    /\ Cardinality({p \in Procs : pc[p] = "busy"}) <= Cardinality(Procs)
    /\ {p \in box : pc[p] = "idle"} \subseteq box

DoneStays == [][\A p \in Procs : pc[p] = "done" => pc'[p] \in {"done", "idle"}]_vars
=============================================================================
