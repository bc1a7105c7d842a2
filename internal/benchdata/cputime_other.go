//go:build !unix

package benchdata

import "time"

// CPUTime is not measured here (ok false): benchmarks report wall time only.
func CPUTime() (time.Duration, bool) { return 0, false }
