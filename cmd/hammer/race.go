package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/report"
	"github.com/hammer-load/hammer/scenarios"
)

// raceAll checks the flags and the host, makes the results folder, starts
// the stack, checks the servers, races every scenario, verifies, saves the
// results folder, prints the verdict table and returns the exit code.
// Whatever stops it before the race leaves no results folder.
func raceAll(ctx context.Context, command string, f *raceFlags, scns []scenarios.Scenario, io stdio) int {
	if err := f.check(scns); err != nil {
		return usageError(io, command, "%v", err)
	}
	if f.seed == 0 {
		f.seed = uint64(time.Now().UnixNano())
	}
	if err := driver.CheckHost(plan(f, scns)); err != nil {
		return usageError(io, command, "%v", err)
	}
	exe, err := workerExecutable()
	if err != nil {
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return exitInfra
	}
	runID := newRunID()
	if f.out == "" {
		f.out = filepath.Join("results", runID)
	}
	out, err := makeResultsDir(f.out)
	if err != nil {
		return usageError(io, command, "%v", err)
	}
	defer out.discard() // only if nothing was saved in it
	log := io.err
	if f.quiet {
		log = nil
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
	switch {
	case len(skipped) > 0 && command != "gate":
		return usageError(io, command, "%s", skipped[0])
	case len(scns) == 0:
		fmt.Fprintf(io.err, "hammer: no cell ran: %s\n", strings.Join(skipped, "; "))
		return exitInfra
	}
	if err := driver.CheckServers(ctx, st.RedisURL, st.PGURL, plan(f, scns)); err != nil {
		if errors.Is(err, driver.ErrLimit) {
			return usageError(io, command, "%v", err)
		}
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return exitInfra
	}

	folder, lat := raceScenarios(ctx, runID, f, st, scns, driver.Command{Path: exe, Args: []string{workerCommand}}, io)
	folder.Manifest.Command, folder.Manifest.Skipped = command, skipped
	// Everything needed is read back: stop the servers before reporting so
	// that the verdict table is the last thing printed.
	if err := st.Close(); err != nil {
		fmt.Fprintf(io.err, "hammer: stop servers: %v\n", err)
	}
	outputs := report.Outputs{NoCharts: ctx.Err() != nil} // interrupted: end at once
	if command == "gate" {
		outputs.JUnit = "hammer gate"
	}
	// Error texts in the records may quote a URL: mask them before any
	// file is written, since every file is derived from the records.
	folder.Redact(io.secrets.String)
	return finish(f.out, folder, lat, outputs, io)
}

// plan is the driver options of every scenario, but for what only a
// running stack knows.
func plan(f *raceFlags, scns []scenarios.Scenario) []driver.Options {
	out := make([]driver.Options, len(scns))
	for i, sc := range scns {
		out[i] = f.options(sc)
	}
	return out
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
func raceScenarios(ctx context.Context, runID string, f *raceFlags, st *stack.Stack, scns []scenarios.Scenario, worker driver.Command, io stdio) (*history.Folder, *latency.Set) {
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
	for _, o := range plan(f, scns) {
		sc := o.Scenario
		if ctx.Err() != nil {
			// Interrupted: the scenarios not run stay in the folder with an
			// unknown verdict, so the folder can never read as a pass.
			folder.Manifest.Runs = append(folder.Manifest.Runs, notRun(sc, f, "not run: hammer was interrupted"))
			continue
		}
		track := prog.track(sc.Name, o.Contenders())
		o.RunID, o.RedisURL, o.PGURL, o.Worker, o.Managed, o.OnAttempt = runID, st.RedisURL, st.PGURL, worker, managed, track.attempt
		res, err := driver.Race(ctx, o)
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
	return folder, lat
}

// notRun describes a scenario that never raced, with why: its verdict can
// only be unknown.
func notRun(sc scenarios.Scenario, f *raceFlags, why string) history.Run {
	return history.Run{
		Name: sc.Name, Mode: sc.Mode, Procs: f.procs, Goroutines: f.goroutines,
		Seats: f.seats, Expected: sc.Expected, Fault: sc.Fault, Extend: sc.Extend,
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
func finish(dir string, raw *history.Folder, lat *latency.Set, outputs report.Outputs, io stdio) int {
	f := folder.New(*raw, lat)
	if err := f.Save(dir); err != nil {
		fmt.Fprintf(io.err, "hammer: save results: %v\n", err)
		return exitInfra
	}
	summary := judge(f)
	if err := writeReport(dir, f, summary, outputs); err != nil {
		fmt.Fprintf(io.err, "hammer: write report: %v\n", err)
		return exitInfra
	}
	if err := report.WriteTable(io.out, summary); err != nil {
		fmt.Fprintf(io.err, "hammer: print the verdict table: %v\n", err)
		return exitInfra
	}
	fmt.Fprintf(io.out, "\nresults: %s (%s)\n", dir, folder.ReportFile)
	if outputs.NoCharts {
		fmt.Fprintf(io.out, "interrupted: no charts drawn; hammer report %s draws them\n", dir)
	}
	return summary.ExitCode
}

// newRunID names a run by its start time plus a random suffix, so that two
// runs started in the same second never share a schema or a key prefix.
func newRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
