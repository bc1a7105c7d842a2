//go:build !unix

package decode

import "time"

// cpuTime is not measured here; BenchmarkRatio reports wall time only.
func cpuTime() (time.Duration, bool) { return 0, false }
