package agent

import "syscall"

// childSysProcAttr has the kernel kill an agent's worker when the agent
// dies, so a killed agent leaves no worker racing on.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
