//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// selfCPU is this process's user + system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reraise kills this process with sig, its default action restored.
func reraise(sig os.Signal) {
	if s, ok := sig.(syscall.Signal); ok {
		signal.Reset(s)
		_ = syscall.Kill(os.Getpid(), s)
		time.Sleep(time.Second) // the signal is delivered meanwhile
	}
}
