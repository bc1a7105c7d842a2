------------------------- MODULE UndirectedGraphs -------------------------
(* roomspec's version of the CommunityModules module UndirectedGraphs: a *)
(* graph is a record [node |-> N, edge |-> E] whose edges are sets {a, b} *)
(* of nodes. SimplePath, AreConnectedIn and ConnectedComponents range     *)
(* over sequences without bound, so roomspec computes them itself (by     *)
(* search over the graph), as TLC does in Java.                           *)
LOCAL INSTANCE Naturals
LOCAL INSTANCE Sequences
LOCAL INSTANCE FiniteSets

IsUndirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ \A e \in G.edge : \E a, b \in G.node : e = {a, b}
IsLoopFreeUndirectedGraph(G) ==
  /\ G = [node |-> G.node, edge |-> G.edge]
  /\ \A e \in G.edge : \E a, b \in G.node : a # b /\ e = {a, b}
UndirectedSubgraph(G) ==
  {H \in [node : SUBSET G.node, edge : SUBSET G.edge] : IsUndirectedGraph(H)}
Path(G) == {p \in Seq(G.node) :
              /\ p # <<>>
              /\ \A i \in 1..(Len(p) - 1) : {p[i], p[i + 1]} \in G.edge}
SimplePath(G) == {p \in Path(G) : \A i, j \in 1..Len(p) : p[i] = p[j] => i = j}
AreConnectedIn(m, n, G) == \E p \in Path(G) : p[1] = m /\ p[Len(p)] = n
ConnectedComponents(G) ==
  {S \in SUBSET G.node : \A m \in S : S = {n \in G.node : AreConnectedIn(m, n, G)}} \ {{}}
IsStronglyConnected(G) == ConnectedComponents(G) = {G.node}
UndirectedGraphs(S) == [node : {S}, edge : SUBSET {{s, t} : <<s, t>> \in S \X S}]
==========================================================================
