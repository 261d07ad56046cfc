package childproc

import "syscall"

// Attr is the attributes of a child that gets deathSig when the thread
// that started it exits (0: none); group puts it in a process group of its
// own, so that it and its children can be signalled together.
func Attr(group bool, deathSig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: group, Pdeathsig: deathSig}
}
