package driver

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/fault"
	"github.com/hammer-load/hammer/internal/inventory"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/latency"
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
			switch cerr := cleanup(o, schema, prefix); {
			case cerr == nil:
			case res != nil:
				res.Warnings = append(res.Warnings, cerr.Error())
			case err != nil: // set-up failed: say what it left behind too
				err = fmt.Errorf("%w; %w", err, cerr)
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
	watch, err := env.watch(o)
	if err != nil {
		return nil, err
	}
	res = &Result{Run: newRun(o)}
	res.Run.GoAt = ws.release()
	if o.OnGo != nil {
		o.OnGo(ws.pids())
	}
	env.startWindow(ctx, o, res.Run.GoAt)
	strikes := &striker{o: o, fault: env.fault, coord: env.coordinator(o, ws, cfg.LockKey), fleet: ws, left: len(cfg.Schedule)}
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
		Schedule: fault.Schedule(o.Scenario.Fault, o.Seed, o.Scenario.Name, o.Seats, o.Contenders()),
		PauseFor: o.PauseFor, Plant: o.Plant,
	}
}

// newRun describes the race in the manifest, with the attempt records it
// must leave per worker: every copy of every request it makes.
func newRun(o Options) history.Run {
	perWorker := make([]int, o.Procs)
	for p := range perWorker {
		perWorker[p] = o.Scenario.Fault.Copies() * o.Goroutines * o.Attempts
		if o.Rate > 0 {
			perWorker[p] = o.Scenario.Fault.Copies() * openShare(o, p)
		}
	}
	return history.Run{
		Name: o.Scenario.Name, Mode: o.Scenario.Mode, Procs: o.Procs, Goroutines: o.Goroutines,
		Seats: o.Seats, Expected: o.Scenario.Expected, Fault: o.Scenario.Fault,
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

// fillUnknown adds a record with outcome unknown for every attempt that
// never reported, so that a lost worker shows up in the history.
func fillUnknown(got []history.Attempt, o Options, run string) []history.Attempt {
	seen := make(map[string]bool, len(got))
	for _, a := range got {
		seen[attemptKey(&a)] = true
	}
	for _, base := range expectedRequests(o) {
		for try := range o.Scenario.Fault.Copies() {
			a := base
			a.Run, a.Mode, a.Try, a.Outcome = run, o.Scenario.Mode, try, history.Unknown
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
