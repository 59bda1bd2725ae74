//go:build !unix

package shell

import (
	"os"
	"os/exec"
)

// Without process groups only the command itself can be killed.
func startInGroup(*exec.Cmd) {}

func killGroup(p *os.Process) { _ = p.Kill() }
