package stack

import "syscall"

// sysProcAttr puts a child in its own process group (a terminal's ^C does
// not reach it) and has the kernel send it sig when the hammer thread that
// started it dies, so a killed hammer leaves no process behind.
func sysProcAttr(sig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: sig}
}
