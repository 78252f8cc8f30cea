// Package cputime reads the CPU time the process has used (user + system,
// getrusage), for benchmarks that report work per CPU-second: on the shared
// build machine wall-clock rates move with the load, CPU-second rates much
// less.
package cputime

import "syscall"

// Seconds is the process's CPU time so far, in seconds.
func Seconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
