------------------------------- MODULE Refine -------------------------------
(* A refinement mapping: y of RefineAbstract is 2 * x here, and Print      *)
(* counts its evaluations (TestSubstitutionOncePerState).                  *)
EXTENDS Naturals, TLC
VARIABLE x
A == INSTANCE RefineAbstract WITH y <- Print("mapped", 2 * x)
Thrice == A!Thrice
Step == A!Step
=============================================================================
