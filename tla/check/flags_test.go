package check

import "flag"

var slow = flag.Bool("slow", false, "also check the slow shared models (PaxosCommit)")
