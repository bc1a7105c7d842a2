//go:build unix

package benchdata

import (
	"syscall"
	"time"
)

// CPUTime is the user and system CPU time of the whole process so far,
// garbage collector and other threads included.
func CPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// MaxRSS is the peak resident set size of the process so far, in bytes
// (Linux reports kilobytes).
func MaxRSS() (uint64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return uint64(ru.Maxrss) << 10, true
}
