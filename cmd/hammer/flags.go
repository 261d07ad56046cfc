package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/target"
	"github.com/hammer-load/hammer/scenarios"
)

// raceFlags are the flags shared by run, load and gate.
type raceFlags struct {
	procs, goroutines, attempts, seats, pool int
	redisPool                                int // Redis connections per worker process
	// redisNodes is how many independent Redis nodes the lock is taken on
	// (a Redlock when more than one).
	redisNodes int
	// lockTTL is the TTL every race uses when --lock-ttl is given; 0
	// chooses per race (ttlFor).
	lockTTL time.Duration
	// faultTTL is the TTL of races whose fault needs the lock to expire,
	// when --lock-ttl is not given; it also sets how long faults last.
	faultTTL          time.Duration
	lockWait, timeout time.Duration
	rate              float64       // open model (run only)
	duration          time.Duration // open model (run only)
	seed              uint64
	out, stackKind    string
	redisURL, pgURL   string
	// redisFrom and pgFrom say where the URLs came from, for messages:
	// the flag or the environment variable.
	redisFrom, pgFrom string
	keep, quiet       bool
	soldOutHint       bool
	realtimeStart     bool // the workers' start is a real-time burst where they may
	// lockArg is --lock as given, lock the lock it names.
	lockArg    string
	lock       scenarios.Lock
	lockTTLSet bool // --lock-ttl was given
	target     targetFlags
	agents     agentFlags
	live       liveFlags
	otlp       otlpFlags
}

// loadDefaults are the sizes of `run` and `load`: 4 × 250 contenders for
// 100 seats; faults that expire the lock do it with a 500 ms TTL.
func loadDefaults() raceFlags {
	return raceFlags{procs: 4, goroutines: 250, attempts: 1, seats: 100, pool: 16, redisPool: driver.DefaultRedisPool,
		faultTTL: 500 * time.Millisecond, lockWait: time.Minute, timeout: 5 * time.Minute}
}

// gateDefaults size a gate cell to run in about a second: 2 × 50 contenders
// for 20 seats, with a fault TTL short enough that faults outlive it quickly.
func gateDefaults() raceFlags {
	return raceFlags{procs: 2, goroutines: 50, attempts: 1, seats: 20, pool: 8, redisPool: driver.DefaultRedisPool,
		faultTTL: 150 * time.Millisecond, lockWait: 5 * time.Second, timeout: time.Minute}
}

// register defines the flags on fs with d's values as defaults.
func (f *raceFlags) register(fs *flag.FlagSet, d raceFlags) {
	f.faultTTL = d.faultTTL
	fs.IntVar(&f.procs, "procs", d.procs, "worker `processes`")
	fs.IntVar(&f.goroutines, "goroutines", d.goroutines, "contending `goroutines` per process")
	fs.IntVar(&f.attempts, "attempts", d.attempts, "`attempts` per goroutine")
	fs.IntVar(&f.seats, "seats", d.seats, "`seats` in the sector (skip-locked, which makes a row per seat: at most 10000000)")
	fs.IntVar(&f.pool, "pool", d.pool, "PostgreSQL `connections` per worker process")
	fs.IntVar(&f.redisPool, "redis-pool", d.redisPool, "Redis `connections` per worker process, shared by its goroutines")
	fs.DurationVar(&f.lockTTL, "lock-ttl", 0, fmt.Sprintf("lock `TTL` of every race (default %s, or %s under a fault that needs the lock to expire)",
		scenarios.StallProofTTL, d.faultTTL))
	fs.DurationVar(&f.lockWait, "lock-wait", d.lockWait, "how long a contender waits for the lock before giving up")
	fs.DurationVar(&f.timeout, "timeout", d.timeout, "longest a race may take; past it the verdict is unknown")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for every random choice (0 picks one and records it)")
	fs.StringVar(&f.out, "out", "", "results `folder` (default results/<run-id>)")
	fs.StringVar(&f.stackKind, "stack", "auto", "where Redis and PostgreSQL come from: auto, external, docker or local")
	// The URLs' defaults are read after parsing, so that usage text never
	// shows them: they may hold passwords.
	fs.StringVar(&f.redisURL, "redis-url", "", "Redis `URL` of an external stack, or one per node separated by commas with --redis-nodes (default $"+envRedisURL+")")
	fs.IntVar(&f.redisNodes, "redis-nodes", 1, "independent Redis `nodes` the lock is taken on: more than one (odd) makes it a Redlock over a majority of them; "+
		"the local stack starts them, an external one takes one --redis-url each")
	fs.StringVar(&f.pgURL, "pg-url", "", "PostgreSQL `URL` of an external stack (default $"+envPGURL+")")
	fs.BoolVar(&f.soldOutHint, "sold-out-hint", true, "lock waiters answer \"sold out\" once anyone was told so by the database, "+
		"instead of queueing for the lock (--sold-out-hint=false: queue anyway)")
	fs.StringVar(&f.lockArg, "lock", string(scenarios.HammerLock), "`lock` of the modes with a lock: "+lockNames(" or ")+
		" (a library races lock-only and lock-plus-update; fenced needs hammer's fencing tokens)")
	fs.BoolVar(&f.realtimeStart, "realtime-start", true, "closed model: run each worker's threads as SCHED_FIFO from 5 ms before the go instant until all its contenders have started "+
		"(at most 55 ms, plus 20 µs for each of its contenders), where it may (Linux, CAP_SYS_NICE, real-time throttling on), so that they start together "+
		"(--realtime-start=false: ordinary scheduling)")
	fs.BoolVar(&f.keep, "keep", false, "keep the run's schema and Redis keys instead of removing them (not with --stack local or docker, whose servers go)")
	fs.BoolVar(&f.quiet, "quiet", false, "print no progress: only the verdict table, its violations and where the results are")
	f.target.register(fs)
	f.agents.register(fs)
	f.live.register(fs)
	f.otlp.register(fs)
}

// maxSeatRows bounds the seat rows a mode that keeps one per seat
// (skip-locked) makes before its race: --seats 2000000000 had written
// 2.2 GB within 25 s and would have gone on until the disk was full.
const maxSeatRows = 10_000_000

// Environment variables that name the servers of an external stack when
// --redis-url and --pg-url are not given.
const (
	envRedisURL = "HAMMER_REDIS_URL"
	envPGURL    = "HAMMER_PG_URL"
)

// parse parses args with the package's parse, notes which flags were
// given, and takes the URLs not given as flags from the environment.
func (f *raceFlags) parse(fs *flag.FlagSet, args []string, io stdio) (int, bool) {
	if code, ok := parse(fs, args, io); !ok {
		return code, false
	}
	f.lockTTLSet = isSet(fs, "lock-ttl")
	lock, err := scenarios.ParseLock(f.lockArg)
	if err != nil {
		return usageError(io, command(fs), "--lock: %v", err), false
	}
	f.lock = lock
	f.redisFrom, f.pgFrom = "--redis-url", "--pg-url"
	if !isSet(fs, "redis-url") {
		f.redisURL, f.redisFrom = os.Getenv(envRedisURL), "$"+envRedisURL
	}
	if !isSet(fs, "pg-url") {
		f.pgURL, f.pgFrom = os.Getenv(envPGURL), "$"+envPGURL
	}
	if f.target.path == "" && isSet(fs, "replicas") {
		return usageError(io, command(fs), "--replicas goes with --target"), false
	}
	if isSet(fs, "attempts") && (isSet(fs, "rate") || isSet(fs, "duration")) {
		return usageError(io, command(fs), "--attempts goes with the closed model: with --rate and --duration each request is one attempt"), false
	}
	if kind, _ := stack.ParseKind(f.stackKind); f.keep && (kind == stack.Local || kind == stack.Docker) {
		return usageError(io, command(fs), "--keep keeps the run's schema and keys on servers that outlive hammer, and the %s stack's are removed when it exits: use --stack external", kind), false
	}
	if err := f.target.load(); err != nil {
		return usageError(io, command(fs), "%v", err), false
	}
	if err := f.agents.check(fs, f); err != nil {
		return usageError(io, command(fs), "%v", err), false
	}
	return 0, true
}

// isSet reports whether the flag was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// ttlFor is the lock TTL of a race under fault: --lock-ttl, or the fault's own.
func (f *raceFlags) ttlFor(fault scenarios.Fault) time.Duration {
	if f.lockTTLSet {
		return f.lockTTL
	}
	return fault.LockTTL(f.faultTTL)
}

// pauseFor is how long a pause, a stop, injected latency or a network
// fault lasts under fault: three lock TTLs when the fault works by
// expiring the lock, three fault TTLs otherwise.
func (f *raceFlags) pauseFor(fault scenarios.Fault) time.Duration {
	if fault.ExpiresLock() || f.lockTTLSet {
		return 3 * f.ttlFor(fault)
	}
	return 3 * f.faultTTL
}

// options are the driver options of scenario sc, but for what only a
// running stack and the command know (run id, servers, worker, progress).
func (f *raceFlags) options(sc scenarios.Scenario) driver.Options {
	sc.NoHint = sc.NoHint || !f.soldOutHint
	sc = f.withNodes(sc)
	o := driver.Options{
		Scenario: sc,
		Procs:    f.procs, Goroutines: f.goroutines, Attempts: f.attempts, Seats: f.seats, PoolSize: f.pool, RedisPool: f.redisPool,
		LockTTL: f.ttlFor(sc.Fault), PauseFor: f.pauseFor(sc.Fault), LockWait: f.lockWait,
		Timeout: f.timeout, ReadyTimeout: time.Minute,
		Rate: f.rate, Duration: f.duration, Seed: f.seed, Keep: f.keep, OrdinaryStart: !f.realtimeStart,
	}
	if t := f.target.file; t != nil {
		v, _ := t.Variant(string(sc.Mode)) // the cells were made of its variants
		o.Backend, o.Contender = target.NewBackend(t, v, f.target.replicas, f.seats), target.Kind
		o.OwnRedis = t.FixedKeys(v)
	}
	return o
}

// maxReplicas is the most copies of a --target service hammer starts:
// each is a process on this host with its own port and pools.
const maxReplicas = 100

// minDuration is the shortest TTL, wait or timeout hammer accepts: Redis
// counts TTLs in milliseconds.
const minDuration = time.Millisecond

// check validates the flags for the scenarios they will race, before
// anything is started; the error reads as one line.
func (f *raceFlags) check(scns []scenarios.Scenario) error {
	for _, c := range []struct {
		name string
		v    int
	}{{"procs", f.procs}, {"goroutines", f.goroutines}, {"attempts", f.attempts}, {"seats", f.seats}, {"pool", f.pool}, {"redis-pool", f.redisPool}} {
		if c.v <= 0 {
			return fmt.Errorf("--%s must be at least 1, got %d", c.name, c.v)
		}
	}
	if f.seats > math.MaxInt32 {
		return fmt.Errorf("--seats %d is more than a sector holds (its counters are PostgreSQL integers: at most %d)", f.seats, math.MaxInt32)
	}
	for _, sc := range scns {
		if sc.Mode.SeatRows() && f.seats > maxSeatRows {
			return fmt.Errorf("--seats %d: %s makes one PostgreSQL row per seat before the race, and hammer makes at most %d",
				f.seats, sc.Mode, maxSeatRows)
		}
	}
	if n := float64(f.procs) * float64(f.goroutines) * float64(f.attempts); n > math.MaxInt32 {
		procs := "--procs" // with agents, one worker on each
		if f.agents.n > 0 {
			procs = "--agents"
		}
		return fmt.Errorf("%s %d × --goroutines %d × --attempts %d makes %.3g attempts; hammer records at most %d per race",
			procs, f.procs, f.goroutines, f.attempts, n, math.MaxInt32)
	}
	if f.lockTTLSet && f.lockTTL < minDuration {
		return fmt.Errorf("--lock-ttl must be at least %s (Redis counts TTLs in milliseconds), got %s", minDuration, f.lockTTL)
	}
	for _, c := range []struct {
		name string
		v    time.Duration
	}{{"lock-wait", f.lockWait}, {"timeout", f.timeout}} {
		if c.v < minDuration {
			return fmt.Errorf("--%s must be at least %s, got %s", c.name, minDuration, c.v)
		}
	}
	if err := f.checkOpenModel(); err != nil {
		return err
	}
	if err := f.live.check(); err != nil {
		return err
	}
	if err := f.otlp.check(f.target.file != nil); err != nil {
		return err
	}
	if _, err := stack.ParseKind(f.stackKind); err != nil {
		return err
	}
	if err := f.checkURLs(); err != nil {
		return err
	}
	if err := f.checkNodes(scns); err != nil {
		return err
	}
	for _, sc := range scns {
		if err := f.checkFault(sc.Fault); err != nil {
			return err
		}
		if err := f.checkControl(sc); err != nil {
			return err
		}
	}
	if err := f.target.check(scns); err != nil {
		return err // a fault the service cannot take, before how long it lasts
	}
	if t := f.target.file; t != nil && t.Service != nil && f.target.replicas > maxReplicas {
		return fmt.Errorf("--replicas %d is more than the %d copies of the service hammer starts on one host", f.target.replicas, maxReplicas)
	}
	for _, sc := range scns {
		if err := f.checkLasts(sc.Fault); err != nil {
			return err
		}
	}
	return nil
}

// checkOpenModel validates --rate and --duration.
func (f *raceFlags) checkOpenModel() error {
	if f.rate == 0 && f.duration == 0 {
		return nil
	}
	switch {
	case math.IsNaN(f.rate) || math.IsInf(f.rate, 0) || f.rate <= 0 || f.duration <= 0:
		return fmt.Errorf("--rate and --duration go together: a positive finite rate and a positive duration (got --rate %v --duration %s)", f.rate, f.duration)
	case f.duration >= f.timeout:
		return fmt.Errorf("--duration %s must be shorter than --timeout %s", f.duration, f.timeout)
	case f.rate*f.duration.Seconds() > math.MaxInt32:
		return fmt.Errorf("--rate %g for --duration %s makes %.3g requests; hammer records at most %d per race", f.rate, f.duration, f.rate*f.duration.Seconds(), math.MaxInt32)
	case history.OpenRequests(f.rate, f.duration) < 1:
		return fmt.Errorf("--rate %g for --duration %s makes no request at all", f.rate, f.duration)
	}
	return nil
}

// checkFault checks that the race can show fault: enough processes for a
// process fault, enough contenders and seats for its strikes.
func (f *raceFlags) checkFault(fault scenarios.Fault) error {
	if n := fault.NeedsProcs(); f.procs < n && f.target.file == nil {
		return fmt.Errorf("the %s fault needs --procs %d or more (another process must go on racing)", fault, n)
	}
	contenders := f.procs * f.goroutines * f.attempts
	if f.rate > 0 {
		contenders = history.OpenRequests(f.rate, f.duration)
	}
	if need := fault.MinHolders(); min(contenders, f.seats) < need {
		return fmt.Errorf("the %s fault strikes %d chosen lock %s and needs at least %d contenders and %d seats (got %d contenders, %d seats)",
			fault, fault.Strikes(), plural(fault.Strikes(), "holder", "holders"), need, need, contenders, f.seats)
	}
	return nil
}

// checkControl refuses a negative control (a run expected unsafe) that
// cannot race: one contender of the closed model, whose attempts follow
// one another, never meets another, so it could only ever end "detection
// lost".
func (f *raceFlags) checkControl(sc scenarios.Scenario) error {
	if sc.Expected != scenarios.Unsafe || f.rate > 0 || f.procs*f.goroutines*sc.Fault.Copies() >= 2 {
		return nil
	}
	return fmt.Errorf("%s is expected unsafe, but 1 contender cannot race anyone: a negative control needs at least 2 (--procs × --goroutines)", sc.Name)
}

// checkLasts checks that --timeout is longer than fault may last.
func (f *raceFlags) checkLasts(fault scenarios.Fault) error {
	if lasts := fault.Lasts(f.pauseFor(fault)); lasts >= f.timeout {
		return fmt.Errorf("the %s fault may last %s at a lock TTL of %s, and a race that outlasts --timeout %s ends unknown: give a longer --timeout or a shorter --lock-ttl",
			fault, lasts, f.ttlFor(fault), f.timeout)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
