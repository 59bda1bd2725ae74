//go:build !unix

package mcp

import "os/exec"

func setProcessGroup(*exec.Cmd) {}

// signalGroup: without process groups the server itself is killed.
func signalGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }
