package replicas

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Owner says which replica holds the local end of a TCP connection from
// port: the replica one of whose processes has that socket open. It is
// how a client Redis names by its address maps to a replica. Lookups are
// served from a map of every replica's sockets, made again on a miss.
func (s *Set) Owner(port int) (int, bool) {
	s.ownerMu.Lock()
	defer s.ownerMu.Unlock()
	if r, ok := s.owners[port]; ok {
		return r, true
	}
	s.owners = s.sockets()
	r, ok := s.owners[port]
	return r, ok
}

// sockets maps the local port of every TCP socket a replica's processes
// hold to the replica.
func (s *Set) sockets() map[int]int {
	inodes := map[string]int{} // socket inode -> replica
	for i, r := range s.rs {
		for _, pid := range groupPIDs(r.pid()) {
			dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				link, err := os.Readlink(filepath.Join(dir, e.Name()))
				if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
					inodes[strings.TrimSuffix(inode, "]")] = i
				}
			}
		}
	}
	out := map[int]int{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 {
				continue
			}
			r, ok := inodes[fields[9]]
			_, hexPort, found := strings.Cut(fields[1], ":")
			port, err := strconv.ParseInt(hexPort, 16, 32)
			if ok && found && err == nil {
				out[int(port)] = r
			}
		}
		f.Close()
	}
	return out
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
