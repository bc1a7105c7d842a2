--------------------------- MODULE Registers ---------------------------
(* TLC's registers, set in ASSUME and counted up by an action            *)
(* constraint, and its configuration and figures read by ASSUME and a    *)
(* POSTCONDITION: x goes 0..3, every step is counted once, and the       *)
(* search ends with 4 distinct states, 4 generated, diameter 4.          *)
EXTENDS Naturals, TLC
VARIABLE x

ASSUME TLCSet(1, 0) /\ TLCSet("s:steps", 10)
ASSUME /\ TLCGet("config").mode = "bfs"
       /\ TLCGet("config").deadlock = FALSE
       /\ TLCGet("config").worker = 1
       /\ DOMAIN TLCGet("config") = {"mode", "deadlock", "worker", "seed", "fingerprint", "install"}

Init == x = 0
Next == x < 3 /\ x' = x + 1

Counted == /\ TLCSet(1, TLCGet(1) + 1)
           /\ TLCSet("s:steps", TLCGet("s:steps") + 1)

Post == /\ TLCGet(1) = 3
        /\ TLCGet("s:steps") = 13
        /\ TLCGet("distinct") = 4
        /\ TLCGet("generated") = 4
        /\ TLCGet("diameter") = 4
        /\ TLCGet("stats").initial = 1
        /\ DOMAIN TLCGet("stats") = {"queue", "distinct", "initial", "generated", "diameter", "duration", "worker"}
        /\ TLCGet("duration") >= 0
=======================================================================
