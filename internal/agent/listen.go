package agent

import (
	"context"
	"crypto/hmac"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// ListenOptions configure the coordinator's listener.
type ListenOptions struct {
	// Addr is host:port to listen on; an empty host is loopback, never
	// every interface (say 0.0.0.0 for that).
	Addr string
	// Token is the shared secret agents must prove they hold.
	Token string
	// Version is this hammer's version; agents must run the same.
	Version string
	// Log receives one line per agent joined or refused.
	Log io.Writer
	// Quiet leaves out of Log the lines that only show progress: each
	// agent that joins, and its clock. Refusals and departures stay.
	Quiet bool
}

// Listener accepts agents.
type Listener struct {
	o    ListenOptions
	ln   net.Listener
	gate *gate // which strangers may try the token; Accept's alone
}

// Listen binds the coordinator's port.
func Listen(o ListenOptions) (*Listener, error) {
	if err := CheckToken(o.Token); err != nil {
		return nil, err
	}
	cfg, err := serverTLS()
	if err != nil {
		return nil, err
	}
	ln, err := bind(o.Addr)
	if err != nil {
		return nil, err
	}
	ln = tls.NewListener(ln, cfg)
	if o.Log == nil {
		o.Log = io.Discard
	}
	return &Listener{o: o, ln: ln, gate: newGate()}, nil
}

// progress writes a line that only shows progress to Log, unless Quiet.
func (l *Listener) progress(format string, args ...any) {
	if !l.o.Quiet {
		fmt.Fprintf(l.o.Log, format, args...)
	}
}

// CheckAddr binds addr as Listen would and lets it go at once: a port in
// use, or an address this host does not have, is found before anything
// else starts, without holding the port until the agents are awaited.
func CheckAddr(addr string) error {
	ln, err := bind(addr)
	if err != nil {
		return err
	}
	return ln.Close()
}

// bind listens on addr, a host:port whose empty host is loopback.
func bind(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--listen %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

// Addr is the address agents join, with the port the system chose.
func (l *Listener) Addr() string { return l.ln.Addr().String() }

// Close stops listening; agents already joined stay.
func (l *Listener) Close() error { return l.ln.Close() }

// Accept waits until n agents joined, or timeout passes, or ctx ends, and
// closes the listener. Each agent gets the index it asked for (a
// Kubernetes Indexed Job's) or the lowest free one, and its clock is
// estimated once it joined. An agent that is refused (wrong token,
// another version, an index taken) is told why and logged; the others
// keep waiting.
func (l *Listener) Accept(ctx context.Context, n int, timeout time.Duration) ([]*Agent, error) {
	defer l.ln.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	joined, err := l.gather(ctx, n, l.connections(ctx))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("%d of %d agents joined within --join-timeout %s", count(joined), n, timeout)
		}
		return nil, err
	}
	for _, a := range joined {
		clk, err := a.Sync(joinPings)
		if err != nil {
			closeAll(joined)
			return nil, err
		}
		a.Joined = clk
		l.progress("hammer: agent %d's clock reads %+.3f ms ± %.3f ms against this one's (round trip %.3f ms)\n",
			a.Index, ms(clk.Offset), ms(clk.Uncertainty), ms(clk.RTT))
	}
	return joined, nil
}

// connections accepts connections until ctx ends, which closes the
// listener.
func (l *Listener) connections(ctx context.Context) <-chan net.Conn {
	conns := make(chan net.Conn)
	go func() {
		for {
			c, err := l.ln.Accept()
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil { // out of file descriptors, say: try again
				fmt.Fprintf(l.o.Log, "hammer: accepting agents: %v\n", err)
				select {
				case <-time.After(100 * time.Millisecond):
					continue
				case <-ctx.Done():
					return
				}
			}
			select {
			case conns <- c:
			case <-ctx.Done():
				c.Close()
				return
			}
		}
	}()
	go func() { <-ctx.Done(); l.ln.Close() }()
	return conns
}

// gather runs the handshakes of the connections the gate lets in until n
// agents joined, or ctx ends (with the agents joined so far, closed, and
// ctx's error). A handshake still under way when ctx ends has its
// connection closed, so a stranger cannot hold the coordinator up.
func (l *Listener) gather(ctx context.Context, n int, conns <-chan net.Conn) ([]*Agent, error) {
	joined := make([]*Agent, n)
	answers := make(chan answer)
	drain := func(why string) { // handshakes still in flight are refused
		for l.gate.busy() > 0 {
			r := <-answers
			l.gate.done(r.src)
			if r.agent != nil {
				r.agent.refuse(why)
			}
		}
	}
	for count(joined) < n {
		select {
		case c := <-conns:
			src := source(c.RemoteAddr())
			if ok, why := l.gate.admit(src, time.Now()); !ok {
				if why != "" {
					fmt.Fprintf(l.o.Log, "hammer: refused a connection from %s: %s\n", c.RemoteAddr(), why)
				}
				c.Close()
				continue
			}
			go func() {
				stop := context.AfterFunc(ctx, func() { c.Close() })
				a := l.handshake(c, src)
				if !stop() && a != nil { // ctx ended as it joined
					a.refuse("the coordinator stopped waiting")
					a = nil
				}
				answers <- answer{agent: a, src: src}
			}()
		case r := <-answers:
			l.gate.done(r.src)
			if r.agent != nil {
				l.admit(r.agent, n, joined)
			}
		case <-ctx.Done():
			closeAll(joined)
			drain("the coordinator stopped waiting")
			return joined, ctx.Err()
		}
	}
	go drain(fmt.Sprintf("all %d agents have joined", n))
	return joined, nil
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// answer is how one connection's handshake ended: its agent (nil when
// refused) and its source (see gate).
type answer struct {
	agent *Agent
	src   string
}

// joinPings is how many pings estimate an agent's clock when it joins.
const joinPings = 8

// count is how many places of as are taken.
func count(as []*Agent) int {
	n := 0
	for _, a := range as {
		if a != nil {
			n++
		}
	}
	return n
}

func closeAll(as []*Agent) {
	for _, a := range as {
		if a != nil {
			a.Close()
		}
	}
}

// admit gives a an index and welcomes it into joined, or refuses it. An
// agent that left while the others joined gives its place up (a pod
// restarted by its Job comes back with the same index).
func (l *Listener) admit(a *Agent, n int, joined []*Agent) {
	for i, j := range joined {
		if j != nil && j.Err() != nil {
			fmt.Fprintf(l.o.Log, "hammer: agent %d left before the race (%v); its place is free again\n", i, j.Err())
			joined[i] = nil
		}
	}
	index, why := pickIndex(a.want, n, joined)
	if why != "" {
		fmt.Fprintf(l.o.Log, "hammer: refused an agent from %s: %s\n", a.Addr, why)
		a.refuse(why)
		return
	}
	a.Index = index
	if err := a.lk.send(frame{Kind: kindWelcome, Index: &index}); err != nil {
		fmt.Fprintf(l.o.Log, "hammer: agent from %s left while joining: %v\n", a.Addr, err)
		a.lk.conn.Close()
		return
	}
	joined[index] = a
	a.serve()
	l.progress("hammer: agent %d joined from %s (%s); %d of %d\n", index, a.Addr, a.Host, count(joined), n)
}

// handshake runs the token exchange with one connection (see auth.go)
// and returns its agent, not yet given an index, or nil when it was
// refused (and logged). Nothing goes to the peer before it proved the
// token but the exchange itself and why it was refused; a handshake that
// fails before the proof is counted against src, the peer's source,
// before the peer is told.
func (l *Listener) handshake(c net.Conn, src string) *Agent {
	lk := &link{conn: c}
	refuse := func(why string, proven bool) *Agent {
		if !proven {
			l.gate.failed(src, time.Now())
		}
		fmt.Fprintf(l.o.Log, "hammer: refused an agent from %s: %s\n", c.RemoteAddr(), why)
		_ = lk.send(frame{Kind: kindRefused, Reason: why})
		c.Close()
		return nil
	}
	bound, err := binding(c)
	if err != nil {
		return refuse("TLS: "+err.Error(), false)
	}
	key, why := l.exchange(lk, bound)
	if why != "" {
		return refuse(why, false)
	}
	if err := lk.send(frame{Kind: kindConfirm, Proof: confirmation(key, fromCoordinator, bound)}); err != nil {
		c.Close()
		return nil
	}
	hello, err := lk.recvMax(handshakeTimeout, maxHandshakeFrame)
	switch {
	case err != nil:
		return refuse("no hello: "+err.Error(), true)
	case hello.Kind != kindHello:
		return refuse(fmt.Sprintf("expected a hello, got %q", hello.Kind), true)
	}
	if why := versionMismatch(l.o.Version, hello.Protocol, hello.Version); why != "" {
		return refuse(why, true)
	}
	return newAgent(lk, hello)
}

// exchange runs the coordinator's part of the key exchange up to the
// agent's confirmation, and returns the session key, or why the peer
// failed to prove the token.
func (l *Listener) exchange(lk *link, bound []byte) ([]byte, string) {
	first, err := lk.recvMax(handshakeTimeout, maxHandshakeFrame)
	switch {
	case err != nil:
		return nil, "no token exchange: " + err.Error()
	case first.Kind != kindPake:
		return nil, fmt.Sprintf("expected a token exchange, got %q", first.Kind)
	case first.Protocol != Protocol:
		return nil, fmt.Sprintf("protocol %d against %d", first.Protocol, Protocol)
	}
	ex, err := newExchange(l.o.Token, roleCoordinator)
	if err != nil {
		return nil, "the token exchange failed here"
	}
	key, err := ex.key(first.Pake)
	if err != nil {
		return nil, err.Error()
	}
	if err := lk.send(frame{Kind: kindPake, Pake: ex.share()}); err != nil {
		return nil, "gone during the token exchange"
	}
	got, err := lk.recvMax(handshakeTimeout, maxHandshakeFrame)
	switch {
	case err != nil:
		return nil, "no confirmation: " + err.Error()
	case got.Kind != kindConfirm || !hmac.Equal(got.Proof, confirmation(key, fromAgent, bound)):
		return nil, "wrong token"
	}
	return key, ""
}

// pickIndex is the index an agent asking for want (nil: any) gets among
// n, or why none.
func pickIndex(want *int, n int, joined []*Agent) (int, string) {
	if want != nil {
		switch i := *want; {
		case i < 0 || i >= n:
			return 0, fmt.Sprintf("index %d is out of range: the coordinator waits for %d agents (0 to %d)", i, n, n-1)
		case joined[i] != nil:
			return 0, fmt.Sprintf("index %d has joined already", i)
		default:
			return i, ""
		}
	}
	for i, a := range joined {
		if a == nil {
			return i, ""
		}
	}
	return 0, "every index has joined"
}
