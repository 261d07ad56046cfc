package replicas

import (
	"time"

	"github.com/hammer-load/hammer/internal/sockets"
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
	owner := map[string]int{} // socket inode -> replica
	for i, r := range s.rs {
		inodes, _ := sockets.GroupInodes(r.pid())
		for _, inode := range inodes {
			owner[inode] = i
		}
	}
	out := map[Conn]int{}
	sockets.Each(func(row sockets.Row) {
		if r, ok := owner[row.Inode]; ok {
			out[Conn{Local: row.Local, Remote: row.Remote}] = r
		}
	})
	return out
}
