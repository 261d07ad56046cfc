package replicas

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"testing"
	"time"
)

// dial opens a TCP connection to replica i and returns it with the Conn
// that names the replica's end of it (the accepted socket).
func dial(t *testing.T, s *Set, i int) (net.Conn, Conn) {
	t.Helper()
	u, err := url.Parse(s.URLs()[i])
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	server, _ := strconv.Atoi(u.Port())
	return conn, Conn{Local: server, Remote: conn.LocalAddr().(*net.TCPAddr).Port}
}

// knownWithin asks Known until it knows c or 5 s have passed.
func knownWithin(t *testing.T, s *Set, c Conn) (int, bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if r, ok := s.Known(c); ok || time.Now().After(deadline) {
			return r, ok
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestKnown: Scan maps the replicas' connections at once; Known answers
// from the map without waiting for a scan, and knows a connection opened
// after it once the scan it started has run; a connection no replica holds
// is nobody's.
func TestKnown(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (0.9s in a -short run): skipped by -short (make test runs it)")
	}
	s, err := Start(context.Background(), pyServer(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	_, first := dial(t, s, 1)
	ours, _ := dial(t, s, 0)
	time.Sleep(200 * time.Millisecond) // the replicas accept what they are sent
	s.Scan()
	if r, ok := s.Known(first); !ok || r != 1 {
		t.Fatalf("Known(%v) after Scan = %d, %t; want replica 1", first, r, ok)
	}

	_, second := dial(t, s, 0)
	time.Sleep(200 * time.Millisecond)
	if r, ok := s.Known(second); ok {
		t.Fatalf("Known(%v) = replica %d before any scan found it: it must not wait for a scan", second, r)
	}
	if r, ok := knownWithin(t, s, second); !ok || r != 0 {
		t.Fatalf("Known(%v) = %d, %t; want replica 0 once its scan ran", second, r, ok)
	}

	// This process's end of a connection is held by no replica: a scan
	// finds it nobody's.
	mine := Conn{Local: ours.LocalAddr().(*net.TCPAddr).Port, Remote: ours.RemoteAddr().(*net.TCPAddr).Port}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if r, ok := s.Known(mine); ok {
			t.Fatalf("Known(%v) = replica %d, want nobody's", mine, r)
		}
		s.own.mu.Lock()
		_, _, scanned := s.own.lookup(mine)
		s.own.mu.Unlock()
		if scanned {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Known(%v): no scan looked for it", mine)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A stranger is not scanned for again for a while.
	s.own.mu.Lock()
	scans := s.own.scans
	s.own.mu.Unlock()
	for range 3 {
		if _, ok := s.Known(mine); ok {
			t.Fatalf("Known(%v): a replica's, want nobody's", mine)
		}
	}
	s.own.mu.Lock()
	defer s.own.mu.Unlock()
	if s.own.scans != scans {
		t.Errorf("asking for a stranger again started %d scans, want none", s.own.scans-scans)
	}
}
