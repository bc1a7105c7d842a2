//go:build !unix

package benchdata

import "time"

// CPUTime is not measured here (ok false): benchmarks report wall time only.
func CPUTime() (time.Duration, bool) { return 0, false }

// MaxRSS is not measured here (ok false).
func MaxRSS() (uint64, bool) { return 0, false }
