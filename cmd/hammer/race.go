package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/agent"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/target"
	"github.com/hammer-load/hammer/latency"
	"github.com/hammer-load/hammer/report"
	"github.com/hammer-load/hammer/scenarios"
)

// raceCommand is what tells the commands that race apart.
type raceCommand struct {
	name string // the subcommand, for messages and the manifest
	// skipUnrunnable records the cells the stack cannot run as skipped
	// instead of refusing to start (a matrix keeps its other cells).
	skipUnrunnable bool
	// junit, if set, names the suite of the junit.xml it writes.
	junit string
}

// raceAll checks the flags and the host, makes the results folder, starts
// the stack, checks the servers, races every scenario, verifies, saves the
// results folder, prints the verdict table and returns the exit code.
// Whatever stops it before the race leaves no results folder.
func raceAll(ctx context.Context, cmd raceCommand, f *raceFlags, scns []scenarios.Scenario, io stdio) int {
	scns, err := f.withLock(scns)
	if err != nil {
		return usageError(io, cmd.name, "%v", err)
	}
	if err := f.check(scns); err != nil {
		return usageError(io, cmd.name, "%v", err)
	}
	if f.seed == 0 {
		f.seed = uint64(time.Now().UnixNano())
	}
	races := plan(f, scns)
	if err := driver.CheckHost(races); err != nil {
		return usageError(io, cmd.name, "%v", err)
	}
	runID := newRunID()
	if f.out == "" {
		f.out = filepath.Join("results", runID)
	}
	// The live page's port before anything starts: one in use is refused
	// with nothing left behind.
	lv, code := f.live.start(cmd.name, runID, f.out, io)
	if code != exitOK {
		return code
	}
	defer lv.close()
	defer lv.end("hammer stopped before a verdict") // nothing once the verdict was sent
	// The agents' port too.
	if f.agents.n > 0 {
		if code := f.agents.checkPort(cmd.name, io); code != exitOK {
			return code
		}
	}
	if err := f.target.build(ctx, buildLog(io, f.quiet)); err != nil {
		return usageError(io, cmd.name, "%v", err)
	}
	exe, err := workerExecutable()
	if err != nil {
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return exitInfra
	}
	out, err := makeResultsDir(f.out)
	if err != nil {
		return usageError(io, cmd.name, "%v", err)
	}
	defer out.discard() // only if nothing was saved in it
	// The servers and the setup SQL first: a wrong password or setup is
	// refused before anyone waits for agents.
	st, code := startStack(ctx, cmd.name, f, scns, io)
	if st == nil {
		return code
	}
	defer st.Close()
	if err := f.target.checkSetup(ctx, st.PGURL, f.seats); err != nil {
		if errors.Is(err, target.ErrSetup) || errors.Is(err, target.ErrRights) {
			return usageError(io, cmd.name, "%v", err)
		}
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return exitInfra
	}
	var agents []*agent.Agent
	if f.agents.n > 0 {
		if agents, code = f.agents.join(ctx, cmd.name, f.quiet, io); agents == nil {
			return code
		}
		defer closeAgents(agents)
	}
	// The workers of a --target service reach only its replicas.
	if f.target.file == nil {
		if err := checkReach(agents, append([]string{st.RedisURL, st.PGURL}, st.RedisPeers...)...); err != nil {
			return usageError(io, cmd.name, "%v", err)
		}
	}
	for i := range races {
		races[i].Agents = agents
		f.agents.relay(races[i].Backend, agents)
	}
	races, skipped, code := fit(ctx, cmd, st, races, io)
	if races == nil {
		return code
	}

	prog := newProgress(io, f.quiet)
	build := thisBuild()
	raw, lat, err := driver.RaceAll(ctx, driver.Plan{
		Command: cmd.name, RunID: runID, Seed: f.seed, Races: races, Skipped: skipped,
		Version: known(build.Version), Revision: known(build.Commit),
		Worker: driver.Command{Path: exe, Args: []string{workerCommand}},
		Track:  driver.Tee(prog.track, lv.track()),
		Warn: func(run, msg string) {
			for _, line := range strings.Split(msg, "\n") { // one line each, e.g. every key clean-up left
				fmt.Fprintf(io.err, "hammer: %s: %s\n", run, line)
			}
		},
	}, st)
	prog.wait()
	if err != nil { // the user's service, as set up, cannot start
		return usageError(io, cmd.name, "%v", err)
	}
	f.target.describe(&raw.Manifest.Env)
	// Everything needed is read back: stop the servers before reporting so
	// that the verdict table is the last thing printed.
	if err := st.Close(); err != nil {
		fmt.Fprintf(io.err, "hammer: stop servers: %v\n", err)
	}
	why := noCharts(ctx, raw)
	outputs := report.Outputs{NoCharts: why != "", JUnit: cmd.junit}
	// Error texts in the records may quote a URL: mask them before any
	// file is written, since every file is derived from the records.
	raw.Redact(io.secrets.String)
	f.otlp.export(ctx, cmd.name, raw, f.quiet, io)
	exit := finish(f.out, raw, lat, outputs, io, lv.verdict)
	if why != "" {
		fmt.Fprintf(io.out, "%s: no charts drawn; hammer report %s draws them\n", why, f.out)
	}
	return exit
}

// noCharts says why the charts are not drawn now, if they are not: a run
// that was interrupted, or whose servers failed (one stopped answering and
// did not answer again, or no race could run), must end at once.
func noCharts(ctx context.Context, raw *history.Log) string {
	if ctx.Err() != nil {
		return "interrupted"
	}
	raced := false
	for _, r := range raw.Manifest.Runs {
		for _, o := range r.Outages {
			if o.To == 0 {
				return o.Server + " stopped answering"
			}
		}
		raced = raced || r.GoAt != 0
	}
	if !raced {
		return "no race ran"
	}
	return ""
}

// startStack starts the servers the flags name; when it cannot, it says
// why and returns the exit code.
func startStack(ctx context.Context, cmd string, f *raceFlags, scns []scenarios.Scenario, io stdio) (*stack.Stack, int) {
	log := io.err
	if f.quiet {
		log = nil
	}
	kind, _ := stack.ParseKind(f.stackKind)
	o := stack.Options{Kind: kind, PGURL: f.pgURL, RedisNodes: f.stackNodes(scns), Log: log}
	if urls := f.redisURLs(); len(urls) > 0 {
		o.RedisURL, o.RedisPeers = urls[0], urls[1:]
	}
	st, err := stack.Start(ctx, o)
	switch {
	case errors.Is(err, stack.ErrBadConfig):
		return nil, usageError(io, cmd, "%v", err)
	case err != nil:
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return nil, exitInfra
	}
	if f.keep && (st.Kind == stack.Local || st.Kind == stack.Docker) { // --stack auto chose it
		fmt.Fprintf(io.err, "hammer: warning: --keep keeps nothing on the %s stack, whose servers and data are removed when hammer exits\n", st.Kind)
	}
	return st, exitOK
}

// fit returns the races st can run, and the ones it cannot with why, once
// the servers were checked to hold them; when nothing can race, it says
// why and returns nil and the exit code.
func fit(ctx context.Context, cmd raceCommand, st *stack.Stack, races []driver.Options, io stdio) ([]driver.Options, []string, int) {
	races, skipped := driver.Runnable(races, st.Kind, len(st.RedisPeers)+1)
	switch {
	case len(skipped) > 0 && !cmd.skipUnrunnable:
		return nil, nil, usageError(io, cmd.name, "%s", skipped[0])
	case len(races) == 0: // the stack the user chose runs none of them
		return nil, nil, usageError(io, cmd.name, "no cell can run on this stack: %s", strings.Join(skipped, "; "))
	}
	if err := driver.CheckServers(ctx, st.RedisURL, st.PGURL, races); err != nil {
		if errors.Is(err, driver.ErrLimit) {
			return nil, nil, usageError(io, cmd.name, "%v", err)
		}
		fmt.Fprintf(io.err, "hammer: %v\n", err)
		return nil, nil, exitInfra
	}
	return races, skipped, exitOK
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

// finish saves the raw records, verifies them, writes everything derived
// from them (summary.json, the report, the charts and, for the gate,
// junit.xml), prints the verdict table and returns the exit code.
//
// verdict, if set, is told the verdicts once the report was written.
func finish(dir string, raw *history.Log, lat *latency.Set, outputs report.Outputs, io stdio, verdict func(report.Summary)) int {
	defer analysisGC()()
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
	if verdict != nil {
		verdict(summary)
	}
	if err := report.WriteTable(io.out, summary); err != nil {
		return unprinted(io, err, summary.ExitCode)
	}
	fmt.Fprintf(io.out, "\nresults: %s (%s, %s)\n", dir, folder.ReportFile, folder.HTMLFile)
	return summary.ExitCode
}

// newRunID names a run by its start time plus a random suffix, so that two
// runs started in the same second never share a schema or a key prefix.
func newRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
