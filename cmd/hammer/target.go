package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hammer-load/hammer/history"
	"github.com/hammer-load/hammer/internal/driver"
	"github.com/hammer-load/hammer/internal/stack"
	"github.com/hammer-load/hammer/internal/target"
	"github.com/hammer-load/hammer/scenarios"
)

// targetFlags point run, load and gate at a user's own service.
type targetFlags struct {
	path     string
	replicas int
	file     *target.File // loaded by load; nil without --target
	// redisServer finds the redis-server a race of a service with fixed
	// key names starts for itself; nil is stack.FindRedisServer.
	redisServer func() string
}

// register defines --target and --replicas on fs.
func (t *targetFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.path, "target", "", "target `file` describing your own service (see docs/target.md)")
	fs.IntVar(&t.replicas, "replicas", 3, "`replicas` of the service to start (with --target)")
}

// load reads the target file, when one was named.
func (t *targetFlags) load() error {
	if t.path == "" {
		return nil
	}
	f, err := target.Load(t.path)
	if err != nil {
		return err
	}
	t.file = f
	return nil
}

// variants are the cells of load: every variant of the file against its
// expectation, without a fault.
func (t *targetFlags) variants() []scenarios.Scenario {
	var out []scenarios.Scenario
	for _, v := range t.file.Variants() {
		out = append(out, scenarios.Scenario{Name: v.Name, Mode: scenarios.Mode(v.Name), Expected: v.Expect})
	}
	return out
}

// matrix reads a variant × fault matrix for the file's service.
func (t *targetFlags) matrix(path string) ([]scenarios.Scenario, error) {
	file, err := scenarios.OpenMatrix(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	cells, err := scenarios.ParseVariantMatrix(file, t.file.VariantNames())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cells, nil
}

// check refuses what a service cannot be raced with, before anything
// starts.
func (t *targetFlags) check(scns []scenarios.Scenario) error {
	if t.file == nil {
		return nil
	}
	if t.file.Service != nil && t.replicas < 1 {
		return fmt.Errorf("--replicas must be at least 1, got %d", t.replicas)
	}
	for _, sc := range scns {
		if err := t.checkFault(sc.Fault); err != nil {
			return err
		}
		if err := t.checkOwnRedis(sc); err != nil {
			return err
		}
	}
	return nil
}

// checkOwnRedis says why a race of cell sc cannot have the Redis of its
// own that a service with fixed key names needs, if it cannot.
func (t *targetFlags) checkOwnRedis(sc scenarios.Scenario) error {
	v, err := t.file.Variant(string(sc.Mode))
	if err != nil || !t.file.FixedKeys(v) {
		return nil
	}
	find := t.redisServer
	if find == nil {
		find = stack.FindRedisServer
	}
	if find() != "" {
		return nil
	}
	return fmt.Errorf("%s: variant %s is handed no {{key_prefix}}, so its Redis keys have fixed names and every race needs a Redis of its own, "+
		"which hammer starts from redis-server: none in PATH, /usr/bin or /usr/sbin. Install it (apt-get install redis-server), "+
		"or hand the service {{key_prefix}} in service.env and start every key it writes with it", t.path, v.Name)
}

// checkFault says why fault cannot strike the file's service, if it
// cannot.
func (t *targetFlags) checkFault(f scenarios.Fault) error {
	switch {
	case f == scenarios.NoFault:
		return nil
	case !f.OnService():
		return fmt.Errorf("the %s fault acts at a point inside hammer's own strategies and cannot strike a service", f)
	case f.Scheduled() && t.file.LockKey == "":
		return fmt.Errorf("the %s fault strikes the holder of the service's lock: %s must name it in lock_key", f, t.path)
	case (f.Proxied() || f.NeedsManagedStack()) && t.file.Service == nil:
		return fmt.Errorf("the %s fault changes the servers the replicas reach; %s lists urls of replicas it did not start", f, t.path)
	case f.NeedsProcs() > 1 && t.file.Service == nil:
		return fmt.Errorf("the %s fault stops or kills replicas hammer started; %s lists urls of replicas it did not start", f, t.path)
	case f.NeedsProcs() > 1 && t.replicas < f.NeedsProcs():
		return fmt.Errorf("the %s fault needs --replicas %d or more (another replica must go on serving)", f, f.NeedsProcs())
	}
	return nil
}

// buildLog is where the build step is said: stderr, unless quiet.
func buildLog(std stdio, quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return std.err
}

// build runs the service's build step once, saying so on log (nil: quiet)
// when there is one: it can take a while.
func (t *targetFlags) build(ctx context.Context, log io.Writer) error {
	if t.file == nil {
		return nil
	}
	s := t.file.Service
	if log == nil || s == nil || len(s.Build) == 0 {
		return target.Build(ctx, t.file)
	}
	fmt.Fprintf(log, "building %s (%s) …\n", t.file.ServiceName(), strings.Join(s.Build, " "))
	began := time.Now()
	if err := target.Build(ctx, t.file); err != nil {
		return err
	}
	fmt.Fprintf(log, "built %s in %s\n", t.file.ServiceName(), driver.Roughly(time.Since(began)))
	return nil
}

// checkSetup runs the file's setup SQL in a transaction it rolls back,
// so that SQL the server refuses is found before any race (the error
// then matches target.ErrSetup).
func (t *targetFlags) checkSetup(ctx context.Context, pgURL string, seats int) error {
	if t.file == nil {
		return nil
	}
	return target.CheckSetup(ctx, t.file, pgURL, seats)
}

// describe records the service raced in the results folder's env.
func (t *targetFlags) describe(env *history.Env) {
	if t.file == nil {
		return
	}
	env.Target, env.Replicas, env.PoolSize, env.RedisPool = t.path, t.replicas, 0, 0
	if t.file.Service == nil {
		env.Replicas = len(t.file.URLs)
	}
}
