//go:build !linux

package replicas

import "syscall"

// sysProcAttr puts a child in its own process group (a terminal's ^C does
// not reach it). Only Linux can have a child killed when its parent dies:
// elsewhere (the darwin release binaries) a hammer killed with SIGKILL
// leaves that child running.
func sysProcAttr(syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
