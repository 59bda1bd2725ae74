//go:build !unix

package main

import (
	"os"
	"time"
)

// selfCPU is not measured here: the client CPU figure reads 0.
func selfCPU() time.Duration { return 0 }

// reraise cannot resend a signal here; the caller exits with 130.
func reraise(os.Signal) {}

// raiseNoFile: no limit to raise here.
func raiseNoFile(uint64) error { return nil }
