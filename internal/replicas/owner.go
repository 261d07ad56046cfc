package replicas

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Owner says which replica holds the local end of the TCP connection from
// 127.0.0.1:port: the replica one of whose processes has that socket open.
// It is how a client Redis names (its address) maps to a replica.
func (s *Set) Owner(port int) (int, bool) {
	inode, ok := socketInode(port)
	if !ok {
		return 0, false
	}
	target := fmt.Sprintf("socket:[%s]", inode)
	for i, r := range s.rs {
		for _, pid := range groupPIDs(r.pid()) {
			if hasFD(pid, target) {
				return i, true
			}
		}
	}
	return 0, false
}

// socketInode finds, in /proc/net/tcp and tcp6, the inode of the socket
// whose local port is port.
func socketInode(port int) (string, bool) {
	want := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) > 9 && strings.HasSuffix(fields[1], want) {
				f.Close()
				return fields[9], true
			}
		}
		f.Close()
	}
	return "", false
}

// groupPIDs lists the processes of process group pgid.
func groupPIDs(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command name (which may hold spaces): state ppid pgrp …
		s := string(stat)
		rest := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(rest) > 2 && rest[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// hasFD reports whether process pid has an open file descriptor linking
// to target.
func hasFD(pid int, target string) bool {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if link, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && link == target {
			return true
		}
	}
	return false
}
