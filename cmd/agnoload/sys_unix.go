//go:build unix

package main

import (
	"fmt"
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

// raiseNoFile lifts the open-file limit to need: the soft limit up to the
// hard one, and the hard one too where the process may (root). Thousands
// of clients fail with "too many open files" otherwise.
func raiseNoFile(need uint64) error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return nil // nothing to go by; the dials will say
	}
	if l.Cur >= need {
		return nil
	}
	want := syscall.Rlimit{Cur: need, Max: max(l.Max, need)}
	err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want)
	if err == nil {
		return nil
	}
	return fmt.Errorf("needs %d open files; the limit is %d (hard %d) and raising it failed (%v): run as root or raise it first (ulimit -Hn %d; ulimit -n %d)",
		need, l.Cur, l.Max, err, need, need)
}
