------------------------------ MODULE Quorum ------------------------------
(* roomspec's version of the CommunityModules module Quorum.             *)
\* The quorum systems over S: non-empty sets of subsets of S any two of
\* which intersect, closed under supersets.
QuorumSystem(S) ==
  {QS \in SUBSET (SUBSET S) :
     /\ QS # {}
     /\ \A Q1, Q2 \in QS : Q1 \cap Q2 # {}
     /\ \A Q1, Q2 \in SUBSET S : Q1 \in QS /\ Q1 \subseteq Q2 => Q2 \in QS}
==========================================================================
