package agent

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/internal/childproc"
)

// JoinOptions configure an agent.
type JoinOptions struct {
	// Addr is the coordinator's host:port.
	Addr string
	// Token is the shared secret; it never leaves this process.
	Token string
	// Version is this hammer's version; the coordinator's must match.
	Version string
	// Index is the index to ask for (a Kubernetes Indexed Job's), or nil
	// to take the one the coordinator gives.
	Index *int
	// Host names this agent to the coordinator (hostname, pod name).
	Host string
	// Timeout bounds how long the agent keeps dialling a coordinator that
	// does not answer yet.
	Timeout time.Duration
	// Worker is the command line (program first) of one worker process:
	// it reads its configuration and the coordinator's lines on stdin
	// and writes its lines on stdout.
	Worker []string
	// ClockOffset is added to this agent's clock when it answers pings:
	// tests use it to play a host whose clock is off (the worker must be
	// told the same offset). Zero in real use.
	ClockOffset time.Duration
	// Log receives what the agent does, one line at a time.
	Log io.Writer
}

// ErrRefused is the reason Join returns when the coordinator refused the
// agent (wrong token, another version, its index taken).
var ErrRefused = errors.New("refused")

// Join dials the coordinator, proves the token, and then starts the
// worker processes the coordinator asks for, one race after the other,
// until the coordinator says goodbye (nil), refuses it (wrapping
// ErrRefused) or is lost (it sent nothing for LostAfter, or closed the
// connection while a session was open): then the worker is killed.
func Join(ctx context.Context, o JoinOptions) error {
	if err := CheckToken(o.Token); err != nil {
		return err
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	lk, index, err := connect(ctx, o)
	if err != nil {
		return err
	}
	defer lk.conn.Close()
	fmt.Fprintf(o.Log, "hammer agent: joined %s as agent %d\n", o.Addr, index)
	s := &session{o: o, lk: lk}
	stop := make(chan struct{})
	defer close(stop)
	go lk.beat(stop)
	return s.run(ctx)
}

// connect dials the coordinator and proves the token, dialling again
// every half second until o.Timeout passes while nobody listens yet or
// the coordinator closes the connection before the exchange (it is busy
// with strangers), saying so on o.Log once.
func connect(ctx context.Context, o JoinOptions) (*link, int, error) {
	deadline := time.Now().Add(o.Timeout)
	d := tls.Dialer{Config: clientTLS()}
	said := false // that the coordinator does not answer yet
	for {
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		c, err := d.DialContext(dctx, "tcp", o.Addr)
		cancel()
		if err == nil {
			lk := &link{conn: c}
			index, herr := hello(lk, o)
			if herr == nil {
				return lk, index, nil
			}
			c.Close()
			if !errors.Is(herr, errNotServed) {
				return nil, 0, herr
			}
			err = herr
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, 0, fmt.Errorf("no coordinator at %s within --join-timeout %s: %w", o.Addr, o.Timeout, err)
		}
		if !said {
			said = true
			fmt.Fprintf(o.Log, "hammer agent: no coordinator at %s yet (%v); dialling again until --join-timeout %s\n", o.Addr, err, o.Timeout)
		}
		select {
		case <-time.After(500 * time.Millisecond):
		case <-ctx.Done():
		}
	}
}

// errNotServed is wrapped by hello's error when the coordinator closed
// the connection before answering the token exchange.
var errNotServed = errors.New("closed the connection before the token exchange")

// hello proves the token to the coordinator and checks its proof (see
// auth.go), then says who this agent is and returns the index given.
// Nothing about this agent goes out before the coordinator proved it
// holds the token.
func hello(lk *link, o JoinOptions) (int, error) {
	bound, err := binding(lk.conn)
	if err != nil {
		return 0, fmt.Errorf("coordinator at %s: TLS: %w", o.Addr, err)
	}
	ex, err := newExchange(o.Token, roleAgent)
	if err != nil {
		return 0, err
	}
	if err := lk.send(frame{Kind: kindPake, Protocol: Protocol, Pake: ex.share()}); err != nil {
		return 0, fmt.Errorf("coordinator at %s: %w", o.Addr, err)
	}
	f, err := lk.recvMax(handshakeTimeout, maxHandshakeFrame)
	switch {
	case err != nil && !errors.Is(err, errBadFrame): // closed, reset or silent before any frame
		return 0, fmt.Errorf("coordinator at %s %w", o.Addr, errNotServed)
	case err != nil:
		return 0, fmt.Errorf("coordinator at %s %w", o.Addr, err)
	case f.Kind == kindRefused:
		return 0, fmt.Errorf("%w by the coordinator at %s: %q", ErrRefused, o.Addr, f.Reason)
	case f.Kind != kindPake:
		return 0, fmt.Errorf("%w: the coordinator at %s speaks another protocol (it sent %q, protocol %d; this agent speaks %d): coordinator and agents must run the same version",
			ErrRefused, o.Addr, f.Kind, f.Protocol, Protocol)
	}
	key, err := ex.key(f.Pake)
	if err != nil {
		return 0, fmt.Errorf("coordinator at %s: %w", o.Addr, err)
	}
	if err := lk.send(frame{Kind: kindConfirm, Proof: confirmation(key, fromAgent, bound)}); err != nil {
		return 0, fmt.Errorf("coordinator at %s: %w", o.Addr, err)
	}
	if f, err = recvHandshake(lk, o, kindConfirm); err != nil {
		return 0, err
	}
	if !hmac.Equal(f.Proof, confirmation(key, fromCoordinator, bound)) {
		return 0, fmt.Errorf("%w: the coordinator at %s does not hold this token (someone in between?)", ErrRefused, o.Addr)
	}
	if err := lk.send(frame{Kind: kindHello, Protocol: Protocol, Version: o.Version, Index: o.Index, Host: o.Host}); err != nil {
		return 0, fmt.Errorf("coordinator at %s: %w", o.Addr, err)
	}
	if f, err = recvHandshake(lk, o, kindWelcome); err != nil {
		return 0, err
	}
	if f.Index == nil {
		return 0, fmt.Errorf("coordinator at %s: a welcome without an index", o.Addr)
	}
	return *f.Index, nil
}

// recvHandshake reads the coordinator's next handshake frame, which must
// be of kind want; a refusal wraps ErrRefused.
func recvHandshake(lk *link, o JoinOptions, want string) (frame, error) {
	f, err := lk.recvMax(handshakeTimeout, maxHandshakeFrame)
	switch {
	case err != nil:
		return f, fmt.Errorf("coordinator at %s %w", o.Addr, err)
	case f.Kind == kindRefused:
		return f, fmt.Errorf("%w by the coordinator at %s: %q", ErrRefused, o.Addr, f.Reason)
	case f.Kind != want:
		return f, fmt.Errorf("coordinator at %s: expected %s, got %q", o.Addr, want, f.Kind)
	}
	return f, nil
}

// session is an agent's joined connection and its worker of the moment.
type session struct {
	o  JoinOptions
	lk *link
	mu sync.Mutex // guards child
	ch *child
}

// run serves the coordinator's frames until goodbye or loss.
func (s *session) run(ctx context.Context) error {
	defer s.killChild()
	frames := make(chan frame)
	lost := make(chan error, 1)
	done := make(chan struct{})
	defer close(done) // the reader leaves too (Join closes the connection)
	go func() {
		for {
			f, err := s.lk.recv(LostAfter)
			if err != nil {
				lost <- err
				return
			}
			select {
			case frames <- f:
			case <-done:
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-lost:
			return fmt.Errorf("lost the coordinator at %s: it %w", s.o.Addr, err)
		case f := <-frames:
			if f.Kind == kindBye {
				return nil
			}
			if err := s.handle(f); err != nil {
				return err
			}
		}
	}
}

// handle acts on one frame from the coordinator.
func (s *session) handle(f frame) error {
	s.mu.Lock()
	c := s.ch
	s.mu.Unlock()
	if c != nil && c.seq != f.Seq {
		c = nil // a frame for a worker given up on: not this one's
	}
	switch f.Kind {
	case kindPing:
		t2 := time.Now().Add(s.o.ClockOffset).UnixNano()
		return s.lk.send(frame{Kind: kindPong, T1: f.T1, T2: t2, T3: time.Now().Add(s.o.ClockOffset).UnixNano()})
	case kindStart:
		s.killChild()
		return s.start(f.Seq, f.Line)
	case kindIn:
		if c != nil {
			c.write(f.Line)
		}
	case kindEOF:
		if c != nil {
			c.Stdin.Close()
		}
	case kindSignal:
		// An answer that cannot be sent is a link that broke, or one the
		// coordinator closed after its goodbye: the reader tells which.
		if c == nil {
			_ = s.lk.send(frame{Kind: kindSignaled, Seq: f.Seq, T1: f.T1, Reason: "it has no such worker"})
		} else {
			_ = c.signal(s.lk, f)
		}
	case kindKill:
		if c != nil {
			_ = c.Cmd.Process.Kill()
		}
	}
	return nil
}

// child is a worker process the agent started.
type child struct {
	childproc.Piped
	seq int        // its number, which the coordinator's frames for it carry
	mu  sync.Mutex // serialises writes to stdin
	// sigMu keeps a signal and its answer together, ahead of the frame
	// that says the worker ended: a worker a SIGKILL ended is reported
	// killed only after the kill was answered as sent.
	sigMu sync.Mutex
	done  chan struct{}
}

// signal sends the worker the signal f asks for and answers f on lk:
// Reason says why it could not be sent, "" if it was.
func (c *child) signal(lk *link, f frame) error {
	c.sigMu.Lock()
	defer c.sigMu.Unlock()
	why := ""
	if err := c.Cmd.Process.Signal(syscall.Signal(f.Sig)); err != nil {
		why = err.Error()
	}
	return lk.send(frame{Kind: kindSignaled, Seq: f.Seq, T1: f.T1, Reason: why})
}

func (c *child) write(line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.Stdin.Write(append(line, '\n'))
}

// start starts worker seq, hands it config and relays its output.
func (s *session) start(seq int, config []byte) error {
	cmd := exec.Command(s.o.Worker[0], s.o.Worker[1:]...)
	cmd.Env = withoutToken(os.Environ())
	p, err := childproc.StartWorker(cmd)
	if err != nil {
		return s.lk.send(frame{Kind: kindExited, Seq: seq, Code: 127, Stderr: "start worker: " + err.Error()})
	}
	c := &child{Piped: p, seq: seq, done: make(chan struct{})}
	s.mu.Lock()
	s.ch = c
	s.mu.Unlock()
	c.write(config)
	// The relay runs before anything can fail (killChild waits for it),
	// but sends nothing before started has gone out.
	sent := make(chan struct{})
	go s.relay(seq, c, sent)
	err = s.lk.send(frame{Kind: kindStarted, Seq: seq, Pid: c.Cmd.Process.Pid})
	close(sent)
	return err
}

// relay sends the worker's lines to the coordinator, then how it ended,
// once sent is closed.
func (s *session) relay(seq int, c *child, sent <-chan struct{}) {
	defer close(c.done)
	<-sent
	sc := bufio.NewScanner(c.Stdout)
	sc.Buffer(make([]byte, 64*1024), maxFrame)
	for sc.Scan() {
		if s.lk.send(frame{Kind: kindOut, Seq: seq, Line: append([]byte(nil), sc.Bytes()...)}) != nil {
			break // the coordinator is gone; run notices
		}
	}
	_, _ = io.Copy(io.Discard, c.Stdout)
	err := c.Cmd.Wait()
	c.sigMu.Lock() // a signal being answered is answered first
	defer c.sigMu.Unlock()
	f := frame{Kind: kindExited, Seq: seq, Stderr: c.Stderr.Last()}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		f.Code = exit.ExitCode()
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			f.Sig = int(ws.Signal())
		}
	} else if err != nil {
		f.Code = 1
	}
	_ = s.lk.send(f)
}

// withoutToken is env without the shared token: a worker has no use for it.
func withoutToken(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "HAMMER_TOKEN=") {
			out = append(out, kv)
		}
	}
	return out
}

// killChild kills the worker in progress, if any, and waits for it.
func (s *session) killChild() {
	s.mu.Lock()
	c := s.ch
	s.ch = nil
	s.mu.Unlock()
	if c == nil {
		return
	}
	_ = c.Cmd.Process.Kill()
	<-c.done
}

// Hostname is the name an agent gives by default.
func Hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
