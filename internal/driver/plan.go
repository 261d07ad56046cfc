package driver

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/hammer-load/hammer/internal/agent"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/latency"
)

// Plan is what one command races on one stack, in order: a race per
// scenario, with everything but the servers, the worker and the run id,
// which RaceAll fills in.
type Plan struct {
	// Command names the hammer subcommand, for the manifest.
	Command string
	// RunID names the results folder, its schemas and key prefixes.
	RunID string
	// Seed is the seed every race was given, for the manifest.
	Seed uint64
	// Races are the races to run, in order.
	Races []Options
	// Skipped names the scenarios left out because the stack cannot run
	// them, each with why (see Runnable).
	Skipped []string
	// Worker is how to start a worker process.
	Worker Command
	// Track, if set, is called as each race starts, with the race's
	// options (the scenario, Contenders()); it returns what to tell about
	// the race while it runs.
	Track func(o Options) Hooks
	// Warn, if set, is told what went wrong with a race but does not touch
	// any verdict: a race that could not start, a clean-up that failed.
	Warn func(run, msg string)
	// Version and Revision name the hammer build that races, for the
	// manifest (its linker stamp); where empty, the binary's build
	// information says.
	Version, Revision string
}

// Hooks are what a Plan's Track is told about one race while it runs;
// each may be nil. They are called on the race's own goroutines, so they
// must return at once: the race waits for them.
type Hooks struct {
	// Go is called with the go signal's instant (Unix ns).
	Go func(goAt int64)
	// Attempt is called from one goroutine with every record as it arrives.
	Attempt func(history.Attempt)
	// Fault is called with every fault event as it is recorded, possibly
	// from several goroutines at once.
	Fault func(history.FaultEvent)
	// Strike is called as a strike begins (see Options.OnStrike).
	Strike func(history.FaultEvent)
	// Stage is called with what the race does before its go signal (see
	// Options.OnStage).
	Stage func(Stage)
	// Done is called when the race ended, or could not start.
	Done func()
}

// Tee returns a Track that calls every one of tracks (nil ones left
// out) and hands each race's events to all of them, in order.
func Tee(tracks ...func(Options) Hooks) func(Options) Hooks {
	return func(o Options) Hooks {
		var all []Hooks
		for _, t := range tracks {
			if t != nil {
				all = append(all, t(o))
			}
		}
		return Hooks{
			Go:      fan(all, func(h Hooks) func(int64) { return h.Go }),
			Attempt: fan(all, func(h Hooks) func(history.Attempt) { return h.Attempt }),
			Fault:   fan(all, func(h Hooks) func(history.FaultEvent) { return h.Fault }),
			Strike:  fan(all, func(h Hooks) func(history.FaultEvent) { return h.Strike }),
			Stage:   fan(all, func(h Hooks) func(Stage) { return h.Stage }),
			Done: func() {
				for _, h := range all {
					if h.Done != nil {
						h.Done()
					}
				}
			},
		}
	}
}

// fan is one hook calling the hook pick finds in each of hs, nil when
// none has one.
func fan[T any](hs []Hooks, pick func(Hooks) func(T)) func(T) {
	var fs []func(T)
	for _, h := range hs {
		if f := pick(h); f != nil {
			fs = append(fs, f)
		}
	}
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	}
	return func(v T) {
		for _, f := range fs {
			f(v)
		}
	}
}

// RaceAll races every scenario of the plan in turn on st, and returns the
// records of the results folder, its manifest and the merged latency
// histograms. A race that could not start, and once ctx ended every race
// not yet run, stays in the folder as not run, with an unknown verdict:
// one broken cell does not throw away the others, and an interrupted
// folder can never read as a pass. A backend that cannot start as the
// user set it up (ErrBackendSetUp) in the first race, before anything
// raced, stops RaceAll with that error; in a later race it is not run, as
// any other, so that what the races before it proved is kept.
func RaceAll(ctx context.Context, p Plan, st *stack.Stack) (*history.Log, *latency.Set, error) {
	raw := &history.Log{Manifest: history.Manifest{
		Schema: history.ManifestSchema, RunID: p.RunID, Seed: p.Seed, Command: p.Command,
		Stack: string(st.Kind), StackNotes: st.Notes, Skipped: p.Skipped, Env: describe(ctx, st, p),
	}}
	lat := latency.NewSet()
	var managed *stack.Stack
	if st.Kind == stack.Local {
		managed = st
	}
	for _, o := range p.Races {
		if ctx.Err() != nil {
			raw.Manifest.Runs = append(raw.Manifest.Runs, notRun(o, "not run: hammer was interrupted"))
			continue
		}
		o.RunID, o.RedisURL, o.PGURL, o.Worker, o.Managed = p.RunID, st.RedisURL, st.PGURL, p.Worker, managed
		o.RedisPeers = peersOn(st, o)
		var h Hooks
		if p.Track != nil {
			h = p.Track(o)
			o.OnAttempt, o.OnGoAt, o.OnFault, o.OnStrike, o.OnStage = h.Attempt, h.Go, h.Fault, h.Strike, h.Stage
		}
		res, err := Race(ctx, o)
		if h.Done != nil {
			h.Done()
		}
		if errors.Is(err, ErrBackendSetUp) && len(raw.Manifest.Runs) == 0 {
			return raw, lat, err
		}
		if err != nil {
			p.warn(o.Scenario.Name, err.Error())
			run := notRun(o, "not run: "+err.Error())
			if l, ok := o.Backend.(Logs); ok { // replicas that did not get ready
				run.ReplicaLogs = l.Logs()
			}
			raw.Manifest.Runs = append(raw.Manifest.Runs, run)
			continue
		}
		for _, w := range res.Warnings {
			p.warn(o.Scenario.Name, w)
		}
		raw.Manifest.Runs = append(raw.Manifest.Runs, res.Run)
		raw.Add(res.Records)
		lat.Merge(res.Latency)
	}
	return raw, lat, nil
}

func (p Plan) warn(run, msg string) {
	if p.Warn != nil {
		p.Warn(run, msg)
	}
}

// Runnable splits off the races a stack of this kind, with this many
// Redis nodes, cannot run, saying why for each.
func Runnable(races []Options, kind stack.Kind, redisNodes int) (run []Options, skipped []string) {
	for _, o := range races {
		f := o.Scenario.Fault
		switch {
		case f.NeedsManagedStack() && kind != stack.Local:
			skipped = append(skipped, fmt.Sprintf("%s: the %s fault needs a stack hammer manages (--stack local), not %s",
				o.Scenario.Name, f, kind))
		case f.Proxied() && remoteAgents(o.Agents) && o.Contender == "":
			// A user's service reaches the proxies from the coordinator's
			// host, where its replicas run; its workers reach no server.
			skipped = append(skipped, fmt.Sprintf("%s: the %s fault's proxies listen on the coordinator's loopback, which agents on other hosts cannot reach",
				o.Scenario.Name, f))
		case nodes(o) > redisNodes:
			skipped = append(skipped, fmt.Sprintf("%s: its lock is taken on %d Redis nodes, and the stack has %d (--redis-nodes)",
				o.Scenario.Name, nodes(o), redisNodes))
		default:
			run = append(run, o)
		}
	}
	return run, skipped
}

// notRun describes a race that never ran, with why: its verdict can only
// be unknown.
func notRun(o Options, why string) history.Run {
	run := newRun(o)
	run.Incomplete = []string{why}
	return run
}

// describe records what the races run on. Servers that cannot be asked
// leave their fields empty; the race itself will say if they are down.
func describe(ctx context.Context, st *stack.Stack, p Plan) history.Env {
	env := history.Env{Hammer: "(devel)", Go: runtime.Version(), Cores: runtime.NumCPU()}
	if len(p.Races) > 0 {
		env.PoolSize, env.RedisPool = p.Races[0].PoolSize, p.Races[0].withDefaults().RedisPool
	}
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
	if p.Version != "" {
		env.Hammer = p.Version
	}
	if p.Revision != "" {
		env.Revision = p.Revision
	}
	v, _ := st.Describe(ctx)
	env.Redis, env.PostgreSQL, env.Fsync = v.Redis, v.PostgreSQL, v.Fsync
	return env
}

// remoteAgents reports whether any agent joined from another host than
// the coordinator's.
func remoteAgents(agents []*agent.Agent) bool {
	return slices.ContainsFunc(agents, (*agent.Agent).Remote)
}
