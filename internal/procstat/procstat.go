// Package procstat reads the kernel's table of processes, /proc/<pid>/stat:
// each process's parent, process group and state, for the code that must
// find the processes a server or a worker left behind.
package procstat

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is one process as its /proc/<pid>/stat describes it.
type Proc struct {
	PID, PPID, PGRP int
	// State is the kernel's letter for it: R running, S sleeping, T
	// stopped, Z a zombie, and so on.
	State string
}

// Of reads process pid; false when it is gone or cannot be read.
func Of(pid int) (Proc, bool) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return Proc{}, false
	}
	return parse(pid, string(stat))
}

// Each calls f for every process it can read; for none where there is no
// /proc.
func Each(f func(Proc)) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := Of(pid); ok {
			f(p)
		}
	}
}

// parse reads "pid (comm) state ppid pgrp …", where comm may hold spaces
// and parentheses: the fields that follow start after its last ')'.
func parse(pid int, stat string) (Proc, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 3 {
		return Proc{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return Proc{}, false
	}
	return Proc{PID: pid, PPID: ppid, PGRP: pgrp, State: f[0]}, true
}
