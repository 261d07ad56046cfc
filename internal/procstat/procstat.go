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
	// Start is when it started, in clock ticks since boot: with PID, it
	// tells a process from a later one given the same PID (0 if unread).
	Start uint64
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

// Children lists the processes whose parent is pid.
func Children(pid int) []Proc {
	var out []Proc
	Each(func(p Proc) {
		if p.PPID == pid {
			out = append(out, p)
		}
	})
	return out
}

// Descendants lists the processes below pid in the tree of parents: its
// children, theirs, and so on, whatever process group or session they
// moved to. A process whose parent exited has moved to another parent
// (init, or a subreaper) and is no longer among them.
func Descendants(pid int) []Proc {
	children := map[int][]Proc{}
	Each(func(p Proc) { children[p.PPID] = append(children[p.PPID], p) })
	var out []Proc
	for next := []int{pid}; len(next) > 0; {
		parent := next[0]
		next = next[1:]
		for _, c := range children[parent] {
			out = append(out, c)
			next = append(next, c.PID)
		}
	}
	return out
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
	p := Proc{PID: pid, PPID: ppid, PGRP: pgrp, State: f[0]}
	if len(f) > startField { // proc(5): starttime is the stat's 22nd field
		p.Start, _ = strconv.ParseUint(f[startField], 10, 64)
	}
	return p, true
}

// startField is where starttime is among the fields after comm.
const startField = 19

// Same reports whether the process p names is still the one it read:
// there, with the PID and start time it had.
func Same(p Proc) bool {
	now, ok := Of(p.PID)
	return ok && now.Start == p.Start
}
