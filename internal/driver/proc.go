package driver

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"sync"
	"syscall"

	"github.com/hammer-load/hammer/internal/agent"
	"github.com/hammer-load/hammer/internal/childproc"
)

// proc is one worker process as the coordinator sees it: a child of this
// process, or one an agent started on its host.
type proc interface {
	// send writes v as one JSON line to the worker's stdin.
	send(v any) error
	closeInput()
	// output is the worker's stdout; it ends with an error when the
	// worker could not be heard to its end (its agent was lost).
	output() io.Reader
	signal(sig syscall.Signal) (pid int, err error)
	kill()
	// wait reaps the worker: killed tells that SIGKILL (or, on an agent,
	// the agent's loss) ended it, err any way it ended badly.
	wait() (killed bool, err error)
	ended() bool
	pid() int
	// where names the worker's host in messages ("" for this one).
	where() string
	lastErr() string // the end of its stderr
}

// local is a worker process started by this process; a killed
// coordinator leaves none behind.
type local struct {
	childproc.Piped
	stdinMu sync.Mutex // the go signal and resumes may come from two goroutines
}

func startLocal(c Command) (*local, error) {
	p, err := childproc.StartWorker(exec.Command(c.Path, c.Args...))
	return &local{Piped: p}, err
}

func (l *local) send(v any) error {
	l.stdinMu.Lock()
	defer l.stdinMu.Unlock()
	return json.NewEncoder(l.Stdin).Encode(v)
}

func (l *local) closeInput()       { l.Stdin.Close() }
func (l *local) output() io.Reader { return l.Stdout }
func (l *local) pid() int          { return l.Cmd.Process.Pid }
func (l *local) where() string     { return "" }
func (l *local) lastErr() string   { return l.Stderr.Last() }
func (l *local) ended() bool       { return l.Cmd.ProcessState != nil }

func (l *local) signal(sig syscall.Signal) (int, error) {
	return l.pid(), syscall.Kill(l.pid(), sig)
}

func (l *local) kill() {
	if !l.ended() {
		_ = l.Cmd.Process.Kill()
	}
}

func (l *local) wait() (bool, error) {
	err := l.Cmd.Wait()
	return killedBySignal(err), err
}

// killedBySignal reports whether a worker's exit was a SIGKILL.
func killedBySignal(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// remote is a worker process an agent started on its host.
type remote struct {
	a *agent.Agent
	w *agent.Worker
}

func (r remote) send(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return r.w.Send(line)
}

func (r remote) closeInput()       { r.w.CloseInput() }
func (r remote) output() io.Reader { return r.w.Output() }
func (r remote) pid() int          { return r.w.Pid() }
func (r remote) where() string     { return r.a.Name() }
func (r remote) ended() bool       { return r.w.Ended() }

func (r remote) lastErr() string {
	if !r.w.Ended() {
		return ""
	}
	return r.w.Wait().Stderr
}

// signal has the agent send sig and waits for its answer, except for
// SIGCONT: a watched holder is let run 50 µs between two looks, and a round
// trip more would let it through its sale. A SIGCONT that was not sent
// leaves the worker stopped, which the race's timeout ends as unknown.
func (r remote) signal(sig syscall.Signal) (int, error) {
	if sig == syscall.SIGCONT {
		return r.pid(), r.w.Post(sig)
	}
	return r.pid(), r.w.Signal(sig)
}

func (r remote) kill() {
	if !r.w.Ended() {
		r.w.Kill()
	}
}

func (r remote) wait() (bool, error) {
	e := r.w.Wait()
	return e.Lost != nil || e.Signal == syscall.SIGKILL, e.Err()
}
