---------------------------- MODULE GraphTheorems ----------------------------
(* roomspec's stand-in for the TLA+ proof library module GraphTheorems,      *)
(* which TLC finds on its library path. The module holds theorems, which  *)
(* model checking never uses (proofs and theorem statements are skipped),  *)
(* so it declares nothing here.                                            *)
==========================================================================
