-------------------------- MODULE LetInstanceCounter --------------------------
(* The module LetInstance names in a LET definition.                       *)
EXTENDS Naturals
VARIABLE x
Inc == x' = x + 1
=============================================================================
