package agent

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const token = "agent-test-token-0123456789"

// syncBuffer is a log several goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// listen starts a coordinator's listener on loopback.
func listen(t *testing.T, version string) (*Listener, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	ln, err := Listen(ListenOptions{Addr: "127.0.0.1:0", Token: token, Version: version, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln, log
}

// join runs an agent in the background; its result arrives on the channel.
func join(addr string, mod func(*JoinOptions)) <-chan error {
	o := JoinOptions{Addr: addr, Token: token, Version: "v1", Host: "test", Timeout: 5 * time.Second, Worker: []string{"cat"}}
	if mod != nil {
		mod(&o)
	}
	done := make(chan error, 1)
	go func() { done <- Join(context.Background(), o) }()
	return done
}

// acceptOne waits for one agent to join ln and starts its worker.
func acceptOne(t *testing.T, ln *Listener) (*Agent, *Worker) {
	t.Helper()
	agents, err := ln.Accept(context.Background(), 1, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	w, err := agents[0].Start([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	return agents[0], w
}

func within(t *testing.T, done <-chan error, limit time.Duration) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("the agent still runs after %s", limit)
		return nil
	}
}

func TestEstimate(t *testing.T) {
	const ms = int64(time.Millisecond)
	// The agent's clock reads 100 ms ahead. The first ping was queued 8 ms
	// on its way out; the second went 1 ms each way.
	samples := []sample{
		{t1: 0, t2: 100*ms + 9*ms, t3: 100*ms + 9*ms, t4: 10 * ms},
		{t1: 20 * ms, t2: 121 * ms, t3: 121*ms + ms/2, t4: 22*ms + ms/2},
	}
	c := estimate(samples)
	if c.Offset != 100*time.Millisecond || c.RTT != 2*time.Millisecond || c.Uncertainty != time.Millisecond || c.Pings != 2 {
		t.Fatalf("estimate = %+v, want offset 100ms, rtt 2ms, uncertainty 1ms from the second ping", c)
	}
	if got := estimate(samples[:1]); got.Offset-100*time.Millisecond > got.Uncertainty {
		t.Fatalf("a queued ping's estimate %s ± %s must still bound the true offset", got.Offset, got.Uncertainty)
	}
}

func TestRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (4.5s in a -short run): skipped by -short (make test runs it)")
	}
	tests := []struct {
		name string
		mod  func(*JoinOptions)
		says string
	}{
		{"wrong token", func(o *JoinOptions) { o.Token = "another-token-0123456789" }, "wrong token"},
		{"other version", func(o *JoinOptions) { o.Version = "v2" }, "coordinator and agents must run the same version"},
		{"index out of range", func(o *JoinOptions) { i := 3; o.Index = &i }, "index 3 is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, log := listen(t, "v1")
			accepted := make(chan error, 1)
			go func() {
				_, err := ln.Accept(context.Background(), 1, 1500*time.Millisecond)
				accepted <- err
			}()
			err := within(t, join(ln.Addr(), tt.mod), 5*time.Second)
			if aerr := <-accepted; aerr == nil || !strings.Contains(aerr.Error(), "0 of 1 agents joined") {
				t.Errorf("Accept = %v, want nobody joined", aerr)
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.says) || !strings.Contains(log.String(), tt.says) {
				t.Fatalf("agent: %v; coordinator log %q; want both refused, saying %q", err, log.String(), tt.says)
			}
			if !strings.Contains(log.String(), "refused an agent from 127.0.0.1:") || strings.Contains(log.String(), token) {
				t.Errorf("the coordinator should log the refusal and never the token: %q", log.String())
			}
		})
	}
}

// TestSession: agents join with and without an index, a clock is
// estimated, and a worker (cat, which echoes its stdin) is started,
// written to, read and ended; then a second one is killed; goodbye ends
// the agent with nil.
func TestSession(t *testing.T) {
	ln, _ := listen(t, "v1")
	one := 1
	first := join(ln.Addr(), func(o *JoinOptions) { o.Index = &one })
	second := join(ln.Addr(), nil)
	agents, err := ln.Accept(context.Background(), 2, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if agents[1].want == nil || *agents[1].want != 1 || agents[0].want != nil {
		t.Fatalf("agent 1 should be the one that asked for index 1")
	}
	for _, a := range agents {
		if a.Joined.Pings != joinPings || a.Joined.RTT <= 0 || a.Joined.Uncertainty > 10*time.Millisecond {
			t.Errorf("%s: clock %+v, want %d pings and a round trip", a.Name(), a.Joined, joinPings)
		}
		if a.Local != "127.0.0.1" {
			t.Errorf("%s: reached the coordinator at %q, want 127.0.0.1 (where it listens)", a.Name(), a.Local)
		}
	}
	w, err := agents[0].Start([]byte(`{"config":1}`))
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(w.Output())
	if err := w.Send([]byte(`{"go":2}`)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"config":1}`, `{"go":2}`} {
		if !lines.Scan() || lines.Text() != want {
			t.Fatalf("worker output %q, want %q (%v)", lines.Text(), want, lines.Err())
		}
	}
	w.CloseInput()
	if e := w.Wait(); e.Code != 0 || e.Signal != 0 || e.Lost != nil {
		t.Fatalf("cat ended with %+v, want exit 0", e)
	}
	w, err = agents[0].Start([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	w.Kill() // its output, never read, must not hold up its exit
	if e := w.Wait(); e.Signal != syscall.SIGKILL {
		t.Fatalf("killed worker ended with %+v, want SIGKILL", e)
	}
	for _, a := range agents {
		a.Close()
	}
	for _, done := range []<-chan error{first, second} {
		if err := within(t, done, 5*time.Second); err != nil {
			t.Errorf("agent after goodbye: %v, want nil", err)
		}
	}
}

// TestLostAgent: an agent that goes silent is lost within LostAfter, its
// worker's output ends with that error, and the error names it.
func TestLostAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (3.0s in a -short run): skipped by -short (make test runs it)")
	}
	ln, _ := listen(t, "v1")
	raw, err := net.Dial("tcp", ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c := tls.Client(raw, clientTLS()) // its handshake waits for Accept below
	defer c.Close()
	go func() { // a hand-made agent that answers the handshake and pings, then nothing
		lk := &link{conn: c}
		if _, err := hello(lk, JoinOptions{Addr: ln.Addr(), Token: token, Version: "v1", Host: "mute"}); err != nil {
			return
		}
		for {
			f, err := lk.recv(10 * time.Second)
			if err != nil {
				return
			}
			switch f.Kind {
			case kindPing:
				_ = lk.send(frame{Kind: kindPong, T1: f.T1, T2: time.Now().UnixNano(), T3: time.Now().UnixNano()})
			case kindStart:
				_ = lk.send(frame{Kind: kindStarted, Seq: f.Seq, Pid: 42})
			}
		}
	}()
	a, w := acceptOne(t, ln)
	began := time.Now()
	_, err = io.ReadAll(w.Output())
	if took := time.Since(began); !errors.Is(err, ErrLost) || took > LostAfter+time.Second || !strings.Contains(err.Error(), "agent 0 (mute, ") {
		t.Fatalf("output ended after %s with %v, want the agent named as lost (ErrLost) within %s", took, err, LostAfter+time.Second)
	}
	if e := w.Wait(); !errors.Is(e.Lost, ErrLost) || !errors.Is(a.Err(), ErrLost) {
		t.Errorf("Wait = %+v and Err = %v, want the loss", e, a.Err())
	}
}

// TestLostCoordinator: an agent whose coordinator goes away, by closing
// the connection or by falling silent, ends within LostAfter and says so.
func TestLostCoordinator(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (3.0s in a -short run): skipped by -short (make test runs it)")
	}
	for _, tt := range []struct {
		name string
		lose func(*Agent)
	}{
		{"closed", func(a *Agent) { a.lk.conn.Close() }},
		{"silent", func(a *Agent) { close(a.stop) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ln, _ := listen(t, "v1")
			done := join(ln.Addr(), nil)
			agents, err := ln.Accept(context.Background(), 1, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			began := time.Now()
			tt.lose(agents[0])
			err = within(t, done, LostAfter+2*time.Second)
			if err == nil || !strings.Contains(err.Error(), "lost the coordinator") {
				t.Fatalf("agent ended with %v after %s, want it to have lost the coordinator", err, time.Since(began))
			}
		})
	}
}

func TestCheckToken(t *testing.T) {
	if CheckToken("short") == nil || CheckToken(strings.Repeat("x", MinToken)) != nil {
		t.Fatalf("tokens under %d characters must be refused, and only those", MinToken)
	}
	if _, err := Listen(ListenOptions{Addr: "127.0.0.1:0", Token: "short"}); err == nil {
		t.Fatal("Listen took a short token")
	}
}

func TestListenLoopbackByDefault(t *testing.T) {
	ln, err := Listen(ListenOptions{Addr: ":0", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if host, _, _ := net.SplitHostPort(ln.Addr()); host != "127.0.0.1" {
		t.Fatalf("--listen :0 bound %s, want loopback", host)
	}
}

// TestManInTheMiddle: someone between agent and coordinator who holds
// no token, terminating TLS towards each and copying the bytes, gets
// neither side to accept: the confirmations are bound to each TLS
// session, so the coordinator refuses the relayed agent's and never
// sends its own.
func TestManInTheMiddle(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (1.5s in a -short run): skipped by -short (make test runs it)")
	}
	ln, log := listen(t, "v1")
	cfg, err := serverTLS()
	if err != nil {
		t.Fatal(err)
	}
	mitm, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer mitm.Close()
	go func() {
		in, err := mitm.Accept()
		if err != nil {
			return
		}
		out, err := tls.Dial("tcp", ln.Addr(), clientTLS())
		if err != nil {
			in.Close()
			return
		}
		go func() { _, _ = io.Copy(out, in); out.Close() }()
		_, _ = io.Copy(in, out)
		in.Close()
	}()
	accepted := make(chan error, 1)
	go func() {
		_, err := ln.Accept(context.Background(), 1, 1500*time.Millisecond)
		accepted <- err
	}()
	err = within(t, join(mitm.Addr().String(), nil), 5*time.Second)
	<-accepted
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "wrong token") {
		t.Fatalf("agent through a man in the middle: %v, want it refused", err)
	}
	if !strings.Contains(log.String(), "wrong token") {
		t.Errorf("coordinator log %q: want the relayed agent refused", log.String())
	}
}

// TestStrangerFrameLimit: before proving the token, a peer's frame may
// not exceed maxHandshakeFrame; a larger length is refused unread.
func TestStrangerFrameLimit(t *testing.T) {
	ln, log := listen(t, "v1")
	go func() { _, _ = ln.Accept(context.Background(), 1, 3*time.Second) }()
	raw, err := net.Dial("tcp", ln.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c := tls.Client(raw, clientTLS())
	defer c.Close()
	if err := c.Handshake(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte{0x01, 0x00, 0x00, 0x00}); err != nil { // a 16 MiB frame
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(log.String(), "over the 8192-byte limit") {
		if time.Now().After(deadline) {
			t.Fatalf("coordinator log %q: want the oversized hello refused", log.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRejoin: an agent that leaves while the coordinator still waits for
// others gives its index up, and a new agent asking for it is let in (a
// Kubernetes Job restarting a pod).
func TestRejoin(t *testing.T) {
	ln, log := listen(t, "v1")
	zero := 0
	var first <-chan error
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := JoinOptions{Addr: ln.Addr(), Token: token, Version: "v1", Host: "first", Timeout: 5 * time.Second, Worker: []string{"cat"}, Index: &zero}
	done := make(chan error, 1)
	go func() { done <- Join(ctx, o) }()
	first = done
	accepted := make(chan []*Agent, 1)
	go func() {
		as, _ := ln.Accept(context.Background(), 2, 10*time.Second)
		accepted <- as
	}()
	for !strings.Contains(log.String(), "agent 0 joined") {
		time.Sleep(10 * time.Millisecond)
	}
	cancel() // the first agent's pod goes away
	<-first
	time.Sleep(100 * time.Millisecond)
	second := join(ln.Addr(), func(o *JoinOptions) { o.Index = &zero; o.Host = "second" })
	one := 1
	third := join(ln.Addr(), func(o *JoinOptions) { o.Index = &one })
	as := <-accepted
	if len(as) != 2 || as[0].Host != "second" {
		t.Fatalf("joined %v; log:\n%s", as, log.String())
	}
	for _, a := range as {
		a.Close()
	}
	for _, d := range []<-chan error{second, third} {
		if err := within(t, d, 5*time.Second); err != nil {
			t.Errorf("agent: %v", err)
		}
	}
}
