------------------------------ MODULE Graphs ------------------------------
(* roomspec's version of the CommunityModules module Graphs: a directed  *)
(* graph is a record [node |-> N, edge |-> E] with E a set of pairs.      *)
(* SimplePath and AreConnectedIn are computed by search over the graph.  *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE FiniteSets

IsDirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ G.edge \subseteq (G.node \X G.node)
DirectedSubgraph(G) ==
  {H \in [node : SUBSET G.node, edge : SUBSET (G.node \X G.node)] :
     IsDirectedGraph(H) /\ H.edge \subseteq G.edge}
Transpose(G) == [node |-> G.node, edge |-> {<<e[2], e[1]>> : e \in G.edge}]
IsUndirectedGraph(G) ==
  /\ IsDirectedGraph(G)
  /\ \A e \in G.edge : <<e[2], e[1]>> \in G.edge
UndirectedSubgraph(G) == {H \in DirectedSubgraph(G) : IsUndirectedGraph(H)}
Path(G) == {p \in Seq(G.node) :
              /\ p # <<>>
              /\ \A i \in 1..(Len(p) - 1) : <<p[i], p[i + 1]>> \in G.edge}
SimplePath(G) == {p \in Path(G) : Cardinality({p[i] : i \in DOMAIN p}) = Len(p)}
AreConnectedIn(m, n, G) == \E p \in SimplePath(G) : p[1] = m /\ p[Len(p)] = n
IsStronglyConnected(G) == \A m, n \in G.node : AreConnectedIn(m, n, G)
==========================================================================
