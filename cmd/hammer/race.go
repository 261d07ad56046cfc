package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/latency"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/report"
	"github.com/hammer-load/hammer/scenarios"
)

// raceFlags are the flags shared by run and load.
type raceFlags struct {
	procs, goroutines, attempts, seats, pool int
	lockTTL, lockWait, timeout               time.Duration
	rate                                     float64       // open model (run only)
	duration                                 time.Duration // open model (run only)
	seed                                     uint64
	out, stackKind, redisURL, pgURL          string
	keep, quiet                              bool
}

// loadDefaults are the sizes of `run` and `load`: 4 × 250 contenders for
// 100 seats.
func loadDefaults() raceFlags {
	return raceFlags{procs: 4, goroutines: 250, attempts: 1, seats: 100, pool: 16,
		lockTTL: 10 * time.Second, lockWait: time.Minute, timeout: 5 * time.Minute}
}

// register defines the flags on fs with d's values as defaults.
func (f *raceFlags) register(fs *flag.FlagSet, d raceFlags) {
	fs.IntVar(&f.procs, "procs", d.procs, "worker `processes`")
	fs.IntVar(&f.goroutines, "goroutines", d.goroutines, "contending `goroutines` per process")
	fs.IntVar(&f.attempts, "attempts", d.attempts, "`attempts` per goroutine")
	fs.IntVar(&f.seats, "seats", d.seats, "`seats` in the sector")
	fs.IntVar(&f.pool, "pool", d.pool, "PostgreSQL `connections` per worker process")
	fs.DurationVar(&f.lockTTL, "lock-ttl", d.lockTTL, "lock `TTL`")
	fs.DurationVar(&f.lockWait, "lock-wait", d.lockWait, "how long a contender waits for the lock before giving up")
	fs.DurationVar(&f.timeout, "timeout", d.timeout, "longest a race may take; past it the verdict is unknown")
	fs.Uint64Var(&f.seed, "seed", 0, "seed for every random choice (0 picks one and records it)")
	fs.StringVar(&f.out, "out", "", "results `folder` (default results/<run-id>)")
	fs.StringVar(&f.stackKind, "stack", "auto", "where Redis and PostgreSQL come from: auto, external, docker or local")
	// The URLs' defaults are read after parsing, so that usage text never
	// shows them: they may hold passwords.
	fs.StringVar(&f.redisURL, "redis-url", "", "Redis `URL` of an external stack (default $"+envRedisURL+")")
	fs.StringVar(&f.pgURL, "pg-url", "", "PostgreSQL `URL` of an external stack (default $"+envPGURL+")")
	fs.BoolVar(&f.keep, "keep", false, "keep the run's schema and Redis keys instead of removing them")
	fs.BoolVar(&f.quiet, "quiet", false, "print only the verdict table")
}

// Environment variables that name the servers of an external stack when
// --redis-url and --pg-url are not given.
const (
	envRedisURL = "HAMMER_REDIS_URL"
	envPGURL    = "HAMMER_PG_URL"
)

// parse parses args with the package's parse, then takes the URLs not
// given as flags from the environment.
func (f *raceFlags) parse(fs *flag.FlagSet, args []string, io stdio) (int, bool) {
	if code, ok := parse(fs, args, io); !ok {
		return code, false
	}
	if !isSet(fs, "redis-url") {
		f.redisURL = os.Getenv(envRedisURL)
	}
	if !isSet(fs, "pg-url") {
		f.pgURL = os.Getenv(envPGURL)
	}
	return 0, true
}

// check validates the flags; the error reads as one line.
func (f *raceFlags) check() error {
	for _, c := range []struct {
		name string
		v    int
	}{{"procs", f.procs}, {"goroutines", f.goroutines}, {"attempts", f.attempts}, {"seats", f.seats}, {"pool", f.pool}} {
		if c.v <= 0 {
			return fmt.Errorf("--%s must be at least 1, got %d", c.name, c.v)
		}
	}
	for _, c := range []struct {
		name string
		v    time.Duration
	}{{"lock-ttl", f.lockTTL}, {"lock-wait", f.lockWait}, {"timeout", f.timeout}} {
		if c.v <= 0 {
			return fmt.Errorf("--%s must be positive, got %s", c.name, c.v)
		}
	}
	if _, err := stack.ParseKind(f.stackKind); err != nil {
		return err
	}
	return checkOut(f.out)
}

// checkOut refuses a results folder that already holds files: hammer never
// overwrites what it did not create.
func checkOut(dir string) error {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--out %s: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("--out %s already holds files; choose an empty or new folder", dir)
	}
	return nil
}

// raceAll starts the stack, races every scenario, verifies, saves the
// results folder, prints the verdict table and returns the exit code.
func raceAll(ctx context.Context, command string, f *raceFlags, scns []scenarios.Scenario, io stdio) int {
	if err := f.check(); err != nil {
		return usageError(io, "%v", err)
	}
	for _, sc := range scns {
		if n := sc.Fault.NeedsProcs(); f.procs < n {
			return usageError(io, "the %s fault needs --procs %d or more (another process must go on racing)", sc.Fault, n)
		}
	}
	exe, err := workerExecutable()
	if err != nil {
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return exitInfra
	}
	log := io.err
	if f.quiet {
		log = nil
	}
	runID := newRunID()
	if f.out == "" {
		f.out = filepath.Join("results", runID)
	}
	if f.seed == 0 {
		f.seed = uint64(time.Now().UnixNano())
	}
	kind, _ := stack.ParseKind(f.stackKind)
	st, err := stack.Start(ctx, stack.Options{Kind: kind, RedisURL: f.redisURL, PGURL: f.pgURL, Log: log})
	if err != nil {
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		if errors.Is(err, stack.ErrBadConfig) {
			return exitUsage
		}
		return exitInfra
	}
	defer st.Close()
	scns, skipped := runnable(scns, st.Kind)
	if len(skipped) > 0 && command != "gate" {
		return usageError(io, "%s", skipped[0])
	}

	folder, lat, err := raceScenarios(ctx, runID, f, st, scns, driver.Command{Path: exe, Args: []string{workerCommand}}, io)
	if err != nil {
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return exitInfra
	}
	folder.Manifest.Command, folder.Manifest.Skipped = command, skipped
	// Everything needed is read back: stop the servers before reporting so
	// that the verdict table is the last thing printed.
	if err := st.Close(); err != nil {
		fmt.Fprintf(io.err, "hammer: stop servers: %v\n", err)
	}
	junit := ""
	if command == "gate" {
		junit = "hammer gate"
	}
	// Error texts in the records may quote a URL: mask them before any
	// file is written, since every file is derived from the records.
	folder.Redact(io.secrets.String)
	return finish(f.out, folder, lat, junit, io)
}

// runnable splits off the scenarios this kind of stack cannot run, saying
// why for each.
func runnable(scns []scenarios.Scenario, kind stack.Kind) (run []scenarios.Scenario, skipped []string) {
	for _, sc := range scns {
		if sc.Fault.NeedsManagedStack() && kind != stack.Local {
			skipped = append(skipped, fmt.Sprintf("%s: the %s fault needs a stack hammer manages (--stack local), not %s",
				sc.Name, sc.Fault, kind))
			continue
		}
		run = append(run, sc)
	}
	return run, skipped
}

// raceScenarios races each scenario in turn on one stack and returns the
// records and the merged latency histograms.
func raceScenarios(ctx context.Context, runID string, f *raceFlags, st *stack.Stack, scns []scenarios.Scenario, worker driver.Command, io stdio) (*history.Folder, *latency.Set, error) {
	folder := &history.Folder{Manifest: history.Manifest{
		Schema: history.ManifestSchema, RunID: runID, Seed: f.seed,
		Stack: string(st.Kind), StackNotes: st.Notes, Env: describe(ctx, st, f),
	}}
	lat := latency.NewSet()
	var managed *stack.Stack
	if st.Kind == stack.Local {
		managed = st
	}
	prog := newProgress(io, f.quiet)
	defer prog.wait()
	for _, sc := range scns {
		if ctx.Err() != nil {
			// Interrupted: the scenarios not run stay in the folder with an
			// unknown verdict, so the folder can never read as a pass.
			folder.Manifest.Runs = append(folder.Manifest.Runs, notRun(sc, f, "not run: hammer was interrupted"))
			continue
		}
		total := f.procs * f.goroutines * f.attempts
		if f.rate > 0 {
			total = history.OpenRequests(f.rate, f.duration)
		}
		track := prog.track(sc.Name, total)
		res, err := driver.Race(ctx, driver.Options{
			RunID: runID, Scenario: sc,
			Procs: f.procs, Goroutines: f.goroutines, Attempts: f.attempts, Seats: f.seats, PoolSize: f.pool,
			RedisURL: st.RedisURL, PGURL: st.PGURL,
			LockTTL: f.lockTTL, LockWait: f.lockWait, Timeout: f.timeout, ReadyTimeout: time.Minute,
			Rate: f.rate, Duration: f.duration,
			Seed: f.seed, Keep: f.keep, Worker: worker, Managed: managed,
			OnAttempt: track.attempt,
		})
		track.done()
		if err != nil {
			// The race could not even start: keep the cell, unknown, and go
			// on, so one broken cell does not throw away the others.
			fmt.Fprintf(io.err, "hammer: %s: %v\n", sc.Name, err)
			folder.Manifest.Runs = append(folder.Manifest.Runs, notRun(sc, f, "not run: "+err.Error()))
			continue
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(io.err, "hammer: %s: %s\n", sc.Name, w)
		}
		folder.Manifest.Runs = append(folder.Manifest.Runs, res.Run)
		folder.Add(res.Records)
		lat.Merge(res.Latency)
	}
	return folder, lat, nil
}

// notRun describes a scenario that never raced, with why: its verdict can
// only be unknown.
func notRun(sc scenarios.Scenario, f *raceFlags, why string) history.Run {
	return history.Run{
		Name: sc.Name, Mode: string(sc.Mode), Procs: f.procs, Goroutines: f.goroutines,
		Seats: f.seats, Expected: sc.Expected, Fault: string(sc.Fault), Extend: sc.Extend,
		Incomplete: []string{why},
	}
}

// describe records what the race runs on. Servers that cannot be asked
// leave their fields empty; the race itself will say if they are down.
func describe(ctx context.Context, st *stack.Stack, f *raceFlags) history.Env {
	env := history.Env{Hammer: "(devel)", Go: runtime.Version(), Cores: runtime.NumCPU(), PoolSize: f.pool}
	if bi, ok := debug.ReadBuildInfo(); ok {
		env.Hammer = bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				env.Revision = s.Value
			}
			if s.Key == "vcs.modified" && s.Value == "true" {
				env.Revision += "+dirty"
			}
		}
	}
	v, _ := st.Describe(ctx)
	env.Redis, env.PostgreSQL, env.Fsync = v.Redis, v.PostgreSQL, v.Fsync
	return env
}

// finish saves the raw records, verifies them, writes everything derived
// from them (summary.json, the report, the charts and, for the gate,
// junit.xml), prints the verdict table and returns the exit code.
func finish(dir string, folder *history.Folder, lat *latency.Set, junit string, io stdio) int {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(io.err, "hammer: results folder: %v\n", err)
		return exitInfra
	}
	if err := folder.Save(dir); err != nil {
		fmt.Fprintf(io.err, "hammer: save results: %v\n", err)
		return exitInfra
	}
	summary, err := report.WriteFolder(dir, folder, lat, junit)
	if err != nil {
		fmt.Fprintf(io.err, "hammer: write report: %v\n", err)
		return exitInfra
	}
	if err := report.WriteTable(io.out, summary); err != nil {
		fmt.Fprintf(io.err, "hammer: print the verdict table: %v\n", err)
		return exitInfra
	}
	fmt.Fprintf(io.out, "\nresults: %s (report.md)\n", dir)
	return summary.ExitCode
}

// newRunID names a run by its start time plus a random suffix, so that two
// runs started in the same second never share a schema or a key prefix.
func newRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
