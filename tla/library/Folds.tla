------------------------------ MODULE Folds ------------------------------
(* roomspec's version of the CommunityModules module Folds.              *)
(* MapThenFoldSet(op, base, f, choose, S) combines the images f(x) of the *)
(* elements of S with op, starting from base, taking the elements in the  *)
(* order in which choose picks them out of what remains.                  *)
MapThenFoldSet(op(_, _), base, f(_), choose(_), S) ==
  LET fold[rest \in SUBSET S] ==
        IF rest = {} THEN base
        ELSE LET x == choose(rest) IN op(f(x), fold[rest \ {x}])
  IN fold[S]
==========================================================================
