// Package relay forwards TCP connections: a listener on an address other
// hosts reach, each connection copied both ways to and from one upstream
// on this host. It lets agents on other hosts send their requests to the
// replicas of a user's service, which listen on this host's loopback.
package relay

import (
	"fmt"
	"io"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Relay is one listener and the connections it forwards to its upstream.
type Relay struct {
	ln       net.Listener
	upstream string
	from     []netip.Addr // the only sources it forwards; nil: any

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // both ends of every open pair
	closed bool
	wg     sync.WaitGroup
}

// dialTimeout bounds the connection to the upstream: a replica stopped
// by a fault still accepts (its kernel does), one being restarted after a
// crash refuses at once.
const dialTimeout = 5 * time.Second

// Listen starts relaying connections accepted at addr (host:port; port 0
// picks a free one) to upstream (host:port). When from lists addresses,
// a connection from any other is closed unread: what listens where other
// hosts reach serves only the hosts it is for.
func Listen(addr, upstream string, from []netip.Addr) (*Relay, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("relay %s: %w", upstream, err)
	}
	r := &Relay{ln: ln, upstream: upstream, from: from, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Port is the port the relay listens on.
func (r *Relay) Port() int { return r.ln.Addr().(*net.TCPAddr).Port }

// Addr is the address the relay listens on.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// accept takes connections until the listener is closed.
func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		if !r.allowed(c.RemoteAddr()) {
			c.Close()
			continue
		}
		if !r.track(c) {
			c.Close()
			return
		}
		r.wg.Add(1)
		go r.forward(c)
	}
}

// allowed reports whether the relay forwards a connection from addr.
func (r *Relay) allowed(addr net.Addr) bool {
	if r.from == nil {
		return true
	}
	ap, err := netip.ParseAddrPort(addr.String())
	return err == nil && slices.Contains(r.from, ap.Addr().Unmap())
}

// track records c as open; false once the relay is closed.
func (r *Relay) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

// untrack closes c and forgets it.
func (r *Relay) untrack(c net.Conn) {
	c.Close()
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
}

// forward copies c to a new connection to the upstream and back. The
// upstream's end of the stream (a reply, then a close) is passed on as
// it comes: a half-close as a half-close, a reset or a death as the end
// of c, so that the client sees its request fail as it would without
// the relay.
func (r *Relay) forward(c net.Conn) {
	defer r.wg.Done()
	defer r.untrack(c)
	up, err := net.DialTimeout("tcp", r.upstream, dialTimeout)
	if err != nil {
		return // the client sees its connection closed, as by a replica that is down
	}
	if !r.track(up) {
		up.Close()
		return
	}
	defer r.untrack(up)
	done := make(chan struct{})
	go func() {
		defer close(done)
		pipe(up, c)
	}()
	pipe(c, up)
	<-done
}

// pipe copies from src to dst until src ends, then ends dst's writing
// side; on an error, both connections are closed so that the other
// direction ends too.
func pipe(dst, src net.Conn) {
	_, err := io.Copy(dst, src)
	if err != nil {
		dst.Close()
		src.Close()
		return
	}
	if tc, ok := dst.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		return
	}
	dst.Close()
}

// Close stops accepting, closes every open connection and waits until
// every forwarding goroutine has ended.
func (r *Relay) Close() {
	r.mu.Lock()
	r.closed = true
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.ln.Close()
	r.wg.Wait()
}
