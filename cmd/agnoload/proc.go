package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/PID/stat. The kernel
// reports them in USER_HZ, which is 100 on every architecture Go targets
// on Linux (sysconf(_SC_CLK_TCK) would need cgo).
const userHZ = 100

// procSample is what /proc says about a process at one moment.
type procSample struct {
	CPU    time.Duration // user + system time so far
	PeakKB int64         // VmHWM: peak resident set size so far
	RSSKB  int64         // VmRSS: resident set size now
}

// readProc samples /proc/PID/stat and /proc/PID/status.
func readProc(pid int) (procSample, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procSample{}, fmt.Errorf("read CPU time of -server-pid %d: %w", pid, err)
	}
	cpu, err := parseStatCPU(stat)
	if err != nil {
		return procSample{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return procSample{}, fmt.Errorf("read memory of -server-pid %d: %w", pid, err)
	}
	peak, err := parseStatusKB(status, "VmHWM")
	if err != nil {
		return procSample{}, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	rss, err := parseStatusKB(status, "VmRSS")
	if err != nil {
		return procSample{}, fmt.Errorf("/proc/%d/status: %w", pid, err)
	}
	return procSample{CPU: cpu, PeakKB: peak, RSSKB: rss}, nil
}

// readRSS is VmRSS of /proc/PID/status.
func readRSS(pid int) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatusKB(status, "VmRSS")
}

// parseStatCPU returns utime+stime from a /proc/PID/stat line. The command
// name (field 2) is in parentheses and may itself hold spaces and ')', so
// fields are counted from the last ')'.
func parseStatCPU(stat []byte) (time.Duration, error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, errors.New("no command name in parentheses")
	}
	// After ") ": field 3 (state) is index 0, so utime (14) and stime (15)
	// are indexes 11 and 12.
	f := strings.Fields(string(stat[end+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("only %d fields after the command name", len(f))
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("CPU time %q: %w", s, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, nil
}

// parseStatusKB returns a "Key:   123 kB" value of /proc/PID/status.
func parseStatusKB(status []byte, key string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != key {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("%s: unexpected value %q", key, value)
		}
		return strconv.ParseInt(f[0], 10, 64)
	}
	return 0, fmt.Errorf("no %s line", key)
}
