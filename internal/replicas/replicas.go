// Package replicas runs the replicas of a user's service that hammer
// races: N copies of one command, each in its own process group on a free
// loopback port, started together and checked ready over HTTP, watched for
// deaths hammer did not cause, and stopped with everything they started.
package replicas

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/childproc"
	"github.com/hammer-load/hammer/internal/proclog"
	"github.com/hammer-load/hammer/internal/procstat"
)

// Spec is how to start one replica.
type Spec struct {
	// Dir is the working directory; Command the argv, run there.
	Dir     string
	Command []string
	// Env returns the environment of replica i listening on port (added
	// to hammer's own).
	Env func(i, port int) []string
	// Ready is the GET path that answers 200 once a replica can serve;
	// ReadyTimeout bounds the wait.
	Ready        string
	ReadyTimeout time.Duration
	// PortEnv names the variable Env gives the port in, for errors.
	PortEnv string
}

// Set is the running replicas of one race.
type Set struct {
	spec Spec
	rs   []*replica
	logs []*proclog.Log // what each replica printed, by index, across restarts

	own owners // which replica holds which connection (Scan, Known)
}

// replica is one started copy of the service.
type replica struct {
	index int
	port  int
	cmd   *exec.Cmd
	log   *proclog.Log  // its index's log
	done  chan struct{} // closed once the process exited and was reaped

	mu      sync.Mutex
	killed  bool   // hammer killed it on purpose (a crash fault, the stop)
	exitErr string // how it ended, once done is closed
	status  int    // its exit status, once done is closed (-1 after a signal)
	deaths  []string
	// strays are the processes terminate found below r outside its
	// process group, which reap kills with it.
	strays []procstat.Proc
}

// Start starts n replicas and waits until every one answers its ready
// path. If one exits or is not ready in time, every replica is stopped and
// the error (a *StartError, with the replicas' logs) says which one and
// why, quoting what it printed last.
func Start(ctx context.Context, spec Spec, n int) (*Set, error) {
	if len(spec.Command) == 0 {
		return nil, errors.New("no command to start the service with")
	}
	s := &Set{spec: spec, rs: make([]*replica, n), logs: make([]*proclog.Log, n), own: newOwners()}
	for i := range s.logs {
		s.logs[i] = proclog.New(LogHead, LogTail)
	}
	errs := make([]error, n)
	// The service's own failure of one replica ends the others' waits:
	// they would only wait out their ready timeout.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if errs[i] = s.startOne(ctx, i); errors.Is(errs[i], ErrService) {
				cancel()
			}
		})
	}
	wg.Wait()
	// The service's own error first, the others may be its symptoms (a
	// replica that binds a port of its own leaves the next one's bind
	// refused, and the first service error interrupts the other waits);
	// among equals, the lowest replica's. Which replica that is depends on
	// which failed first.
	slices.SortStableFunc(errs, func(a, b error) int {
		return rank(a) - rank(b)
	})
	if errs[0] != nil {
		s.Stop()
		return nil, &StartError{Err: errs[0], Logs: s.Logs()}
	}
	return s, nil
}

// portAttempts is how many free ports a replica is tried on: the port is
// free when picked, but another process may bind it before the replica
// does.
const portAttempts = 3

// startOne starts replica i on a free port and waits until it is ready,
// trying another port when it could not bind the one picked. It fills
// slot i of s.rs with the replica (also a failed one, for Stop).
func (s *Set) startOne(ctx context.Context, i int) error {
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return err
		}
		r := &replica{index: i, port: port}
		if err := s.launch(r); err != nil {
			return err
		}
		s.rs[i] = r
		err = s.awaitReady(ctx, r)
		if err == nil || attempt == portAttempts || !portTaken(err) {
			return err
		}
		s.stopOne(r)
	}
}

// portTaken reports whether err says a replica could not bind its port.
func portTaken(err error) bool {
	e := strings.ToLower(err.Error())
	return strings.Contains(e, "address already in use") || strings.Contains(e, "eaddrinuse")
}

// launch starts r's process in its own process group, killed if hammer
// dies.
func (s *Set) launch(r *replica) error {
	path := s.spec.Command[0]
	if lp, err := exec.LookPath(path); err == nil {
		path = lp
	}
	cmd := exec.Command(path, s.spec.Command[1:]...)
	cmd.Dir = s.spec.Dir
	cmd.Env = append(ownEnv(), s.spec.Env(r.index, r.port)...)
	// A child that leaves the group with the output pipes open must not
	// keep hammer waiting for them.
	cmd.WaitDelay = 2 * time.Second
	r.log = s.logs[r.index]
	cmd.Stdout, cmd.Stderr = r.log, r.log
	cmd.SysProcAttr = childproc.Attr(true, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start replica %d (%s): %w", r.index, s.spec.Command[0], err)
	}
	r.log.Note("replica %d started: pid %d, port %d", r.index, cmd.Process.Pid, r.port)
	done := make(chan struct{})
	r.mu.Lock()
	r.cmd, r.done = cmd, done
	r.mu.Unlock()
	go func() {
		err := cmd.Wait()
		r.mu.Lock()
		r.exitErr = "exited"
		if err != nil {
			r.exitErr = err.Error()
		}
		if cmd.ProcessState != nil {
			r.status = cmd.ProcessState.ExitCode()
		}
		if !r.killed {
			r.deaths = append(r.deaths, fmt.Sprintf("replica %d (pid %d) %s%s", r.index, cmd.Process.Pid, r.exitErr, said(r.log)))
		}
		r.mu.Unlock()
		close(done)
	}()
	return nil
}

// pid is the pid (and process group) of r's current process.
func (r *replica) pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cmd.Process.Pid
}

// exited returns what is closed once r's current process has exited.
func (r *replica) exited() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done
}

// exit says how r ended; call only once r.done is closed.
func (r *replica) exit() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exitErr
}

// URLs are the replicas' base URLs, by index.
func (s *Set) URLs() []string {
	out := make([]string, len(s.rs))
	for i, r := range s.rs {
		out[i] = fmt.Sprintf("http://127.0.0.1:%d", r.port)
	}
	return out
}

// Len is how many replicas run.
func (s *Set) Len() int { return len(s.rs) }

// Signal sends sig to replica i's process group and returns its pid.
func (s *Set) Signal(i int, sig syscall.Signal) (int, error) {
	pid := s.rs[i].pid()
	return pid, syscall.Kill(-pid, sig)
}

// Killed marks replica i as killed on purpose, before it is: its death is
// not reported.
func (s *Set) Killed(i int) {
	r := s.rs[i]
	r.mu.Lock()
	r.killed = true
	r.mu.Unlock()
}

// Restart starts replica i again on its port, once its last process is
// gone, and waits until it is ready.
func (s *Set) Restart(ctx context.Context, i int) error {
	r := s.rs[i]
	<-r.exited()
	r.mu.Lock()
	r.killed = false
	r.mu.Unlock()
	if err := s.launch(r); err != nil {
		return err
	}
	return s.awaitReady(ctx, r)
}

// Deaths says which replicas died while hammer did not mean them to.
func (s *Set) Deaths() []string {
	var out []string
	for _, r := range s.rs {
		r.mu.Lock()
		out = append(out, r.deaths...)
		r.mu.Unlock()
	}
	return out
}

// Stop ends every replica and what it started: SIGTERM to each process
// group, SIGKILL to what is left after a grace period.
func (s *Set) Stop() {
	for _, r := range s.rs {
		if r != nil { // a slot whose replica never started
			r.terminate()
		}
	}
	for _, r := range s.rs {
		if r != nil {
			r.reap()
		}
	}
}

// stopOne stops one replica, as Stop does.
func (s *Set) stopOne(r *replica) {
	r.terminate()
	r.reap()
}

// terminate asks r's process group to end, and the processes it started
// that left the group (setsid, a group of their own): a signal to the
// group does not reach them, and they would outlive hammer.
func (r *replica) terminate() {
	r.mu.Lock()
	r.killed = true
	r.mu.Unlock()
	pid := r.pid()
	r.strays = r.strays[:0]
	targets := []int{-pid}
	select {
	case <-r.exited(): // reaped: its PID may be another process's now
	default:
		for _, p := range procstat.Descendants(pid) {
			if p.PGRP != pid {
				r.strays = append(r.strays, p)
				targets = append(targets, p.PID)
			}
		}
	}
	for _, target := range targets {
		_ = syscall.Kill(target, syscall.SIGCONT) // a stopped process cannot handle SIGTERM
		_ = syscall.Kill(target, syscall.SIGTERM)
	}
}

// reap waits up to 3 s for r to end, then kills what is left of its group
// and of the processes that left it.
func (r *replica) reap() {
	select {
	case <-r.exited():
	case <-time.After(3 * time.Second):
	}
	// Children left in the group (a shell's, a runner's) go too.
	_ = syscall.Kill(-r.pid(), syscall.SIGKILL)
	for _, p := range r.strays {
		if procstat.Same(p) { // not a later process given its PID
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
	<-r.exited()
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// said is what a replica printed last that says something, as ": line |
// line", or "".
func said(log *proclog.Log) string {
	if q := log.Quote(QuoteLines); q != "" {
		return ": " + q
	}
	return ""
}

// The size of a replica's log: its first LogHead bytes and its last
// LogTail are kept, the middle of a longer one is cut. 64 KiB at most a
// replica, held until the results folder is saved: 100 replicas in each
// of 10 cells hold 64 MiB at worst; the tail holds some hundreds of lines,
// enough for a crash's stack and what led to it.
const (
	LogHead = 16 << 10
	LogTail = 48 << 10
)

// QuoteLines is the most lines of a replica's log that an error or a
// note quotes.
const QuoteLines = 4

// Logs is what each replica printed, by index, with its last words; call
// it once the replicas stopped.
func (s *Set) Logs() []history.ReplicaLog {
	out := make([]history.ReplicaLog, len(s.logs))
	for i, l := range s.logs {
		text, cut := l.Bytes()
		out[i] = history.ReplicaLog{Replica: i, Written: l.Written(), Cut: cut, Last: l.Last(QuoteLines), Text: text}
	}
	return out
}

// ownEnv is hammer's environment without its own HAMMER_ settings, which
// may hold the URLs, passwords included, of the servers: a replica gets
// only the ones its target file hands it.
func ownEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HAMMER_") {
			out = append(out, kv)
		}
	}
	return out
}
