//go:build unix

package python

import (
	"os/exec"
	"syscall"
)

// inGroup runs the interpreter as the leader of a new process group and
// has a cancel kill the group, so a timeout also ends what the code
// started.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
