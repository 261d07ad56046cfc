package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/health"
	"github.com/hammer-load/hammer/internal/inventory"
	"github.com/hammer-load/hammer/internal/latency"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/scenarios"
)

// Command is how to start a worker process: hammer re-executes itself with a
// hidden subcommand.
type Command struct {
	Path string
	Args []string
}

// Options configure one race.
type Options struct {
	RunID      string // names the run's schema and key prefix; unique per results folder
	Scenario   scenarios.Scenario
	Procs      int
	Goroutines int
	Attempts   int // per goroutine
	Seats      int
	PoolSize   int // PostgreSQL connections per worker process
	RedisURL   string
	PGURL      string
	LockTTL    time.Duration
	LockWait   time.Duration
	// Timeout bounds the race from the go signal to the last record.
	Timeout time.Duration
	// ReadyTimeout bounds how long workers may take to connect and warm up.
	ReadyTimeout time.Duration
	// ReadBackWait is how long the read-back after the race keeps trying
	// while PostgreSQL fails (default 15 s): a server that comes back in
	// time is read, so an oversell it holds is still counted.
	ReadBackWait time.Duration
	Seed         uint64
	Keep         bool // leave the schema and keys in place after the race
	// PauseFor is how long a pause, a stop or injected latency lasts
	// (default three lock TTLs: longer than the lock lives).
	PauseFor time.Duration
	// Managed is the stack when hammer started the servers itself (local),
	// nil otherwise. With it, lock-loss restarts Redis for real (without
	// it, hammer deletes its own lock key only) and failover can run.
	Managed *stack.Stack
	// Plant names a broken variant the worker binary registered (tests only).
	Plant string
	// Rate, if positive, switches to the open model: Rate attempts per
	// second in all, for Duration, each timed from its intended start.
	// Goroutines then caps how many run at once in each process.
	Rate     float64
	Duration time.Duration
	Worker   Command
	// OnAttempt, if set, is called from one goroutine for every record as it arrives.
	OnAttempt func(history.Attempt)
	// OnGo, if set, is called with the worker pids right after the go signal.
	OnGo func(pids []int)
}

// Result is what a race leaves: the run's description (including any
// reason its history is incomplete), every attempt, the ledger and the
// final sector row (nil if it could not be read).
type Result struct {
	Run history.Run
	history.Records
	// Latency holds the histograms the workers recorded, merged.
	Latency *latency.Set
	// Warnings are problems that do not touch the verdict, such as a
	// clean-up that failed and left the run's schema or keys behind.
	Warnings []string
	// Sector is the final sector row (also in Records.Sectors), nil if it
	// could not be read.
	Sector *history.Sector
}

const sectorID = 1

// Contenders is how many attempts the race makes: one per goroutine and
// attempt in the closed model, rate × duration in the open one (copies of
// a request sent twice not counted).
func (o Options) Contenders() int {
	if o.Rate > 0 {
		return history.OpenRequests(o.Rate, o.Duration)
	}
	return o.Procs * o.Goroutines * o.Attempts
}

// Race runs one scenario end to end. An error means the race could not be
// run at all (setup failed); trouble during the race is reported in
// Result.Run.Incomplete instead, so the verdict becomes unknown.
func Race(ctx context.Context, o Options) (res *Result, err error) {
	if o.PauseFor == 0 {
		o.PauseFor = 3 * o.LockTTL
	}
	if o.ReadBackWait == 0 {
		o.ReadBackWait = defaultReadBackWait
	}
	name := o.Scenario.Name
	schema := inventory.SchemaName(o.RunID, name)
	prefix := "hammer:" + o.RunID + ":" + name + ":"
	sector := history.Sector{Run: name, ID: sectorID, Capacity: o.Seats, Available: o.Seats}
	if err = inventory.Create(ctx, o.PGURL, schema, sector); err != nil {
		return nil, err
	}
	if !o.Keep {
		defer func() {
			if cerr := cleanup(o, schema, prefix); cerr != nil && res != nil {
				res.Warnings = append(res.Warnings, cerr.Error())
			}
		}()
	}
	cfg := newWorkerConfig(o, schema, prefix)
	env, err := setUpFaults(ctx, o, &cfg)
	if err != nil {
		return nil, err
	}
	defer env.tearDown(ctx)
	ws, err := startWorkers(ctx, o, cfg)
	if err != nil {
		return nil, err
	}
	defer ws.shutdown()
	if err := ws.awaitReady(ctx, o.ReadyTimeout); err != nil {
		return nil, err
	}
	res = &Result{Run: newRun(o)}
	res.Run.GoAt = ws.release()
	if o.OnGo != nil {
		o.OnGo(ws.pids())
	}
	watch, err := env.watch(o)
	if err != nil {
		return nil, err
	}
	env.startWindow(ctx, o, res.Run.GoAt)
	strikes := &striker{o: o, fleet: ws, lockKey: cfg.LockKey, watchURL: cfg.RedisURL, failover: env.failover, left: len(cfg.Schedule)}
	res.Attempts, res.Faults, res.Latency, res.Run.Incomplete = ws.collect(ctx, o, strikes, watch.Down(), res.Run.GoAt)
	res.Faults = append(res.Faults, strikes.finish()...)
	res.Faults = append(res.Faults, env.windowEvents()...)
	res.Run.Incomplete = append(res.Run.Incomplete, faultGaps(o, len(cfg.Schedule), res.Faults)...)
	if ctx.Err() != nil && !slices.Contains(res.Run.Incomplete, interrupted) {
		res.Run.Incomplete = append(res.Run.Incomplete, interrupted)
	}
	res.Run.Incomplete = append(res.Run.Incomplete, ws.wait()...)
	res.Attempts = fillUnknown(res.Attempts, o, name)
	back := readBack(ctx, o.PGURL, schema, name, o.ReadBackWait)
	res.Run.Outages = watch.Stop()
	res.Sales, res.Sector = back.sales, back.sector
	if back.ledgerErr != nil {
		res.Run.LedgerUnread = back.ledgerErr.Error()
	}
	if back.sectorErr != nil {
		res.Run.Incomplete = append(res.Run.Incomplete, back.sectorErr.Error())
	}
	if res.Sector != nil {
		res.Sectors = []history.Sector{*res.Sector}
	}
	return res, nil
}

// newWorkerConfig is what every worker of the race is told.
func newWorkerConfig(o Options, schema, prefix string) workerConfig {
	return workerConfig{
		Run: o.Scenario.Name, Mode: o.Scenario.Mode, Goroutines: o.Goroutines, Attempts: o.Attempts,
		RedisURL: o.RedisURL, PGURL: o.PGURL, Schema: schema,
		LockKey: prefix + "lock:sector:" + fmt.Sprint(sectorID), Sector: sectorID,
		LockTTL: o.LockTTL, LockWait: o.LockWait, PoolSize: o.PoolSize, Seed: o.Seed,
		Fault: o.Scenario.Fault, Extend: o.Scenario.Extend,
		FenceKey: prefix + "fence:sector:" + fmt.Sprint(sectorID), FaultKey: prefix + "fault:holders",
		Schedule: schedule(o.Scenario.Fault, o.Seed, o.Scenario.Name, o.Seats, o.Contenders()),
		PauseFor: o.PauseFor, Plant: o.Plant,
	}
}

// newRun describes the race in the manifest, with the attempt records it
// must leave per worker: the ones fillUnknown would fill in for all of them.
func newRun(o Options) history.Run {
	perWorker := make([]int, o.Procs)
	for _, a := range fillUnknown(nil, o, o.Scenario.Name) {
		perWorker[a.Proc]++
	}
	return history.Run{
		Name: o.Scenario.Name, Mode: string(o.Scenario.Mode), Procs: o.Procs, Goroutines: o.Goroutines,
		Seats: o.Seats, Expected: o.Scenario.Expected, Fault: string(o.Scenario.Fault),
		LockTTL: int64(o.LockTTL), Extend: o.Scenario.Extend,
		Rate: o.Rate, Duration: int64(o.Duration), RequestsPerWorker: perWorker,
	}
}

// interrupted is the reason a run stopped by Ctrl-C (or SIGTERM) is incomplete.
const interrupted = "run interrupted; workers were killed"

// faultGaps says why a run's fault cannot be taken as having struck: an
// injection failed, or fewer holders were struck than scheduled (the race
// had too few of them). Judging such a run as if the fault had struck
// would call it safe without evidence.
func faultGaps(o Options, scheduled int, events []history.FaultEvent) []string {
	var gaps []string
	for _, e := range events {
		if e.Failed != "" {
			gaps = append(gaps, fmt.Sprintf("fault %s failed: %s", e.Fault, e.Failed))
		}
	}
	if scheduled > 0 && len(events) < scheduled {
		gaps = append(gaps, fmt.Sprintf("fault %s struck %d of the %d lock holders scheduled: the holders it was scheduled for never reached its point",
			o.Scenario.Fault, len(events), scheduled))
	}
	return gaps
}

// defaultReadBackWait is how long the read-back after a race keeps trying
// while PostgreSQL fails, unless Options say otherwise.
const defaultReadBackWait = 15 * time.Second

// readBackResult is what was read back after a race, and what could not be.
type readBackResult struct {
	sales     []history.Sale
	sector    *history.Sector // nil when it could not be read
	ledgerErr error           // set when the ledger could not be read
	sectorErr error
}

// readBack reads the ledger and the final sector row after the race,
// trying again for up to wait while PostgreSQL fails. An interrupted race
// gets one try.
func readBack(ctx context.Context, pgURL, schema, run string, wait time.Duration) readBackResult {
	deadline := time.Now().Add(wait)
	for {
		r := readBackOnce(ctx, pgURL, schema, run)
		err := r.ledgerErr
		if err == nil {
			err = r.sectorErr
		}
		if err == nil || !health.Failure(err) || ctx.Err() != nil || time.Now().After(deadline) {
			return r
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// readBackOnce makes one try at reading the ledger and the sector row.
func readBackOnce(ctx context.Context, pgURL, schema, run string) readBackResult {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	store, err := inventory.Open(ctx, pgURL, schema, 1)
	if err != nil {
		return readBackResult{ledgerErr: fmt.Errorf("read back: %w", err)}
	}
	defer store.Close()
	sales, err := store.Ledger(ctx, run)
	if err != nil {
		return readBackResult{ledgerErr: err}
	}
	sec, err := store.Sector(ctx, run, sectorID)
	if err != nil {
		return readBackResult{sales: sales, sectorErr: err}
	}
	return readBackResult{sales: sales, sector: &sec}
}

// cleanup removes the run's schema and every key under its prefix, and
// nothing else. What it could not remove it reports, naming it.
func cleanup(o Options, schema, prefix string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var errs []error
	if err := inventory.Drop(ctx, o.PGURL, schema); err != nil {
		errs = append(errs, fmt.Errorf("clean-up left schema %s: %w", schema, err))
	}
	opt, err := redis.ParseURL(o.RedisURL)
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		if err := rdb.Del(ctx, iter.Val()).Err(); err != nil {
			errs = append(errs, fmt.Errorf("clean-up left key %s: %w", iter.Val(), err))
		}
	}
	if err := iter.Err(); err != nil {
		errs = append(errs, fmt.Errorf("clean-up could not list keys %s*: %w", prefix, err))
	}
	return errors.Join(errs...)
}

// fillUnknown adds a record with outcome unknown for every attempt that
// never reported, so that a lost worker shows up in the history.
func fillUnknown(got []history.Attempt, o Options, run string) []history.Attempt {
	seen := make(map[string]bool, len(got))
	for _, a := range got {
		seen[attemptKey(&a)] = true
	}
	copies := 1
	if o.Scenario.Fault == scenarios.Duplicate {
		copies = 2
	}
	for _, base := range expectedRequests(o) {
		for try := range copies {
			a := base
			a.Run, a.Mode, a.Try, a.Outcome = run, string(o.Scenario.Mode), try, history.Unknown
			if !seen[attemptKey(&a)] {
				got = append(got, a)
			}
		}
	}
	return got
}

// expectedRequests lists every request the race should make: per
// goroutine in the closed model, per process in the open one.
func expectedRequests(o Options) []history.Attempt {
	var out []history.Attempt
	for p := range o.Procs {
		if o.Rate > 0 {
			for n := range openShare(o, p) {
				out = append(out, history.Attempt{Proc: p, Goroutine: -1, RequestID: OpenRequestID(p, n)})
			}
			continue
		}
		for g := range o.Goroutines {
			for k := range o.Attempts {
				out = append(out, history.Attempt{Proc: p, Goroutine: g, RequestID: RequestID(p, g, k)})
			}
		}
	}
	return out
}

// openShare is how many of the open model's requests process p makes: the
// total (rate × duration) split evenly, the remainder to the first ones.
func openShare(o Options, p int) int {
	total := history.OpenRequests(o.Rate, o.Duration)
	n := total / o.Procs
	if p < total%o.Procs {
		n++
	}
	return n
}

// forProc is the configuration of worker p: in the open model, its share
// of the requests, at its share of the rate, offset so that the workers
// take turns.
func (c workerConfig) forProc(p int, o Options) workerConfig {
	c.Proc = p
	if o.Rate > 0 {
		c.Rate = o.Rate / float64(o.Procs)
		c.Requests = openShare(o, p)
		c.Offset = time.Duration(float64(p) * float64(time.Second) / o.Rate)
	}
	return c
}

// worker is one running worker process.
type worker struct {
	cmd     *exec.Cmd
	stdinMu sync.Mutex // the go signal and resumes may come from two goroutines
	stdin   io.WriteCloser
	stdout  io.Reader
	stderr  *tail
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
		w := &worker{cmd: cmd, stderr: &tail{max: 4096}}
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
				return fmt.Errorf("worker %d exited during start-up: %s", ev.proc, f.ws[ev.proc].stderr.last())
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

// collect gathers attempt records until every worker has finished, the
// timeout passes, a server is reported down or ctx ends, handing strike
// requests to s. It returns the records, the fault events workers reported
// and, if the history is incomplete, why.
func (f *fleet) collect(ctx context.Context, o Options, s *striker, down <-chan history.Outage, goAt int64) ([]history.Attempt, []history.FaultEvent, *latency.Set, []string) {
	var attempts []history.Attempt
	var events []history.FaultEvent
	var incomplete []string
	lat := latency.NewSet()
	shipped := make([]bool, len(f.ws))
	timer := time.NewTimer(o.Timeout + goDelay)
	defer timer.Stop()
	stop := func(why string) {
		incomplete = append(incomplete, why)
		for _, w := range f.ws {
			w.stopped = true
		}
		f.kill()
	}
	for open := len(f.ws); open > 0; {
		select {
		case ev := <-f.events:
			switch {
			case ev.eof:
				open--
				if ev.end != nil && !f.ws[ev.proc].crashed.Load() {
					incomplete = append(incomplete, fmt.Sprintf("worker %d: %v", ev.proc, ev.end))
				}
			case ev.msg.Strike != nil:
				s.handle(ctx, *ev.msg.Strike)
			case ev.msg.Event != nil:
				events = append(events, *ev.msg.Event)
			case ev.msg.Histograms != nil:
				if got, err := latency.Decode(ev.msg.Histograms); err == nil {
					lat.Merge(got)
					shipped[ev.proc] = true
				}
			case ev.msg.Attempt != nil:
				attempts = append(attempts, *ev.msg.Attempt)
				if o.OnAttempt != nil {
					o.OnAttempt(*ev.msg.Attempt)
				}
			case ev.msg.Done:
				f.ws[ev.proc].done = true
			}
		case <-timer.C:
			stop(fmt.Sprintf("run exceeded --timeout %s; workers were killed", o.Timeout))
			timer.Reset(time.Hour)
		case out := <-down:
			stop(fmt.Sprintf("%s stopped answering at %s (%s); the race was stopped at %s, so the attempts still running were not judged",
				out.Server, sinceGo(goAt, out.From), out.Err, sinceGo(goAt, time.Now().UnixNano())))
			down = nil
		case <-ctx.Done():
			stop(interrupted)
			ctx = context.WithoutCancel(ctx)
		}
	}
	// A worker that died (or could not encode) shipped no histograms: record
	// the attempts it did report here, as it would have.
	for _, a := range attempts {
		if !shipped[a.Proc] {
			lat.Observe(a)
		}
	}
	return attempts, events, lat, incomplete
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
			bad = append(bad, fmt.Sprintf("worker %d (pid %d) died: %s%s", p, w.cmd.Process.Pid, why, w.stderr.suffix()))
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

// sinceGo renders instant t as an offset from the go signal, e.g. "+1.5s".
func sinceGo(goAt, t int64) string {
	return fmt.Sprintf("%+.1fs", time.Duration(t-goAt).Seconds())
}

// tail keeps the last bytes a worker wrote to stderr, for error messages.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// Write keeps the last bytes of p.
func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = slices.Clone(t.buf[len(t.buf)-t.max:])
	}
	return len(p), nil
}

// last returns the last non-empty line written.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	return lines[len(lines)-1]
}

func (t *tail) suffix() string {
	if l := t.last(); l != "" {
		return " (" + l + ")"
	}
	return ""
}

var _ io.Writer = (*tail)(nil)
