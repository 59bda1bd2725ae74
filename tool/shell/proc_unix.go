//go:build unix

package shell

import (
	"os"
	"os/exec"
	"syscall"
)

// startInGroup makes the command the leader of a new process group, so
// it and everything it starts can be killed together.
func startInGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the command's process group; a group already gone is
// not an error.
func killGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
}
