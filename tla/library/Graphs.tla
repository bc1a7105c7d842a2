------------------------------ MODULE Graphs ------------------------------
(* roomspec's version of the CommunityModules module Graphs: a directed  *)
(* graph is a record [node |-> N, edge |-> E] with E a set of pairs.      *)
(* SimplePath, AreConnectedIn and IsStronglyConnected, whose definitions  *)
(* range over all sequences of nodes, roomspec computes by search over    *)
(* the graph, as TLC does in Java.                                        *)
EXTENDS Naturals, Sequences, FiniteSets, SequencesExt, Relation

IsDirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ G.edge \subseteq (G.node \X G.node)
DirectedSubgraph(G) ==
  {H \in [node : SUBSET G.node, edge : SUBSET (G.node \X G.node)] :
     IsDirectedGraph(H) /\ H.edge \subseteq G.edge}
Transpose(G) == [edge |-> {<<e[2], e[1]>> : e \in G.edge}, node |-> G.node]
IsUndirectedGraph(G) ==
  /\ IsDirectedGraph(G)
  /\ \A e \in G.edge : <<e[2], e[1]>> \in G.edge
UndirectedSubgraph(G) == {H \in DirectedSubgraph(G) : IsUndirectedGraph(H)}
Path(G) == {p \in Seq(G.node) :
              /\ p # <<>>
              /\ \A i \in 1..(Len(p) - 1) : <<p[i], p[i + 1]>> \in G.edge}
SimplePath(G) == {p \in Path(G) : \A i, j \in 1..Len(p) : p[i] = p[j] => i = j}
AreConnectedIn(m, n, G) == \E p \in Path(G) : (p[1] = m) /\ (p[Len(p)] = n)
IsStronglyConnected(G) == \A m, n \in G.node : AreConnectedIn(m, n, G)
\* ConnectionsIn(G)[m, n]: n can be reached from m (in zero steps or more).
ConnectionsIn(G) ==
  LET C[N \in SUBSET G.node] ==
        IF N = {} THEN [m, n \in G.node |-> m = n \/ <<m, n>> \in G.edge]
        ELSE LET u == CHOOSE u \in N : TRUE
                 Cu == C[N \ {u}]
             IN [m, n \in G.node |-> Cu[m, n] \/ (Cu[m, u] /\ Cu[u, n])]
  IN C[G.node]
\* Edges point towards the root r.
IsTreeWithRoot(G, r) ==
  /\ IsDirectedGraph(G)
  /\ r \in G.node
  /\ \A e \in G.edge : /\ e[1] # r
                       /\ \A f \in G.edge : (e[1] = f[1]) => (e = f)
  /\ \A n \in G.node : AreConnectedIn(n, r, G)
GraphUnion(G, H) == [node |-> G.node \cup H.node, edge |-> G.edge \cup H.edge]
IsBipartiteWithPartitions(G, U, V) ==
  /\ U \cap V = {}
  /\ G.node \subseteq (U \cup V)
  /\ \A e \in G.edge : \/ e[1] \in U /\ e[2] \in V
                       \/ e[2] \in U /\ e[1] \in V
HasCycle(G) ==
  \/ \E n \in G.node : <<n, n>> \in G.edge
  \/ \E m, n \in G.node : m # n /\ ConnectionsIn(G)[m, n] /\ ConnectionsIn(G)[n, m]
IsDag(G) == IsDirectedGraph(G) /\ ~HasCycle(G)
Successors(G, n) == {m \in G.node : <<n, m>> \in G.edge}
AllSuccessors(G, S) == UNION {Successors(G, n) : n \in S}
Predecessors(G, n) == {m \in G.node : <<m, n>> \in G.edge}
AllPredecessors(G, S) == UNION {Predecessors(G, n) : n \in S}
Ancestors(G, n) ==
  LET EdgeRelation == [p \in G.node \X G.node |-> <<p[1], p[2]>> \in G.edge]
  IN {m \in G.node : TransitiveClosure(EdgeRelation, G.node)[m, n]}
Descendants(G, n) ==
  LET EdgeRelation == [p \in G.node \X G.node |-> <<p[1], p[2]>> \in G.edge]
  IN {m \in G.node : TransitiveClosure(EdgeRelation, G.node)[n, m]}
InDegree(G, n) == Cardinality(Predecessors(G, n))
OutDegree(G, n) == Cardinality(Successors(G, n))
Roots(G) == {n \in G.node : Predecessors(G, n) = {}}
Leaves(G) == {n \in G.node : Successors(G, n) = {}}
EmptyGraph == [node |-> {}, edge |-> {}]
Graphs(S) == [node : {S}, edge : SUBSET (S \X S)]
==========================================================================
