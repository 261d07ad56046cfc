package agent

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"
)

// Agent is the coordinator's side of one joined agent.
type Agent struct {
	// Index is the agent's place among the run's agents: its worker's
	// process number.
	Index int
	// Host is the name the agent gave (its hostname or pod name), Addr
	// the address it connected from.
	Host, Addr string
	// Local is the coordinator's address as the agent reached it (the IP
	// of this end of its connection): where a worker on the agent reaches
	// what the coordinator serves to other hosts.
	Local string
	// Joined is its clock as estimated when it joined.
	Joined Clock

	want  *int // the index it asked for
	lk    *link
	pongs chan frame
	stop  chan struct{} // closed by Close: stops the heartbeat

	mu      sync.Mutex
	w       *Worker // the worker of the race in progress, if any
	seq     int     // the last worker's number
	lost    error   // why the link broke; nil while it holds
	closing bool
	gone    chan struct{} // closed once the link broke or was closed
}

func newAgent(lk *link, hello frame) *Agent {
	local, _, _ := net.SplitHostPort(lk.conn.LocalAddr().String())
	return &Agent{Host: hello.Host, Addr: lk.conn.RemoteAddr().String(), Local: local, want: hello.Index, lk: lk,
		pongs: make(chan frame, joinPings), stop: make(chan struct{}), gone: make(chan struct{})}
}

// Name names the agent in messages: "agent 2 (pod-x, 10.0.0.7:51234)".
func (a *Agent) Name() string { return fmt.Sprintf("agent %d (%s, %s)", a.Index, a.Host, a.Addr) }

// Remote reports whether the agent joined from another host than the
// coordinator's (not over its loopback).
func (a *Agent) Remote() bool {
	host, _, err := net.SplitHostPort(a.Addr)
	return err != nil || !Loopback(host)
}

// Loopback reports whether host names this host's loopback: "localhost"
// or a loopback address.
func Loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

func (a *Agent) refuse(why string) {
	_ = a.lk.send(frame{Kind: kindRefused, Reason: why})
	a.lk.conn.Close()
}

// serve starts reading the agent's frames and sending it heartbeats.
func (a *Agent) serve() {
	go a.lk.beat(a.stop)
	go a.route()
}

// route hands every frame to whom it is for, until the link breaks.
func (a *Agent) route() {
	for {
		f, err := a.lk.recv(LostAfter)
		if err != nil {
			a.fail(err)
			return
		}
		switch f.Kind {
		case kindPong:
			select {
			case a.pongs <- f:
			default: // nobody asked for it any more
			}
		case kindStarted, kindOut, kindSignaled, kindExited:
			a.mu.Lock()
			w := a.w
			a.mu.Unlock()
			if w != nil && w.seq == f.Seq { // else a worker given up on
				w.take(f)
			}
		}
	}
}

// fail records that the link broke and ends the worker in progress.
func (a *Agent) fail(err error) {
	a.mu.Lock()
	if a.lost != nil {
		a.mu.Unlock()
		return
	}
	if a.closing {
		err = errClosed
	}
	a.lost = lostError{fmt.Errorf("%s %w", a.Name(), err)}
	w := a.w
	a.mu.Unlock()
	close(a.gone)
	a.lk.conn.Close()
	if w != nil {
		w.end(Exit{Lost: a.lost})
	}
}

var errClosed = errors.New("was released by the coordinator")

// ErrLost matches why the link to an agent broke (Agent.Err, and the
// error its worker's Output ends with): nothing more will be heard of the
// agent or its worker. An error a worker's output itself carries (a bad
// line) does not match it.
var ErrLost = errors.New("agent lost")

// lostError is the loss of an agent, as its message says it.
type lostError struct{ error }

func (lostError) Is(target error) bool { return target == ErrLost }
func (e lostError) Unwrap() error      { return e.error }

// Err is why the link to the agent broke, nil while it holds.
func (a *Agent) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lost
}

// Sync estimates the agent's clock from n pings, one after the other.
func (a *Agent) Sync(n int) (Clock, error) {
	samples := make([]sample, 0, n)
	for range n {
		t1 := time.Now().UnixNano()
		if err := a.lk.send(frame{Kind: kindPing, T1: t1}); err != nil {
			return Clock{}, fmt.Errorf("%s: clock ping: %w", a.Name(), err)
		}
		for waiting := true; waiting; {
			select {
			case f := <-a.pongs:
				if f.T1 == t1 { // an older ping's late answer otherwise
					samples, waiting = append(samples, sample{t1, f.T2, f.T3, time.Now().UnixNano()}), false
				}
			case <-a.gone:
				return Clock{}, a.Err()
			case <-time.After(LostAfter):
				return Clock{}, fmt.Errorf("%s did not answer a clock ping within %s", a.Name(), LostAfter)
			}
		}
	}
	return estimate(samples), nil
}

// Start has the agent start a worker process and send it config (one
// line) on its stdin. It returns once the agent said the process runs.
func (a *Agent) Start(config []byte) (*Worker, error) {
	w := &Worker{a: a, out: newQueue(), started: make(chan frame, 1), awaiting: map[int64]chan frame{}, exited: make(chan struct{})}
	a.mu.Lock()
	if a.lost != nil {
		a.mu.Unlock()
		return nil, a.lost
	}
	a.seq++
	w.seq = a.seq
	a.w = w
	a.mu.Unlock()
	if err := a.lk.send(frame{Kind: kindStart, Seq: w.seq, Line: config}); err != nil {
		return nil, fmt.Errorf("%s: start a worker: %w", a.Name(), err)
	}
	select {
	case f := <-w.started:
		w.pid = f.Pid
		return w, nil
	case <-w.exited:
		err := w.exit.Err()
		switch {
		case w.exit.Lost != nil:
			return nil, err // names the agent already
		case err == nil:
			err = errors.New("ended before it started")
		}
		err = fmt.Errorf("worker on %s: %w", a.Name(), err)
		if e := w.exit.Stderr; e != "" {
			err = fmt.Errorf("%w (%s)", err, e)
		}
		return nil, err
	case <-time.After(2 * LostAfter):
		return nil, fmt.Errorf("%s did not start a worker within %s", a.Name(), 2*LostAfter)
	}
}

// Close ends the session: the agent exits once it reads the goodbye.
func (a *Agent) Close() {
	a.mu.Lock()
	a.closing = true
	a.mu.Unlock()
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
	_ = a.lk.send(frame{Kind: kindBye})
	a.lk.conn.Close()
}

// Worker is a worker process an agent started for the coordinator.
type Worker struct {
	a        *Agent
	seq      int // its number among the agent's workers
	out      *queue
	pid      int
	started  chan frame
	sigMu    sync.Mutex           // guards sigN and awaiting
	sigN     int64                // numbers the signal requests; an answer echoes it (T1)
	awaiting map[int64]chan frame // the requests waiting for their answer, by number
	once     sync.Once
	exited   chan struct{}
	exit     Exit
}

// Exit is how a worker an agent started ended.
type Exit struct {
	Code   int
	Signal syscall.Signal // the signal that killed it, 0 if none
	Stderr string         // the end of its stderr
	Lost   error          // set when the agent was lost instead
}

// Err describes how a worker ended badly ("killed by killed", "exit
// status 3", or the agent's loss), nil for exit 0.
func (e Exit) Err() error {
	switch {
	case e.Lost != nil:
		return e.Lost
	case e.Signal != 0:
		return fmt.Errorf("killed by %s", e.Signal)
	case e.Code != 0:
		return fmt.Errorf("exit status %d", e.Code)
	}
	return nil
}

// take handles a frame about this worker.
func (w *Worker) take(f frame) {
	switch f.Kind {
	case kindStarted:
		select {
		case w.started <- f:
		default:
		}
	case kindOut:
		w.out.put(append(f.Line, '\n'))
	case kindSignaled:
		w.sigMu.Lock()
		ch := w.awaiting[f.T1] // nil: a request not awaited, or given up on
		delete(w.awaiting, f.T1)
		w.sigMu.Unlock()
		if ch != nil {
			ch <- f
		}
	case kindExited:
		w.end(Exit{Code: f.Code, Signal: syscall.Signal(f.Sig), Stderr: f.Stderr})
	}
}

func (w *Worker) end(e Exit) {
	w.once.Do(func() {
		w.exit = e
		if e.Lost != nil {
			w.out.close(e.Lost)
		} else {
			w.out.close(io.EOF)
		}
		close(w.exited)
	})
}

// Pid is the worker's process id on its agent's host.
func (w *Worker) Pid() int { return w.pid }

// Output is the worker's stdout, line by line; it ends with the
// agent's loss as its error if the agent was lost.
func (w *Worker) Output() io.Reader { return w.out }

// Send writes line (one JSON value, no newline) to the worker's stdin.
func (w *Worker) Send(line []byte) error {
	return w.a.lk.send(frame{Kind: kindIn, Seq: w.seq, Line: line})
}

// CloseInput closes the worker's stdin.
func (w *Worker) CloseInput() { _ = w.a.lk.send(frame{Kind: kindEOF, Seq: w.seq}) }

// Signal has the agent send sig to the worker and waits for its answer,
// so that a fault that did not strike is not taken for one that did. An
// error says the signal was not sent (the agent could not send it, or the
// worker had ended before it came) or may not have been (the agent was
// lost, or did not answer within LostAfter).
func (w *Worker) Signal(sig syscall.Signal) error {
	answered := make(chan frame, 1)
	n := w.number(answered)
	defer func() {
		w.sigMu.Lock()
		delete(w.awaiting, n)
		w.sigMu.Unlock()
	}()
	if err := w.sendSignal(sig, n); err != nil {
		return err
	}
	select {
	case f := <-answered:
		return w.answer(sig, f)
	case <-w.exited:
		select {
		case f := <-answered: // the agent answers before it reports the worker's end
			return w.answer(sig, f)
		default:
		}
		if w.exit.Lost != nil {
			return w.exit.Lost
		}
		return fmt.Errorf("worker %d on %s had ended before %s reached it", w.pid, w.a.Name(), sig)
	case <-time.After(LostAfter):
		return fmt.Errorf("%s did not answer a signal within %s", w.a.Name(), LostAfter)
	}
}

// Post has the agent send sig to the worker without waiting for its
// answer: for a SIGCONT, which lets a stopped worker go on and whose
// round trip would let it run that much longer.
func (w *Worker) Post(sig syscall.Signal) error {
	return w.sendSignal(sig, w.number(nil))
}

// number numbers a signal request; its answer goes to answered (nil: the
// answer is not awaited).
func (w *Worker) number(answered chan frame) int64 {
	w.sigMu.Lock()
	defer w.sigMu.Unlock()
	w.sigN++
	if answered != nil {
		w.awaiting[w.sigN] = answered
	}
	return w.sigN
}

// sendSignal sends signal request n.
func (w *Worker) sendSignal(sig syscall.Signal, n int64) error {
	if err := w.a.lk.send(frame{Kind: kindSignal, Seq: w.seq, Sig: int(sig), T1: n}); err != nil {
		return fmt.Errorf("%s: signal %s: %w", w.a.Name(), sig, err)
	}
	return nil
}

// answer is the error an agent's answer to a signal request means.
func (w *Worker) answer(sig syscall.Signal, f frame) error {
	if f.Reason != "" {
		return fmt.Errorf("%s could not send %s to worker %d: %s", w.a.Name(), sig, w.pid, f.Reason)
	}
	return nil
}

// Kill has the agent kill the worker.
func (w *Worker) Kill() { _ = w.a.lk.send(frame{Kind: kindKill, Seq: w.seq}) }

// Ended reports whether the worker has ended (or its agent was lost).
func (w *Worker) Ended() bool {
	select {
	case <-w.exited:
		return true
	default:
		return false
	}
}

// Wait waits until the worker ended, or its agent was lost, and says how.
func (w *Worker) Wait() Exit {
	<-w.exited
	w.a.mu.Lock()
	if w.a.w == w {
		w.a.w = nil
	}
	w.a.mu.Unlock()
	return w.exit
}
