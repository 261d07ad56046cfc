// Package sockets reads what Linux's /proc says about the TCP sockets of
// the processes hammer starts (replicas, servers): which process group
// holds a connection, and whether it listens on a port. Elsewhere, and for
// processes whose descriptors it may not read, it cannot tell, and says so.
package sockets

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hammer-load/hammer/internal/procstat"
)

// Row is a TCP socket of /proc/net/tcp or tcp6: its local and remote
// ports, its state ("0A" is LISTEN) and its inode.
type Row struct {
	Local, Remote int
	State, Inode  string
}

// Listen is the State of a listening socket.
const Listen = "0A"

// Each calls f with every TCP socket of the host (IPv4 and IPv6).
func Each(f func(Row)) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		file, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 {
				continue
			}
			local, lok := hexPort(fields[1])
			remote, rok := hexPort(fields[2])
			if lok && rok {
				f(Row{Local: local, Remote: remote, State: fields[3], Inode: fields[9]})
			}
		}
		file.Close()
	}
}

// GroupInodes lists the inodes of the sockets the processes of process
// group pgid hold open; readable is false when the group has processes but
// none of their descriptor tables could be read (another user's). A group
// with no process left holds no socket.
func GroupInodes(pgid int) (inodes []string, readable bool) {
	pids := groupPIDs(pgid)
	readable = len(pids) == 0
	for _, pid := range pids {
		dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		readable = true
		for _, e := range entries {
			link, err := os.Readlink(filepath.Join(dir, e.Name()))
			if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
				inodes = append(inodes, strings.TrimSuffix(inode, "]"))
			}
		}
	}
	return inodes, readable
}

// ListensOn reports whether a process of group pgid holds a listening TCP
// socket on port. checked is false where /proc cannot tell: not Linux, or
// a group whose descriptors cannot be read.
func ListensOn(pgid, port int) (ok, checked bool) {
	ports, checked := Listening(pgid)
	return slices.Contains(ports, port), checked
}

// Listening lists the ports on which processes of group pgid hold
// listening TCP sockets, in ascending order and each once. checked is
// false where /proc cannot tell, as for ListensOn.
func Listening(pgid int) (ports []int, checked bool) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		return nil, false
	}
	inodes, readable := GroupInodes(pgid)
	if !readable {
		return nil, false
	}
	held := map[string]bool{}
	for _, inode := range inodes {
		held[inode] = true
	}
	Each(func(r Row) {
		if r.State == Listen && held[r.Inode] {
			ports = append(ports, r.Local)
		}
	})
	slices.Sort(ports)
	return slices.Compact(ports), true
}

// groupPIDs lists the processes of process group pgid.
func groupPIDs(pgid int) []int {
	var out []int
	procstat.Each(func(p procstat.Proc) {
		if p.PGRP == pgid {
			out = append(out, p.PID)
		}
	})
	return out
}

// hexPort reads the port of an "ADDR:PORT" field of /proc/net/tcp.
func hexPort(field string) (int, bool) {
	_, h, found := strings.Cut(field, ":")
	port, err := strconv.ParseInt(h, 16, 32)
	return int(port), found && err == nil
}
