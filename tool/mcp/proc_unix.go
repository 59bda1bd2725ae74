//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the server in a group of its own, so a launcher
// (npx, uvx) and what it started are stopped together.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM (or SIGKILL) to the server's process group. It
// is only called before the leader has been reaped, so the group id still
// belongs to it.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		_ = cmd.Process.Signal(sig)
	}
}
