--------------------------- MODULE RefineAbstract ---------------------------
(* The module Refine instantiates with y replaced by an expression.        *)
EXTENDS Naturals
VARIABLE y
Thrice == y + y + y
Step == y' + y' + y' = 3 * (y + 2)
=============================================================================
