---- MODULE Junctions ----
\* Column-sensitive bulleted lists, including the cases where columns end them.
SameLine == /\ a
            /\ b
NextLine ==
  \/ a
  \/ b
Nested ==
  /\ \/ a
     \/ b
  /\ c
OrOfAnds ==
  \/ /\ a
     /\ b
  \/ /\ c
     /\ d
Single == /\ a
InParens == /\ (a
    \/ b)
            /\ c
InIf == IF x THEN /\ a
                  /\ b
             ELSE \/ c
                  \/ d
InLet == LET v == /\ a
                  /\ b
         IN /\ v
            /\ c
InQuant == \E i \in S : /\ a
                        /\ b
                        /\ \A j \in S : \/ c
                                        \/ d
LesserCol ==
    \/ /\ a
       /\ b
  \/ c
InfixChain == a /\ b /\ c
MixedChain == (a /\ b) \/ c
BulletThenInfix == /\ a /\ b
                   /\ c
ItemSpansLines == /\ a =
                       b
                  /\ c
====
