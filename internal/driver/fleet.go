package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hammer-load/hammer/internal/tail"
)

// worker is one running worker process.
type worker struct {
	cmd     *exec.Cmd
	stdinMu sync.Mutex // the go signal and resumes may come from two goroutines
	stdin   io.WriteCloser
	stdout  io.Reader
	stderr  *tail.Buffer
	done    bool        // sent its done message
	crashed atomic.Bool // killed on purpose by the crash fault
	stopped bool        // killed because the race was stopped (timeout, outage, Ctrl-C); the reason is recorded
}

// fleet is the worker processes of one race and the stream of their output.
type fleet struct {
	ws     []*worker
	events chan event
	quit   chan struct{} // closed on shutdown so that readers stop
}

func startWorkers(ctx context.Context, o Options, cfg workerConfig) (*fleet, error) {
	f := &fleet{events: make(chan event, 1024), quit: make(chan struct{})}
	for p := range o.Procs {
		cmd := exec.Command(o.Worker.Path, o.Worker.Args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		w := &worker{cmd: cmd, stderr: tail.New(4096)}
		cmd.Stderr = w.stderr
		var err error
		if w.stdin, err = cmd.StdinPipe(); err == nil {
			w.stdout, err = cmd.StdoutPipe()
		}
		if err == nil {
			err = cmd.Start()
		}
		if err != nil {
			f.shutdown()
			return nil, fmt.Errorf("start worker %d: %w", p, err)
		}
		f.ws = append(f.ws, w)
		c := cfg.forProc(p, o)
		if err := json.NewEncoder(w.stdin).Encode(c); err != nil {
			f.shutdown()
			return nil, fmt.Errorf("configure worker %d: %w", p, err)
		}
	}
	f.listen()
	return f, nil
}

// event is one line (or the end) of a worker's output.
type event struct {
	proc int
	msg  message
	end  error // set with eof
	eof  bool
}

// listen starts one reader per worker that turns its output into events.
func (f *fleet) listen() {
	for p, w := range f.ws {
		go func() {
			sc := bufio.NewScanner(w.stdout)
			sc.Buffer(make([]byte, 64*1024), 1<<20)
			for sc.Scan() {
				var m message
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					// Keep the pipe flowing so the worker can never block on it.
					_, _ = io.Copy(io.Discard, w.stdout)
					f.emit(event{proc: p, eof: true, end: fmt.Errorf("bad output %q: %w", sc.Text(), err)})
					return
				}
				if !f.emit(event{proc: p, msg: m}) {
					return
				}
			}
			if sc.Err() != nil {
				_, _ = io.Copy(io.Discard, w.stdout)
			}
			f.emit(event{proc: p, eof: true, end: sc.Err()})
		}()
	}
}

func (f *fleet) emit(ev event) bool {
	select {
	case f.events <- ev:
		return true
	case <-f.quit:
		return false
	}
}

// awaitReady waits until every worker reported ready. A worker that fails
// to connect fails the whole race before anything was attempted.
func (f *fleet) awaitReady(ctx context.Context, limit time.Duration) error {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for ready := 0; ready < len(f.ws); {
		select {
		case ev := <-f.events:
			switch {
			case ev.msg.Fatal != "":
				return fmt.Errorf("worker %d: %s", ev.proc, ev.msg.Fatal)
			case ev.eof:
				return fmt.Errorf("worker %d exited during start-up: %s", ev.proc, f.ws[ev.proc].stderr.Last())
			case ev.msg.Ready:
				ready++
			}
		case <-timer.C:
			return fmt.Errorf("workers not ready after %s (connecting and warming up)", limit)
		case <-ctx.Done():
			return fmt.Errorf("interrupted during start-up: %w", ctx.Err())
		}
	}
	return nil
}

// goDelay is how far ahead the shared start instant is set: long enough for
// the go signal to reach every worker before it passes.
const goDelay = 50 * time.Millisecond

// release sends every worker the same start instant and returns it.
func (f *fleet) release() int64 {
	at := time.Now().Add(goDelay).UnixNano()
	for _, w := range f.ws {
		w.stdinMu.Lock()
		// A worker that cannot read its go signal has died; collect notices.
		_ = json.NewEncoder(w.stdin).Encode(goSignal{At: at})
		w.stdinMu.Unlock()
	}
	return at
}

// wait reaps every worker and says which ones did not finish cleanly.
func (f *fleet) wait() []string {
	var bad []string
	for p, w := range f.ws {
		w.stdin.Close()
		err := w.cmd.Wait()
		if w.crashed.Load() || (w.stopped && killedBySignal(err)) {
			continue // killed on purpose; its lost attempts are marked unknown
		}
		if err != nil || !w.done {
			why := "exited before reporting all attempts"
			if err != nil {
				why = err.Error()
			}
			bad = append(bad, fmt.Sprintf("worker %d (pid %d) died: %s%s", p, w.cmd.Process.Pid, why, quote(" (%s)", w.stderr.Last())))
		}
	}
	return bad
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

// kill sends SIGKILL to every worker still running.
func (f *fleet) kill() {
	for _, w := range f.ws {
		if w.cmd.ProcessState == nil {
			_ = w.cmd.Process.Kill()
		}
	}
}

// shutdown kills and reaps every worker not reaped yet and stops the readers.
func (f *fleet) shutdown() {
	f.kill()
	close(f.quit)
	for _, w := range f.ws {
		if w.cmd.ProcessState == nil {
			_ = w.cmd.Wait()
		}
	}
}

func (f *fleet) pids() []int {
	out := make([]int, len(f.ws))
	for i, w := range f.ws {
		out[i] = w.cmd.Process.Pid
	}
	return out
}

// quote formats line with format, or is "" for an empty line.
func quote(format, line string) string {
	if line == "" {
		return ""
	}
	return fmt.Sprintf(format, line)
}
