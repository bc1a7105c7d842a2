---- MODULE Case ----
(* CASE as an action and as a value. Up: x 0..3, then down: x 3..0; m    *)
(* is x's CASE image, a function of x and phase: 4 + 4 = 8 states.         *)
EXTENDS Naturals
VARIABLES x, phase, m
Img(v) == CASE v = 0 -> "zero" [] v = 1 -> "one" [] OTHER -> "many"
Init == x = 0 /\ phase = "up" /\ m = "zero"
Next == /\ CASE phase = "up" /\ x < 3 -> x' = x + 1 /\ UNCHANGED phase
             [] phase = "up" -> phase' = "down" /\ UNCHANGED x
             [] phase = "down" /\ x > 0 -> x' = x - 1 /\ UNCHANGED phase
             [] OTHER -> FALSE
        /\ m' = Img(x')
====
