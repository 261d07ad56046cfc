package replicas

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/hammer-load/hammer/internal/sockets"
)

// Conn names a TCP connection of a replica by its two ports: its own
// (Local, what a server sees as the client's port) and the server's.
type Conn struct{ Local, Remote int }

// owners is what a Set knows of which replica holds which connection: a
// map of every replica's sockets, made by a scan of /proc. A scan takes
// tens of milliseconds on a host with thousands of sockets (hundreds under
// load), so no lookup waits for one: a connection the map does not know
// starts one in the background, and one that a scan begun after it was
// asked for did not find (one of hammer's own, or another client's of the
// same server) is nobody's for strangerFor.
type owners struct {
	mu        sync.Mutex
	byConn    map[Conn]int       // a replica's connections -> replica
	strangers map[Conn]time.Time // connections a scan did not find, and when
	asked     map[Conn]bool      // what Known did not know, for the next scan
	scanning  bool               // a scan Known started runs
	scans     int                // the scans Known started
}

// newOwners is an empty map of owners.
func newOwners() owners {
	return owners{strangers: map[Conn]time.Time{}, asked: map[Conn]bool{}}
}

// strangerFor is how long a connection no replica held is taken as
// nobody's without looking again. The connection existed when it was
// asked for and the scan began after, so it is nobody's; the time only
// bounds how long its port, once freed, could be taken for a stranger's.
const strangerFor = 2 * time.Second

// Scan maps every replica's sockets now, and returns once it has. Call it
// once, before the first Known.
func (s *Set) Scan() {
	m := s.sockets()
	s.own.mu.Lock()
	defer s.own.mu.Unlock()
	s.own.install(m, nil)
}

// Known says which replica holds the TCP connection c: the replica one of
// whose processes has that socket open, by the last map made. It is how a
// client a server names by its address maps to a replica; the server's
// port is part of the key, since the kernel may give one local port to
// connections to different servers. A connection the map does not know is
// reported as nobody's now, and a scan starts in the background (one at a
// time), so that a later call knows it: the looks made while the replicas
// are stopped stay short, and a watch keeps up with what it watches.
func (s *Set) Known(c Conn) (int, bool) {
	o := &s.own
	o.mu.Lock()
	defer o.mu.Unlock()
	if r, ok, known := o.lookup(c); known {
		return r, ok
	}
	o.asked[c] = true
	if o.scanning {
		return 0, false
	}
	o.scanning, o.scans = true, o.scans+1
	asked := slices.Collect(maps.Keys(o.asked))
	clear(o.asked)
	go func() {
		m := s.sockets()
		o.mu.Lock()
		defer o.mu.Unlock()
		o.install(m, asked)
		o.scanning = false
	}()
	return 0, false
}

// lookup answers c from the map: known is false when c is neither in it
// nor a recent stranger; o.mu is held.
func (o *owners) lookup(c Conn) (r int, ok, known bool) {
	if r, ok := o.byConn[c]; ok {
		return r, true, true
	}
	at, ok := o.strangers[c]
	return 0, false, ok && time.Since(at) < strangerFor
}

// install takes m as the map, and the connections asked for that it does
// not hold as strangers; o.mu is held.
func (o *owners) install(m map[Conn]int, asked []Conn) {
	o.byConn = m
	now := time.Now()
	maps.DeleteFunc(o.strangers, func(_ Conn, at time.Time) bool { return now.Sub(at) >= strangerFor })
	for _, c := range asked {
		if _, ok := m[c]; !ok {
			o.strangers[c] = now
		}
	}
}

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
