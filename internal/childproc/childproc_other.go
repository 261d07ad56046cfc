//go:build !linux

package childproc

import "syscall"

// Attr is the attributes of a child in a process group of its own when
// group is set. Only Linux has a parent-death signal: deathSig is ignored
// here, and the caller's own clean-up must stop the child.
func Attr(group bool, deathSig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: group}
}
