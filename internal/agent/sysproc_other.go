//go:build !linux

package agent

import "syscall"

// childSysProcAttr is empty: only Linux can have a child killed when its
// parent dies, so elsewhere an agent killed with SIGKILL may leave its
// worker running until the worker's stdin closes.
func childSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
