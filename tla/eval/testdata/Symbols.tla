---------------------------- MODULE Symbols ----------------------------
\* Operator symbols a module defines or binds: none of them is the
\* built-in operator of the same name. (No EXTENDS Naturals, so that + is
\* this module's to define.)
a + b == a * b

Apply(_-_, x, y) == x - y
Times(x, y) == x * y

L == LET a ++ b == a * b IN 2 ++ 3

---- MODULE Inner ----
CONSTANT _%_
Rem == 7 % 2
====

I == INSTANCE Inner WITH % <- Times
=============================================================================
