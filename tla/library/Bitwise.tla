------------------------------ MODULE Bitwise ------------------------------
(* roomspec's version of the CommunityModules module Bitwise, on natural *)
(* numbers.                                                               *)
LOCAL INSTANCE Naturals

RECURSIVE And(_, _, _, _)
And(x, y, n, m) ==
  IF m = 0 THEN 0
  ELSE LET exp == 2^n IN
       exp * ((x \div exp) % 2) * ((y \div exp) % 2) + And(x, y, n + 1, m \div 2)
x & y == And(x, y, 0, x)
RECURSIVE Or(_, _, _, _)
Or(x, y, n, m) ==
  IF m = 0 THEN 0
  ELSE LET exp == 2^n
           xdigit == (x \div exp) % 2
           ydigit == (y \div exp) % 2
       IN exp * (IF xdigit + ydigit > 0 THEN 1 ELSE 0) + Or(x, y, n + 1, m \div 2)
x | y == IF x >= y THEN Or(x, y, 0, x) ELSE Or(y, x, 0, y)
RECURSIVE Xor(_, _, _, _)
Xor(x, y, n, m) ==
  IF m = 0 THEN 0
  ELSE LET exp == 2^n IN
       exp * (((x \div exp) + (y \div exp)) % 2) + Xor(x, y, n + 1, m \div 2)
x ^^ y == IF x >= y THEN Xor(x, y, 0, x) ELSE Xor(y, x, 0, y)
RECURSIVE NotR(_, _, _)
NotR(x, n, m) ==
  IF m = 0 THEN 0
  ELSE LET exp == 2^n IN exp * ((x \div exp + 1) % 2) + NotR(x, n + 1, m \div 2)
Not(a) == IF a = 0 THEN 1 ELSE NotR(a, 0, a)
shiftR(n, pos) == n \div (2^pos)
==========================================================================
