package shell

import (
	"syscall"
	"unsafe"
)

// canAwaitExit: Linux can observe an exit without reaping the process.
const canAwaitExit = true

// awaitExit blocks until the process has exited and leaves it a zombie
// (waitid with WNOWAIT), so its pid, which is also its process group id,
// stays reserved until cmd.Wait reaps it.
func awaitExit(pid int) error {
	const pPID = 1     // P_PID
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		switch errno {
		case 0:
			return nil
		case syscall.EINTR:
			continue
		default:
			return errno
		}
	}
}
