This text before the module header is ignored, like in SANY.
---------------------------- MODULE Constructs ----------------------------
EXTENDS Naturals, Sequences, FiniteSets, TLC
(* A block comment (* with a nested one *) and "a string" inside. *)
CONSTANTS N, Procs, F(_, _), _ (+) _
VARIABLES x, y, \* a line comment
          z
-----------------------------------------------------------------------------
RECURSIVE Sum(_)
Sum(S) == IF S = {} THEN 0 ELSE LET e == CHOOSE e \in S : TRUE IN e + Sum(S \ {e})

Nums == <<1, \b101, \o17, \hFF, 0>>
Strs == <<"plain", "quote\" backslash\\ newline\n tab\t">>
Bools == {TRUE, FALSE}
Sets == /\ {} = {}
        /\ {1, 2} \subseteq 1..3
        /\ {n \in 1..N : n % 2 = 0} # {}
        /\ {<<a, b>> \in Procs \X Procs : a /= b} = {}
        /\ {n * 2 : n \in 1..N} = {2 * m : m, k \in 1..N, j \in {1}}
        /\ SUBSET {1} = {{}, {1}}
        /\ UNION {{1}, {2}} = {1, 2}
        /\ Procs \X Procs \X {1} = Procs \times Procs \times {1}
        /\ (Procs \X Procs) \X {1} /= {}
        /\ 1 \notin {} /\ ({1} \cap {2}) \union {3} = {3}
Quants == /\ \A p \in Procs, i, j \in 1..N : i + j > 0
          /\ \E <<p, q>> \in Procs \X Procs : p = q
          /\ \A u : u = u
          /\ \exists v : \forall w : v = w
          /\ CHOOSE c : c = 1
          /\ CHOOSE <<c, d>> \in Procs \X Procs : c = d
Funcs == /\ [p \in Procs |-> 0] = [q \in Procs |-> 0]
         /\ [i, j \in 1..N, <<a, b>> \in Procs \X Procs |-> i + j]
         /\ [Procs -> 1..N] # {}
         /\ [f EXCEPT ![1] = @ + 1, ![2, 3].a = 0, !.b[4] = @]
         /\ f[1] = f[1, 2]
         /\ DOMAIN f = {}
         /\ r.a.b = r["a"]
f == [i \in 1..3 |-> i]
r == [a |-> [b |-> 1], c |-> "x"]
Recs == [a : {1}, b : BOOLEAN] # {} /\ r.c = "x"
fact[n \in Nat] == IF n = 0 THEN 1 ELSE n * fact[n - 1]
Control == /\ IF x THEN y ELSE z
           /\ CASE x = 1 -> 2
                [] x = 2 -> 3
                [] OTHER -> 4
           /\ CASE x -> y [] z -> x
           /\ LET a == 1
                  g(b) == b + a
                  h[i \in 1..2] == i
              IN g(a) + h[1]
Arith == -1 + 2 * 3 - (4 \div 2 % 3 ^ 2) = -x /\ a ++ b
a ++ b == a + b
a \prec b == a < b
-. a == 0 - a
a ^+ == a
a (+) b == a
HigherOrder(Op(_), v) == Op(v)
UseLambda == HigherOrder(LAMBDA v : v + 1, 2) + HigherOrder(Sum, {1})
Seqs == Append(<<>>, 1) \o <<2>> = <<1, 2>> /\ Len(<<>>) = 0 /\ 1 :> 2 @@ 2 :> 3 = f
Actions == /\ x' = x + 1
           /\ UNCHANGED <<y, z>>
           /\ [x' = x]_<<x, y>>
           /\ <<x' = x>>_x
           /\ ENABLED (x' = 1)
           /\ f[1]' = x'[1]
vars == <<x, y, z>>
Spec == /\ x = 0 /\ [][Actions]_vars
        /\ WF_vars(Actions) /\ SF_<<x, y>>(Actions)
        /\ []<>(x = 1) /\ <>[](x = 2) /\ (x = 1) ~> (x = 2)
        /\ [](x = 1 => <>(y = 2))
Labelled == lbl :: x = 1
Impl == ((x = 1) <=> (y = 2)) \equiv TRUE
LOCAL Hidden == 1
ASSUME N \in Nat
ASSUME Named == N > 0
THEOREM Spec => []Sets
=============================================================================
Text after the end is ignored too: ( " unbalanced.
