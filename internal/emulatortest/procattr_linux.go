package emulatortest

import "syscall"

// sysProcAttr makes the kernel kill the emulator when the test binary dies,
// however it dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
