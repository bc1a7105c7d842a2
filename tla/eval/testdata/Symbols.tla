---------------------------- MODULE Symbols ----------------------------
\* Operator symbols a module defines or binds: none of them is the
\* built-in operator of the same name. (The module does not extend
\* Naturals, so that + is its own to define; it multiplies through Arith.)

---- MODULE Arith ----
EXTENDS Naturals
Mul(a, b) == a * b
====

A == INSTANCE Arith

a + b == A!Mul(a, b)

Apply(_-_, x, y) == x - y
Times(x, y) == A!Mul(x, y)

L == LET a ++ b == A!Mul(a, b) IN 2 ++ 3

---- MODULE Inner ----
CONSTANT _%_
Rem == 7 % 2
====

I == INSTANCE Inner WITH % <- Times
=============================================================================
