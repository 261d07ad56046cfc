package replicas

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Conn names a TCP connection of a replica by its two ports: its own
// (Local, what a server sees as the client's port) and the server's.
type Conn struct{ Local, Remote int }

// Owner says which replica holds the TCP connection c: the replica one of
// whose processes has that socket open. It is how a client a server names
// by its address maps to a replica; the server's port is part of the key,
// since the kernel may give one local port to connections to different
// servers. Lookups are served from a map of every replica's sockets, made
// again on a miss; a connection no replica held at the last scan (one of
// hammer's own, say) is not scanned for again for a while, so that a
// look at a stopped holder does not walk /proc for each stranger.
func (s *Set) Owner(c Conn) (int, bool) {
	s.ownerMu.Lock()
	defer s.ownerMu.Unlock()
	if r, ok := s.owners[c]; ok {
		return r, true
	}
	if at, ok := s.strangers[c]; ok && time.Since(at) < strangerFor {
		return 0, false
	}
	s.owners, s.strangers = s.sockets(), map[Conn]time.Time{}
	r, ok := s.owners[c]
	if !ok {
		s.strangers[c] = time.Now()
	}
	return r, ok
}

// strangerFor is how long a connection no replica held is taken as
// nobody's without looking again.
const strangerFor = 100 * time.Millisecond

// sockets maps every TCP connection a replica's processes hold to the
// replica.
func (s *Set) sockets() map[Conn]int {
	inodes := map[string]int{} // socket inode -> replica
	for i, r := range s.rs {
		for _, inode := range groupSockets(r.pid()) {
			inodes[inode] = i
		}
	}
	out := map[Conn]int{}
	eachTCP(func(fields []string) {
		r, ok := inodes[fields[9]]
		local, lok := hexPort(fields[1])
		remote, rok := hexPort(fields[2])
		if ok && lok && rok {
			out[Conn{Local: local, Remote: remote}] = r
		}
	})
	return out
}

// listensOn reports whether a process of group pgid holds a listening TCP
// socket on port; checked is false where /proc cannot tell (not Linux).
func listensOn(pgid, port int) (ok, checked bool) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		return false, false
	}
	inodes := map[string]bool{}
	for _, inode := range groupSockets(pgid) {
		inodes[inode] = true
	}
	eachTCP(func(fields []string) {
		local, lok := hexPort(fields[1])
		if fields[3] == tcpListen && inodes[fields[9]] && lok && local == port {
			ok = true
		}
	})
	return ok, true
}

// tcpListen is the state ("st") of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// groupSockets lists the inodes of the sockets the processes of group
// pgid hold open.
func groupSockets(pgid int) []string {
	var out []string
	for _, pid := range groupPIDs(pgid) {
		dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			link, err := os.Readlink(filepath.Join(dir, e.Name()))
			if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
				out = append(out, strings.TrimSuffix(inode, "]"))
			}
		}
	}
	return out
}

// eachTCP calls f with the fields of every row of /proc/net/tcp and tcp6
// (local address, remote address, state, …, inode at index 9).
func eachTCP(f func(fields []string)) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		file, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			if fields := strings.Fields(sc.Text()); len(fields) >= 10 {
				f(fields)
			}
		}
		file.Close()
	}
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

// hexPort reads the port of an "ADDR:PORT" field of /proc/net/tcp.
func hexPort(field string) (int, bool) {
	_, h, found := strings.Cut(field, ":")
	port, err := strconv.ParseInt(h, 16, 32)
	return int(port), found && err == nil
}
