package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/agent"
	"github.com/hammer-load/hammer/internal/wire"
)

// worker is one running worker process.
type worker struct {
	proc proc
	// clock is the worker's host's clock against the coordinator's (zero
	// for a local worker): its records are moved onto the coordinator's
	// timeline, and its go signal into its own.
	clock agent.Clock
	drift time.Duration // how far clock moved by the end of the race
	done  bool          // sent its done message
	// finished: sent its finished message, or its output ended (gone).
	finished, gone bool
	// realtime: the worker's start was a real-time burst, as its done
	// message says, or, without one, as its ready message announced.
	realtime bool
	// gomaxprocs is the GOMAXPROCS the worker said it races with.
	gomaxprocs int
	crashed    atomic.Bool // killed on purpose by the crash fault
	stopped    bool        // killed because the race was stopped (timeout, outage, Ctrl-C); the reason is recorded
}

// fleet is the worker processes of one race and the stream of their output.
type fleet struct {
	ws     []*worker
	events chan event
	quit   chan struct{} // closed on shutdown so that readers stop
	// wrapped: every worker was told to wrap up (see finish).
	wrapped bool
}

// startWorkers starts the race's workers, as child processes or, with
// agents, one on each agent, and sends each its configuration.
func startWorkers(ctx context.Context, o Options, cfg wire.Config) (*fleet, error) {
	if n := len(o.Agents); n > 0 && n != o.Procs {
		return nil, fmt.Errorf("%d worker processes on %d agents: one each", o.Procs, n)
	}
	f := &fleet{events: make(chan event, 1024), quit: make(chan struct{})}
	for p := range o.Procs {
		w, err := startWorker(o, forProc(cfg, p, o), p)
		if err != nil {
			f.shutdown()
			return nil, err
		}
		f.ws = append(f.ws, w)
	}
	f.listen()
	return f, nil
}

// startWorker starts worker p and configures it.
func startWorker(o Options, c wire.Config, p int) (*worker, error) {
	if len(o.Agents) == 0 {
		l, err := startLocal(o.Worker)
		if err != nil {
			return nil, fmt.Errorf("start worker %d: %w", p, err)
		}
		w := &worker{proc: l}
		if err := l.send(c); err != nil {
			return w, fmt.Errorf("configure worker %d: %w", p, err)
		}
		return w, nil
	}
	a := o.Agents[p]
	c.Coordinator = a.Local
	clk, err := a.Sync(racePings)
	if err != nil {
		return nil, err
	}
	line, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	rw, err := a.Start(line)
	if err != nil {
		return nil, err
	}
	return &worker{proc: remote{a: a, w: rw}, clock: clk}, nil
}

// racePings is how many pings estimate an agent's clock again before
// each race: clocks drift, and a gate runs for minutes.
const racePings = 4

// event is one line (or the end) of a worker's output.
type event struct {
	proc int
	msg  wire.Message
	end  error // set with eof
	eof  bool
}

// listen starts one reader per worker that turns its output into events,
// moving the records of a worker on another host onto this one's clock.
func (f *fleet) listen() {
	for p, w := range f.ws {
		go func() {
			out := w.proc.output()
			sc := bufio.NewScanner(out)
			sc.Buffer(make([]byte, 64*1024), 1<<20)
			for sc.Scan() {
				var m wire.Message
				if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
					// Keep the pipe flowing so the worker can never block on it.
					_, _ = io.Copy(io.Discard, out)
					f.emit(event{proc: p, eof: true, end: fmt.Errorf("bad output %q: %w", sc.Text(), err)})
					return
				}
				m.Shift(-int64(w.clock.Offset))
				if !f.emit(event{proc: p, msg: m}) {
					return
				}
			}
			if sc.Err() != nil {
				_, _ = io.Copy(io.Discard, out)
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
func (f *fleet) awaitReady(ctx context.Context, limit time.Duration, down <-chan history.Outage) error {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for ready := 0; ready < len(f.ws); {
		select {
		case ev := <-f.events:
			switch {
			case ev.msg.Fatal != "":
				return fmt.Errorf("%s: %s", f.Name(ev.proc), ev.msg.Fatal)
			case ev.eof:
				return fmt.Errorf("%s exited during start-up: %s", f.Name(ev.proc), startupFailure(f.ws[ev.proc], ev.end))
			case ev.msg.Ready:
				ready++
				f.ws[ev.proc].realtime = ev.msg.Realtime
				f.ws[ev.proc].gomaxprocs = ev.msg.GoMaxProcs
			}
		case <-timer.C:
			return fmt.Errorf("workers not ready after %s (connecting and warming up)", limit)
		case out := <-down:
			err := errPostgresDown
			if out.Server == history.ServerRedis {
				err = errRedisDown
			}
			return fmt.Errorf("%w while the workers set up (%s)", err, out.Err)
		case <-ctx.Done():
			return fmt.Errorf("interrupted during start-up: %w", ctx.Err())
		}
	}
	return nil
}

// startupFailure is what is known of why w ended before it was ready.
func startupFailure(w *worker, end error) string {
	if end != nil {
		return end.Error()
	}
	return w.proc.lastErr()
}

// Errors of a set-up a server stopped answering during.
var (
	errRedisDown    = errors.New("redis stopped answering")
	errPostgresDown = errors.New("postgresql stopped answering")
)

// goDelay is how far ahead the shared start instant is set: long enough for
// the go signal to reach every worker before it passes. Workers on agents
// get two of the slowest round trips more.
const goDelay = 50 * time.Millisecond

// release sends every worker the same start instant, each on its own
// host's clock, and returns it on this one's.
func (f *fleet) release() int64 {
	delay := goDelay
	for _, w := range f.ws {
		delay = max(delay, goDelay+2*w.clock.RTT)
	}
	at := time.Now().Add(delay).UnixNano()
	for _, w := range f.ws {
		// A worker that cannot read its go signal has died; collect notices.
		_ = w.proc.send(wire.GoSignal{At: at + int64(w.clock.Offset)})
	}
	return at
}

// goMaxProcs is the largest GOMAXPROCS a worker raced with.
func (f *fleet) goMaxProcs() int {
	n := 0
	for _, w := range f.ws {
		n = max(n, w.gomaxprocs)
	}
	return n
}

// realtimeWorkers counts the workers whose start was a real-time burst.
func (f *fleet) realtimeWorkers() int {
	n := 0
	for _, w := range f.ws {
		if w.realtime {
			n++
		}
	}
	return n
}

// finish notes that worker p has finished its attempts (or its output
// ended); once every worker has, it tells those whose output goes on to
// wrap up (see worker.Main's finish line). A worker that cannot be told is
// left to the race's timeout and the shipping of a stopped race, like one
// that does not answer.
func (f *fleet) finish(p int) {
	f.ws[p].finished = true
	if f.wrapped {
		return
	}
	for _, w := range f.ws {
		if !w.finished {
			return
		}
	}
	f.wrapped = true
	for _, w := range f.ws {
		if !w.gone {
			_ = w.proc.send(wire.Control{Wrap: true})
		}
	}
}

// wait reaps every worker and says which ones did not finish cleanly.
func (f *fleet) wait() []string {
	var bad []string
	for p, w := range f.ws {
		w.proc.closeInput()
		killed, err := w.proc.wait()
		if w.crashed.Load() || (w.stopped && killed) {
			continue // killed on purpose; its lost attempts are marked unknown
		}
		if err != nil || !w.done {
			why := "exited before reporting all attempts"
			if err != nil {
				why = err.Error()
			}
			bad = append(bad, fmt.Sprintf("%s (pid %d) died: %s%s", f.Name(p), w.proc.pid(), why, quote(" (%s)", w.proc.lastErr())))
		}
	}
	return bad
}

// kill sends SIGKILL to every worker still running.
func (f *fleet) kill() {
	for _, w := range f.ws {
		w.proc.kill()
	}
}

// shutdown kills and reaps every worker not reaped yet and stops the readers.
func (f *fleet) shutdown() {
	f.kill()
	close(f.quit)
	for _, w := range f.ws {
		if !w.proc.ended() {
			_, _ = w.proc.wait()
		}
	}
}

func (f *fleet) pids() []int {
	out := make([]int, len(f.ws))
	for i, w := range f.ws {
		out[i] = w.proc.pid()
	}
	return out
}

// resync estimates the agents' clocks again once the race is over: how
// far each moved (its drift) counts as uncertainty of the race's instants.
// An agent lost meanwhile answers nothing and keeps no drift.
func (f *fleet) resync(o Options) {
	if len(o.Agents) == 0 {
		return
	}
	for i, w := range f.ws {
		if after, err := o.Agents[i].Sync(racePings); err == nil {
			w.drift = (after.Offset - w.clock.Offset).Abs()
		}
	}
}

// agents describes the agents the race ran on; nil without agents.
func (f *fleet) agents(o Options) []history.Agent {
	if len(o.Agents) == 0 {
		return nil
	}
	out := make([]history.Agent, len(f.ws))
	for i, w := range f.ws {
		a := o.Agents[i]
		out[i] = history.Agent{Index: a.Index, Host: a.Host, Addr: a.Addr, Offset: int64(w.clock.Offset),
			Uncertainty: int64(w.clock.Uncertainty), RTT: int64(w.clock.RTT), Drift: int64(w.drift)}
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
