package bench

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Sizes of the races: hammer's defaults, 4 processes × 250 goroutines for
// 100 seats, with 8 PostgreSQL connections per process.
const (
	raceProcs      = 4
	raceGoroutines = 250
	raceSeats      = 100
	racePool       = 8
	// raceContenders and raceConns are the whole race's contenders and
	// PostgreSQL connections: the minimal race's goroutines and pool.
	raceContenders = raceProcs * raceGoroutines
	raceConns      = raceProcs * racePool
)

// skewCount is how many sizes the start skew is measured at.
const skewCount = 3

// size is procs × goroutines contenders.
type size struct{ procs, goroutines int }

// String is "4 × 250".
func (s size) String() string { return fmt.Sprintf("%d × %d", s.procs, s.goroutines) }

// skewSizes are the sizes whose start skew is measured; the last is the
// race-wall run itself.
func skewSizes() [skewCount]size {
	return [skewCount]size{{1, 25}, {4, 25}, {raceProcs, raceGoroutines}}
}

// Round is every figure measured in one round; a figure no step measured
// is the zero Value (n/a), and a failed step's error is in Errors.
type Round struct {
	PgbenchTPS, HammerTPS Value
	// Walls in ms, go signal → last answer. OneProcWall is hammer's
	// update-only race in one worker process, the minimal race's shape;
	// MinimalProcsWall the minimal race in hammer's processes, its shape.
	MinimalWall, MinimalProcsWall, UpdateOnlyWall, OneProcWall, LockPlusUpdateWall, RedsyncWall, RedislockWall Value
	// RedsyncGaveUp and RedislockGaveUp count the contenders that gave up
	// on the library's lock.
	RedsyncGaveUp, RedislockGaveUp Value
	// Skew, PeakInFlight and Realtime (the worker processes whose start
	// was a real-time burst) per skewSizes.
	Skew, PeakInFlight, Realtime [skewCount]Value
	// The minimal race's start skews in ms: MinimalSkew and
	// MinimalProcsSkew of the races above, MinimalSmallSkew of the
	// minimal race of skewSizes()[1]'s contenders on raceConns connections.
	MinimalSkew, MinimalProcsSkew, MinimalSmallSkew Value
	// FlashExit is the exit code of the flash sale (flash.go),
	// FlashVerdict its verdict ("" without summary), FlashRSS the sum of
	// its processes' peak RSS in bytes over FlashProcs processes;
	// FlashSkew its start skew in ms and FlashPeak its peak in flight.
	FlashExit    Value
	FlashVerdict string
	FlashRSS     Value
	FlashProcs   int
	FlashSkew    Value
	FlashPeak    Value
	// GoStartSkew is the flash sale's anchor: the start skew in ms of
	// flashContenders goroutines behind one channel close.
	GoStartSkew Value
	HandoffP50  Value
	// SetRPS and ReleaseRPS are redis-benchmark's; LockOpsPerSec is
	// hammer lock-plus-update's lock commands per second.
	SetRPS, ReleaseRPS, LockOpsPerSec Value
	// Errors are measurements that failed (the bench exits 1); Notes are
	// facts worth printing, like why the flash sale exited as it did.
	Errors, Notes []string
}

// step is one measurement of a round.
type step struct {
	name string
	run  func(context.Context, *Round) error
}

// steps are a round's measurements, each anchor next to its subject.
// Even rounds run them in reverse, so that neither side of a pair always
// goes first.
func (b *Bench) steps(round int) []step {
	s := []step{
		{"pgbench", b.stepPgbench},
		{"hammer update-only throughput", b.stepHammerThroughput},
		{"minimal Go race and hammer update-only race, " + strconv.Itoa(wallPairs) + " pairs", b.stepRaceWall(round)},
		{"hammer update-only race in one process", b.stepOneProc},
		{"minimal Go race in " + strconv.Itoa(raceProcs) + " processes", b.stepMinimalProcs},
		{"hammer lock-plus-update race", b.stepLockPlusUpdate},
		{"redsync race", b.stepRedsync},
		{"bsm/redislock race", b.stepRedislock},
		{"hammer skew " + skewSizes()[0].String(), b.stepSkew(0)},
		{"hammer skew " + skewSizes()[1].String(), b.stepSkew(1)},
		{"minimal Go race of " + strconv.Itoa(smallContenders()) + " goroutines", b.stepMinimalSmall},
		{"hammer flash sale " + size{flashProcs, flashGoroutines}.String(), b.stepFlash},
		{"minimal Go start of " + strconv.Itoa(flashContenders) + " goroutines", b.stepGoStart},
		{"redis-benchmark", b.stepRedisBenchmark},
	}
	if round%2 == 0 {
		slices.Reverse(s)
	}
	return s
}

// runRound runs every step of round (1-based), logging each on b.log.
func (b *Bench) runRound(ctx context.Context, round int) Round {
	var r Round
	for _, s := range b.steps(round) {
		if ctx.Err() != nil {
			break
		}
		start := time.Now()
		err := s.run(ctx, &r)
		took := time.Since(start).Round(10 * time.Millisecond)
		if err != nil {
			r.Errors = append(r.Errors, fmt.Sprintf("%s failed: %v", s.name, err))
			fmt.Fprintf(b.log, "round %d/%d: %s failed after %s: %v\n", round, b.cfg.Rounds, s.name, took, err)
			continue
		}
		fmt.Fprintf(b.log, "round %d/%d: %s (%s)\n", round, b.cfg.Rounds, s.name, took)
	}
	return r
}

func (b *Bench) stepPgbench(ctx context.Context, r *Round) (err error) {
	r.PgbenchTPS, err = b.pgbench(ctx)
	return err
}

// stepHammerThroughput is hammer update-only with Conns goroutines on
// Conns connections in one worker, TxPerConn attempts each, on a sector
// that does not sell out: sales per second of the race.
func (b *Bench) stepHammerThroughput(ctx context.Context, r *Round) error {
	n := b.cfg.Conns * b.cfg.TxPerConn
	args := append(sizeArgs(1, b.cfg.Conns), "--mode", "update-only", "--pool", strconv.Itoa(b.cfg.Conns),
		"--attempts", strconv.Itoa(b.cfg.TxPerConn), "--seats", strconv.Itoa(b.cfg.throughputSeats()))
	run, err := b.hammerRace(ctx, hammerRun{name: "throughput", args: args}, n)
	if err != nil {
		return err
	}
	r.HammerTPS = Ratio(Known(float64(run.Sold)), Known(*run.ElapsedMs/1000))
	return nil
}

// wallPairs is how many times a round races hammer's update-only race and
// the minimal race next to each other. One race lasts about 100 ms, and on
// a shared machine two races of the same binary differ by up to a fifth:
// more than the goal's margin. The round takes each side's median.
const wallPairs = 3

// stepRaceWall races the minimal race and hammer's update-only race
// wallPairs times, each pair in the other order from the one before and
// the first pair in the other order from the round before, and takes each
// side's median wall and start skew (and peak in flight) over the races
// that ended, even when one failed. Of the real-time starts it takes the
// fewest: a race whose workers did not all have one is not hidden.
func (b *Bench) stepRaceWall(round int) func(context.Context, *Round) error {
	return func(ctx context.Context, r *Round) error {
		return b.raceWall(ctx, r, round)
	}
}

func (b *Bench) raceWall(ctx context.Context, r *Round, round int) error {
	var minWall, minSkew, wall, skew, peak, rt []Value
	defer func() {
		last := skewCount - 1
		r.MinimalWall, r.MinimalSkew, r.UpdateOnlyWall = Median(minWall), Median(minSkew), Median(wall)
		r.Skew[last], r.PeakInFlight[last], r.Realtime[last] = Median(skew), Median(peak), Least(rt)
	}()
	minimal := func() error {
		res, err := b.race(ctx, b.inProcess("minimal", nil))
		minWall, minSkew = append(minWall, res.wall), append(minSkew, res.skew)
		return err
	}
	hammer := func() error {
		run, err := b.hammerRace(ctx, hammerRun{name: "update-only", args: raceArgs("update-only", raceProcs, raceGoroutines, racePool)}, raceSeats)
		if err != nil {
			return err
		}
		wall, skew = append(wall, Known(*run.ElapsedMs)), append(skew, Optional(run.StartSkewMs))
		peak, rt = append(peak, Optional(run.PeakInFlight)), append(rt, Optional(run.RealtimeWorkers))
		return nil
	}
	for i := range wallPairs {
		pair := []func() error{minimal, hammer}
		if (i+round)%2 == 0 {
			slices.Reverse(pair)
		}
		for _, race := range pair {
			if err := race(); err != nil {
				return err
			}
		}
		fmt.Fprintf(b.log, "  pair %d/%d: minimal Go %s, hammer %s\n", i+1, wallPairs, millis(minWall[i].V), millis(wall[i].V))
	}
	return nil
}

// smallContenders are the contenders of hammer's 4 × 25 skew run, which
// stepMinimalSmall races in one process.
func smallContenders() int { sz := skewSizes()[1]; return sz.procs * sz.goroutines }

// stepMinimalSmall is the minimal race of the 4 × 25 skew run's size: its
// contenders in one process on one pool as large as that run's four
// (raceConns), for the start skew any client of that size has here.
func (b *Bench) stepMinimalSmall(ctx context.Context, r *Round) error {
	n := smallContenders()
	res, err := b.race(ctx, inProcess{name: "minimal-small", goroutines: n, seats: min(raceSeats, n), conns: raceConns})
	r.MinimalSmallSkew = res.skew
	return err
}

// stepMinimalProcs is the minimal race with hammer's shape: raceProcs
// processes, each with raceGoroutines goroutines on a pool of racePool.
func (b *Bench) stepMinimalProcs(ctx context.Context, r *Round) error {
	res, err := b.multiRace(ctx, b.inProcess("minimal-procs", nil), raceProcs)
	r.MinimalProcsWall, r.MinimalProcsSkew = res.wall, res.skew
	return err
}

func (b *Bench) stepRedsync(ctx context.Context, r *Round) error {
	res, err := b.race(ctx, b.inProcess("redsync", newRedsync))
	r.RedsyncWall, r.RedsyncGaveUp = res.wall, Known(float64(res.out.gaveUp))
	r.note(res.note("redsync"))
	return err
}

func (b *Bench) stepRedislock(ctx context.Context, r *Round) error {
	res, err := b.race(ctx, b.inProcess("bsm/redislock", newBSM))
	r.RedislockWall, r.RedislockGaveUp = res.wall, Known(float64(res.out.gaveUp))
	r.note(res.note("bsm/redislock"))
	return err
}

// note adds n to the round's notes unless it is empty.
func (r *Round) note(n string) {
	if n != "" {
		r.Notes = append(r.Notes, n)
	}
}

// inProcess is the bench's own race of hammer's size: as many goroutines
// as hammer's contenders, one pool as large as all of hammer's together.
func (b *Bench) inProcess(name string, lock lockFactory) inProcess {
	return inProcess{name: name, goroutines: raceContenders, seats: raceSeats, conns: raceConns, lock: lock}
}

// raceArgs are the flags of a hammer race in mode with procs × goroutines
// and pool connections per process.
func raceArgs(mode string, procs, goroutines, pool int) []string {
	return append(sizeArgs(procs, goroutines), "--mode", mode, "--seats", strconv.Itoa(raceSeats),
		"--pool", strconv.Itoa(pool))
}

// stepOneProc is hammer's update-only race with the minimal race's shape:
// every contender in one worker process, on one pool as large as the four
// workers' together. Next to the minimal race it shows what hammer itself
// costs; the 4-process race adds what processes sharing the cores cost.
func (b *Bench) stepOneProc(ctx context.Context, r *Round) error {
	run, err := b.hammerRace(ctx, hammerRun{name: "update-only-1proc", args: raceArgs("update-only", 1, raceContenders, raceConns)}, raceSeats)
	if err != nil {
		return err
	}
	r.OneProcWall = Known(*run.ElapsedMs)
	return nil
}

// stepLockPlusUpdate is hammer's lock-plus-update race: its wall, its
// handoff p50, and the lock commands per second Redis served during it.
func (b *Bench) stepLockPlusUpdate(ctx context.Context, r *Round) error {
	rdb, err := b.redisClient(1)
	if err != nil {
		return err
	}
	defer rdb.Close()
	before, err := lockCommands(ctx, rdb)
	if err != nil {
		return err
	}
	run, err := b.hammerRace(ctx, hammerRun{name: "lock-plus-update", args: raceArgs("lock-plus-update", raceProcs, raceGoroutines, racePool)}, raceSeats)
	if err != nil {
		return err
	}
	after, err := lockCommands(ctx, rdb)
	if err != nil {
		return err
	}
	r.LockPlusUpdateWall, r.HandoffP50 = Known(*run.ElapsedMs), run.PhaseP50("handoff")
	r.LockOpsPerSec = Ratio(Known(float64(after-before)), Known(*run.ElapsedMs/1000))
	return nil
}

// stepSkew is hammer update-only at skewSizes[i], for its start skew.
func (b *Bench) stepSkew(i int) func(context.Context, *Round) error {
	return func(ctx context.Context, r *Round) error {
		sz := skewSizes()[i]
		run, err := b.hammerRace(ctx, hammerRun{name: fmt.Sprintf("skew-%dx%d", sz.procs, sz.goroutines),
			args: raceArgs("update-only", sz.procs, sz.goroutines, racePool)}, min(raceSeats, sz.procs*sz.goroutines))
		if err != nil {
			return err
		}
		r.Skew[i], r.PeakInFlight[i], r.Realtime[i] = Optional(run.StartSkewMs), Optional(run.PeakInFlight), Optional(run.RealtimeWorkers)
		return nil
	}
}

func (b *Bench) stepRedisBenchmark(ctx context.Context, r *Round) error {
	rps, err := b.redisBenchmark(ctx)
	r.SetRPS, r.ReleaseRPS = rps.set, rps.release
	return err
}
